// A live documents' worker thread (./document-workers.ts): each task is a named export called with a document's
// stored parts packed in one buffer (./stored-document.ts) and answering plain data; the merged state is moved back,
// not copied. A task that throws (a corrupt row) fails alone; the thread goes on.
import { Tinypool, kTransferable, kValue } from 'tinypool';
import type { CanvasContent } from './canvas-doc.js';
import { jsonOfParts, mergeParts, renderParts, unpackParts, type MergedState, type PackedParts } from './stored-document.js';

export interface MergeTask {
  parts: PackedParts;
  measure: boolean;
}

/** A render or a json task. */
export interface PartsTask {
  parts: PackedParts;
}

/** The bytes in a buffer of their own, which can be moved to another thread. */
const owned = (bytes: Uint8Array): Uint8Array<ArrayBuffer> =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : bytes.slice();

export function merge({ parts, measure }: MergeTask): unknown {
  const merged = mergeParts(unpackParts(parts), { measure });
  const state = owned(merged.state);
  const answer: MergedState = { ...merged, state };
  return Tinypool.move({ [kTransferable]: [state.buffer], [kValue]: answer });
}

export function render({ parts }: PartsTask): CanvasContent {
  return renderParts(unpackParts(parts));
}

export function json({ parts }: PartsTask): { nodes: unknown; edges: unknown } {
  return jsonOfParts(unpackParts(parts));
}
