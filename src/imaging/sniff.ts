// Detect a file's type from its first bytes, for a stream without buffering the rest. (file-type's own
// fileTypeStream never settles on an empty Node stream in v21, so the peek is ours; detection is file-type's,
// except SVG, which file-type does not detect: src/imaging/svg.ts.)
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { looksLikeSvg, SVG_TYPE } from './svg.js';

/** How many first bytes the type is detected from. */
const SAMPLE_BYTES = 4100;

/** The MIME type detected from a file's first bytes (`image/svg+xml` for an SVG); undefined when unknown or empty. */
async function detect(head: Buffer): Promise<string | undefined> {
  if (head.length === 0) return undefined;
  // SVG first: file-type calls an SVG with an XML declaration `application/xml`, and no binary format starts like one.
  if (looksLikeSvg(head)) return SVG_TYPE;
  return (await fileTypeFromBuffer(head))?.mime;
}

/** The type of a file held in memory, detected exactly as sniffStream detects a stream's. */
export const sniffBuffer = (data: Buffer): Promise<string | undefined> => detect(data.subarray(0, SAMPLE_BYTES));

/** Reads up to `size` bytes (fewer when the stream ends first), then pauses the stream. */
function readHead(stream: Readable, size: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A stream that already failed (a multipart body cut short, wholly parsed before we asked) emits nothing more.
    if (stream.destroyed) return reject(stream.errored ?? new Error('the stream was closed before it ended'));
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const finish = () => {
      cleanup();
      stream.pause();
      resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= size) finish();
    };
    const onEnd = () => finish();
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

/** The detected MIME type (undefined when unknown or empty), and a stream of all the bytes, head included. */
export async function sniffStream(stream: Readable): Promise<{ mime?: string; size: number; stream: Readable }> {
  const head = await readHead(stream, SAMPLE_BYTES);
  const mime = await detect(head);
  // The source may have failed meanwhile (a multipart part cut off at its size limit): say so now, before
  // anyone starts writing it somewhere.
  if (stream.destroyed && !stream.readableEnded) throw stream.errored ?? new Error('the stream was closed before it ended');
  // The head goes back in front of the rest: the same stream flows on, with no extra stage per chunk (a
  // re-streaming wrapper cost ~4 % of an upload's CPU). A stream that already ended cannot take it back.
  let whole = stream;
  if (stream.readableEnded) whole = Readable.from(head.length > 0 ? [head] : [], { objectMode: false });
  else if (head.length > 0) stream.unshift(head);
  return { mime, size: head.length, stream: whole };
}
