// Streams a body into a block blob. Written out instead of using BlockBlobClient.uploadStream(), which
// rejects on a stream error while its stageBlock calls are still in flight (and cannot cancel them): a block
// landing after our clean-up left an uncommitted blob behind in ~1 of 5 failed large uploads on Azurite.
import { randomUUID } from 'node:crypto';
import type { BlockBlobClient } from '@azure/storage-blob';

/** Block size; a body that fits in one block goes up in a single atomic Put Blob. */
const BLOCK_BYTES = 4 * 1024 * 1024;
const MAX_IN_FLIGHT = 2;

/** The body re-cut into blocks of exactly `size` bytes (the last one shorter, possibly empty). */
async function* blocksOf(source: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let length = 0;
  for await (const chunk of source) {
    parts.push(chunk);
    length += chunk.length;
    while (length >= size) {
      const joined = parts.length === 1 ? parts[0] : Buffer.concat(parts, length);
      yield joined.subarray(0, size);
      parts = [joined.subarray(size)];
      length -= size;
    }
  }
  yield Buffer.concat(parts, length);
}

/**
 * Uploads `source` to `blob`, refusing to overwrite (`ifNoneMatch: '*'`). On failure, every block request
 * has settled before staged blocks are discarded, so nothing can land afterwards.
 */
export async function uploadInBlocks(blob: BlockBlobClient, source: AsyncIterable<Buffer>, contentType: string) {
  const options = { blobHTTPHeaders: { blobContentType: contentType }, conditions: { ifNoneMatch: '*' } };
  const blocks = blocksOf(source, BLOCK_BYTES);
  const first = await blocks.next();
  const second = first.done ? first : await blocks.next();
  if (second.done) {
    const data = first.done ? Buffer.alloc(0) : first.value;
    await blob.upload(data, data.length, options);
    return;
  }

  const prefix = randomUUID();
  const ids: string[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;
  const stage = (data: Buffer) => {
    const id = Buffer.from(`${prefix}-${String(ids.length).padStart(6, '0')}`).toString('base64');
    ids.push(id);
    const request: Promise<void> = blob
      .stageBlock(id, data, data.length)
      .then(
        () => undefined,
        (error: unknown) => void (failure ??= { error }),
      )
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  };

  try {
    stage(first.value as Buffer);
    for (let next: IteratorResult<Buffer> = second; !next.done && !failure; next = await blocks.next()) {
      if (next.value.length > 0) stage(next.value);
      while (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
    }
  } catch (error) {
    failure ??= { error };
  }
  await Promise.all(inFlight);
  if (!failure) {
    await blob.commitBlockList(ids, options);
    return;
  }
  await discardUncommitted(blob);
  throw failure.error;
}

/**
 * Staged blocks form an invisible "uncommitted blob". Committing an empty block list (only if no blob exists)
 * discards them; the empty blob it creates is then deleted by its exact ETag.
 */
async function discardUncommitted(blob: BlockBlobClient): Promise<void> {
  try {
    const { etag } = await blob.commitBlockList([], { conditions: { ifNoneMatch: '*' } });
    await blob.delete({ conditions: { ifMatch: etag } });
  } catch {
    // A blob that exists now is someone else's; blocks left uncommitted expire on the service's own.
  }
}
