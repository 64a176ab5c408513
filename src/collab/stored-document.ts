// Whole-document work on a live document's stored bytes (DESIGN.md §9): its snapshot and log merged into one state,
// or rendered. Each is a pure function of the bytes, and costs the whole document (a 5,000-node canvas takes tens of
// milliseconds), so the service runs them in its document workers (./document-workers.ts), off the thread that
// serves every socket; COLLAB_WORKERS=0 runs the same functions in that thread.
//
// A task carries a document's parts (its snapshot, then its log in the order stored) packed in one buffer, which is
// moved to the worker rather than copied, and so is the merged state on the way back.
import * as Y from 'yjs';
import { renderCanvas, type CanvasContent } from './canvas-doc.js';
import { measure } from './update-check.js';

/** A document as stored: its snapshot (null before the first compaction) and its log, in the order stored. */
export interface StoredParts {
  snapshot: Uint8Array | null;
  updates: readonly Uint8Array[];
}

/** The parts to apply, in order: the snapshot, then the log. */
export const partsOf = ({ snapshot, updates }: StoredParts): Uint8Array[] => (snapshot ? [snapshot, ...updates] : [...updates]);

/** A document's stored parts in one buffer: part i is the `lengths[i]` bytes after the parts before it. */
export interface PackedParts {
  buffer: ArrayBuffer;
  lengths: number[];
}

/** The parts (snapshot first, when there is one) in one buffer of their own, to move to a worker. */
export function packParts(parts: readonly Uint8Array[]): PackedParts {
  const lengths = parts.map((p) => p.byteLength);
  const packed = new Uint8Array(lengths.reduce((n, l) => n + l, 0));
  let at = 0;
  for (const part of parts) {
    packed.set(part, at);
    at += part.byteLength;
  }
  return { buffer: packed.buffer, lengths };
}

export function unpackParts({ buffer, lengths }: PackedParts): Uint8Array[] {
  let at = 0;
  return lengths.map((length) => {
    const part = new Uint8Array(buffer, at, length);
    at += length;
    return part;
  });
}

/** A fresh document with every part applied, in one transaction (the caller destroys it). */
function documentOf(parts: readonly Uint8Array[]): Y.Doc {
  const doc = new Y.Doc();
  try {
    Y.transact(doc, () => {
      for (const part of parts) Y.applyUpdate(doc, part);
    });
    return doc;
  } catch (err) {
    doc.destroy();
    throw err;
  }
}

export interface MergedState {
  /** The document's state: one update holding everything, deleted content dropped. */
  state: Uint8Array;
  /** update-check's `measure` of it (the REST bytes of the canvas), when asked for. */
  bytes?: number;
}

/**
 * The parts merged into one state. A fresh (garbage-collected) document rather than Y.mergeUpdates, which would keep
 * deleted content. With `measure`, the canvas's REST bytes too (a document loaded from it needs them for its first
 * content check).
 */
export function mergeParts(parts: readonly Uint8Array[], { measure: measured }: { measure: boolean }): MergedState {
  const doc = documentOf(parts);
  try {
    const state = Y.encodeStateAsUpdate(doc);
    return measured ? { state, bytes: measure(doc) } : { state };
  } finally {
    doc.destroy();
  }
}

/**
 * The document's `nodes` and `edges` as Yjs gives them (toJSON: every value, nested types included, nothing left out
 * as rendering would): what a deleted project's object sweep searches (src/services/object-sweep.ts).
 */
export function jsonOfParts(parts: readonly Uint8Array[]): { nodes: unknown; edges: unknown } {
  const doc = documentOf(parts);
  try {
    return { nodes: doc.getMap('nodes').toJSON(), edges: doc.getMap('edges').toJSON() };
  } finally {
    doc.destroy();
  }
}

/** The canvas the parts render to (../canvas-doc.ts renderCanvas). */
export function renderParts(parts: readonly Uint8Array[]): CanvasContent {
  const doc = documentOf(parts);
  try {
    return renderCanvas(doc);
  } finally {
    doc.destroy();
  }
}
