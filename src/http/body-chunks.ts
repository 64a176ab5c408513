// A request body's own chunks, whose memory can be given back as soon as they are written somewhere.
// Node's HTTP parser copies every piece of a body it reads (≤ 64 KB) into a Buffer of its own: a whole
// ArrayBuffer that nothing else refers to once the multipart parser has passed it on. V8 frees such a buffer only
// when a garbage collection finds it dead, and the bytes of written chunks are no reason for it to run one soon:
// it waits until tens of MB more outside its heap have been allocated, then marks the whole heap. With 50 uploads
// of 4 MB in flight (npm run bench, uploads), 60–90 MB of chunks already on disk waited for that at any moment,
// and the full collections it brought took a fifth of the service's CPU. Detaching a written chunk's ArrayBuffer
// frees it at once (ArrayBuffer.prototype.transfer).
import type { IncomingMessage } from 'node:http';

/** ES2024's ArrayBuffer methods (Node ≥ 21), past this project's TypeScript lib. */
type Transferable = ArrayBuffer & { readonly detached: boolean; transfer(length?: number): ArrayBuffer };

/**
 * Starts recording the chunks `req` emits from now on; the function returned frees a chunk's memory when the
 * chunk is one of them, whole (a view of all of its ArrayBuffer, not a slice a parser cut out of it), and does
 * nothing for any other buffer. Call it only with a chunk no one will read again (the store calls it once the
 * chunk is written). Start recording once the body is being read (a 'data' listener added before would set
 * the request flowing with no one to take its chunks).
 */
export function bodyChunkRelease(req: IncomingMessage): (chunk: Buffer) => void {
  const own = new WeakSet<ArrayBufferLike>();
  req.on('data', (chunk: Buffer) => own.add(chunk.buffer));
  return (chunk) => {
    const buffer = chunk.buffer;
    if (chunk.byteOffset !== 0 || chunk.byteLength !== buffer.byteLength || !own.delete(buffer)) return;
    if (!(buffer instanceof ArrayBuffer) || (buffer as Transferable).detached) return;
    try {
      // A copy of no bytes takes the place of the chunk's; its own memory is freed now, not at a collection.
      (buffer as Transferable).transfer(0);
    } catch {
      // Not detachable (Node's shared Buffer pool is not): the collector frees it, as before.
    }
  };
}
