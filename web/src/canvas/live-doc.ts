// The web client's side of the live canvas document (DESIGN.md §9): the small writes a person's actions make —
// a move sets a node's `position`, a prompt sets one key of its `data` map, an add or a delete is one map entry —
// each in one transaction with the caller's origin (so Y.UndoManager can tell our changes from everyone else's),
// and a mirror of the document as the plain `{ nodes, edges }` the editor draws, re-rendering only the entries
// an update touched. The shape of the document is src/collab/canvas-doc.ts's, shared with the server (STYLE.md
// habit 13); nothing here knows it beyond what that module exports. No React and no DOM: unit-tested in
// test/unit/live-doc.test.ts.
import * as Y from 'yjs';
import { addToCanvas, canvasMaps, compareEntries, renderCanvasEntry, type RenderedEntry } from '../../../src/collab/canvas-doc.js';

export interface XY {
  x: number;
  y: number;
}

type Json = Record<string, unknown>;
export type Collection = 'nodes' | 'edges';

// ---------------------------------------------------------------------------------------------------------
// Writes

/** Sets the positions of nodes (one drag frame, one keyboard nudge); unknown ids and unchanged positions are skipped. */
export function moveNodes(doc: Y.Doc, moves: Iterable<readonly [string, XY]>, origin?: unknown): void {
  const { nodes } = canvasMaps(doc);
  doc.transact(() => {
    for (const [id, { x, y }] of moves) {
      const node = nodes.get(id);
      if (!(node instanceof Y.Map) || !Number.isFinite(x) || !Number.isFinite(y)) continue;
      const current = node.get('position') as Partial<XY> | undefined;
      if (current?.x !== x || current?.y !== y) node.set('position', { x, y });
    }
  }, origin);
}

/**
 * Sets keys of a node's `data` (an undefined value deletes the key); keys whose value is unchanged are not
 * written. Returns false when the node is not in the document (deleted meanwhile, by anyone).
 */
export function setNodeData(doc: Y.Doc, id: string, patch: Json, origin?: unknown): boolean {
  const node = canvasMaps(doc).nodes.get(id);
  if (!(node instanceof Y.Map)) return false;
  doc.transact(() => {
    let data: unknown = (node as Y.Map<unknown>).get('data');
    if (!(data instanceof Y.Map)) {
      // Not the shape canvas-doc writes (a hostile or broken peer): replace it by a map of what it held.
      const plain = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Json) : {};
      const map = new Y.Map<unknown>();
      for (const [key, value] of Object.entries(plain)) if (value !== undefined) map.set(key, value);
      node.set('data', map);
      data = map;
    }
    const map = data as Y.Map<unknown>;
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) {
        if (map.has(key)) map.delete(key);
      } else if (!jsonEqual(map.get(key), value)) map.set(key, value);
    }
  }, origin);
  return true;
}

/** Adds nodes and edges after everything the canvas holds (canvas-doc's `addToCanvas`). */
export function addElements(doc: Y.Doc, elements: { nodes?: Json[]; edges?: Json[] }, origin?: unknown): void {
  addToCanvas(doc, elements, origin);
}

/** Deletes nodes and edges, and the edges into or out of a deleted node, in one transaction. */
export function removeElements(doc: Y.Doc, elements: { nodes?: string[]; edges?: string[] }, origin?: unknown): void {
  const { nodes, edges } = canvasMaps(doc);
  const gone = new Set(elements.nodes ?? []);
  doc.transact(() => {
    for (const id of gone) if (nodes.has(id)) nodes.delete(id);
    const edgeIds = new Set(elements.edges ?? []);
    if (gone.size > 0) {
      edges.forEach((edge, id) => {
        if (!(edge instanceof Y.Map)) return;
        if (gone.has(edge.get('source') as string) || gone.has(edge.get('target') as string)) edgeIds.add(id);
      });
    }
    for (const id of edgeIds) if (edges.has(id)) edges.delete(id);
  }, origin);
}

// ---------------------------------------------------------------------------------------------------------
// Reading

/**
 * The document's nodes and edges as plain JSON, in `renderCanvas`'s order, kept up to date by `update()` from
 * the events of `observeDeep` on the root maps. Only the entries an event touched are rendered again, and an
 * entry whose rendering did not change keeps its object, so that a consumer comparing by identity redraws only
 * what changed (a drag elsewhere on a 5,000-node canvas re-renders one node, not 5,000).
 */
export class CanvasMirror {
  private readonly entries: Record<Collection, Map<string, RenderedEntry>> = { nodes: new Map(), edges: new Map() };
  private lists: Record<Collection, Json[]> = { nodes: [], edges: [] };

  constructor(private readonly doc: Y.Doc) {
    for (const collection of ['nodes', 'edges'] as const) {
      const ids: string[] = [];
      canvasMaps(doc)[collection].forEach((_value, id) => ids.push(id));
      this.refresh(collection, ids);
    }
  }

  get nodes(): Json[] {
    return this.lists.nodes;
  }

  get edges(): Json[] {
    return this.lists.edges;
  }

  /** Takes the events of one `observeDeep` callback on a root map; returns whether its list changed. */
  update(collection: Collection, events: ReadonlyArray<Y.YEvent<Y.AbstractType<unknown>>>): boolean {
    const ids = new Set<string>();
    for (const event of events) {
      const [first] = event.path as unknown[];
      if (event.path.length === 0) for (const id of (event as Y.YMapEvent<unknown>).keysChanged as Set<string>) ids.add(id);
      else if (typeof first === 'string') ids.add(first);
    }
    return this.refresh(collection, ids);
  }

  private refresh(collection: Collection, ids: Iterable<string>): boolean {
    const entries = this.entries[collection];
    let changed = false;
    let reorder = false;
    for (const id of ids) {
      const before = entries.get(id);
      const after = renderCanvasEntry(this.doc, collection, id);
      if (!after) {
        if (before) {
          entries.delete(id);
          changed = reorder = true;
        }
        continue;
      }
      if (before && before.order === after.order && jsonEqual(before.value, after.value)) continue;
      entries.set(id, before && jsonEqual(before.value, after.value) ? { ...after, value: before.value } : after);
      changed = true;
      if (!before || before.order !== after.order) reorder = true;
    }
    if (!changed) return false;
    if (reorder || this.lists[collection].length !== entries.size) {
      this.lists[collection] = [...entries.values()].sort(compareEntries).map((e) => e.value);
    } else {
      // Same entries in the same order: swap in the new objects of the changed ones.
      this.lists[collection] = this.lists[collection].map((value) => entries.get(value.id as string)!.value);
    }
    return true;
  }
}

/** Deep equality of JSON values (a key holding undefined counts as absent). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  const ra = a as Json;
  const rb = b as Json;
  const keys = (r: Json) => Object.keys(r).filter((k) => r[k] !== undefined);
  const ka = keys(ra);
  return ka.length === keys(rb).length && ka.every((k) => Object.hasOwn(rb, k) && jsonEqual(ra[k], rb[k]));
}
