// Canvas documents for unit tests: one holding a canvas, and a peer that starts from it.
import * as Y from 'yjs';
import { applyCanvas } from '../../src/collab/canvas-doc.js';

/** A doc holding `canvas` (as `applyCanvas` writes it). */
export function withCanvas(canvas: { nodes?: unknown; edges?: unknown }): Y.Doc {
  const doc = new Y.Doc();
  applyCanvas(doc, canvas);
  return doc;
}

/** A second doc synced from `doc` (a peer). */
export function peerOf(doc: Y.Doc): Y.Doc {
  const peer = new Y.Doc();
  Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc));
  return peer;
}
