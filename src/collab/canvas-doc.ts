// The one definition of the canvas document (DESIGN.md §9, STYLE.md habit 13): how SPEC's `{ nodes, edges }`
// JSON lives in a Yjs document, and back. Pure functions over a `Y.Doc`; no I/O, only `yjs` — the service (REST
// views, the service as a participant, migrations) and the web client import the same module.
//
// Shape. Root `Y.Map`s `nodes` and `edges`, keyed by id (the id is the key, not stored again). A node is a
// `Y.Map` holding `type`, `position` (a plain `{ x, y }` value), `data` (a nested `Y.Map`, one entry per key:
// `type`, `image`, `prompt`, `isGenerating`, …) and every other top-level key the client sent (React Flow's
// `measured`, `style`, …) as a plain JSON value. An edge is a `Y.Map` of its keys, all plain values. Values
// are whole JSON values: a nested object (a position, `measured`, an object inside `data`) is replaced as one.
// So two people changing different fields of one node — one moves it, the other edits its prompt — both keep
// their change; two changing the same field get one of the two values on every peer (Yjs last writer wins).
//
// Order. SPEC returns arrays, and order matters (React Flow draws later nodes on top), but a `Y.Map` has none.
// Each node and edge carries a fractional order key (./order-keys.ts) under the reserved key `#`; a canvas
// renders sorted by (order key, id). Why not a root `Y.Array` of ids beside the maps: a move in an array is a
// delete plus an insert, so two people moving one node at once would leave it in the array twice; two people
// adding the same id would too; a node deleted from the map while someone else moves it in the array (or the
// reverse) would leave an id without a node or a node without an id — every renderer would have to dedupe and
// repair, and a repair is itself an edit that peers make concurrently. With a key per entry the order is a
// field of the entry: it lives and dies with it (a delete is one operation, with nothing to keep consistent), a
// move is one small field write that merges like any other (two concurrent moves: one wins, never a
// duplicate), a node added by two people under one id is one map entry and appears once, and two nodes added
// concurrently in the same place may get the same key but the id breaks the tie identically on every peer.
// The costs are a sort when rendering (O(n log n), a few milliseconds for 5,000 nodes) and keys that grow
// slowly: appending increments an "integer" (O(log n) characters), and only repeatedly inserting into the
// same gap lengthens keys (about one character per six splits). `applyCanvas` keeps the longest run of
// entries whose keys are already in the body's order (a longest increasing subsequence) and re-keys only the
// others, so moving one node of a saved array writes one key.
//
// Keys. A client key that starts with `#` is stored with one more `#` in front, so no client key can collide
// with the order key; stored keys `#` and `#…` (one `#`) are this module's own, never rendered or removed. A rendered object has its keys in a fixed order, the one SPEC's schemas produce — `id`,
// then a node's `type`, `position`, `data` (`data`: `type`, `image`, `prompt`, `isGenerating`) or an edge's
// `source`, `target`, `sourceHandle`, `targetHandle` — then any other key in code-unit order: a map's own
// iteration order depends on the order in which a peer received updates, and two peers must render the same
// JSON text.
//
// Rules. What may be stored is ./canvas-rules.ts's (REST and the live document's update check apply it); rendering
// leaves out a node's `data.image` of a scheme those rules refuse (`javascript:`), in case one was stored before.
//
// Input. Validation is the REST schemas' job; these functions accept any JSON without throwing. A node or edge
// that is not an object with a string id is skipped; of several with one id the first is kept (the schemas
// refuse duplicate node ids but not duplicate edge ids); a key whose value is `undefined` is absent. Anything a
// hostile peer may have put in the document (an entry that is not a `Y.Map`, a malformed order key, a nested
// shared type) renders as best it can and is replaced by the next `applyCanvas`.
import * as Y from 'yjs';
import { hasImageScheme } from './canvas-rules.js';
import { isOrderKey, keysBetween } from './order-keys.js';

/** The key of an entry's order key inside a node's or edge's `Y.Map`. */
export const ORDER_KEY = '#';

/** SPEC's canvas content: nodes and edges as plain JSON, in order. */
export interface CanvasContent {
  nodes: unknown[];
  edges: unknown[];
}

type Record_ = Record<string, unknown>;

interface Kind {
  /** Keys rendered first, in this order (after `id`). */
  leading: readonly string[];
  /** Whether a plain-object `data` is kept as a nested `Y.Map` (nodes) or a plain value (edges). */
  nestedData: boolean;
}

const NODE: Kind = { leading: ['type', 'position', 'data'], nestedData: true };
const EDGE: Kind = { leading: ['source', 'target', 'sourceHandle', 'targetHandle'], nestedData: false };
const DATA_LEADING: readonly string[] = ['type', 'image', 'prompt', 'isGenerating'];

/** The root maps of a canvas document. */
export function canvasMaps(doc: Y.Doc): { nodes: Y.Map<unknown>; edges: Y.Map<unknown> } {
  return { nodes: doc.getMap('nodes'), edges: doc.getMap('edges') };
}

const isRecord = (v: unknown): v is Record_ => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Y.AbstractType);
const escapeKey = (key: string) => (key.startsWith('#') ? '#' + key : key);
/** The client's key of a stored key; undefined for the keys this module reserves (`#` and `#…` but not `##…`). */
const unescapeKey = (stored: string): string | undefined => (!stored.startsWith('#') ? stored : stored.startsWith('##') ? stored.slice(1) : undefined);
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Sets a key of a fresh plain object; `__proto__` (a legal JSON key) as an own property, not the prototype. */
function put(target: Record_, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A deep copy of a JSON value, so that the document and callers never share mutable objects. */
function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (!isRecord(value) || ArrayBuffer.isView(value)) return value;
  const out: Record_ = {};
  for (const key of Object.keys(value)) if (value[key] !== undefined) put(out, key, copyJson(value[key]));
  return out;
}

/** Deep equality of JSON values (a key holding `undefined` counts as absent; a shared type equals only itself). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof Y.AbstractType || b instanceof Y.AbstractType) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ra = a as Record_;
  const rb = b as Record_;
  let count = 0;
  for (const key of Object.keys(ra)) {
    if (ra[key] === undefined) continue;
    count++;
    if (!Object.hasOwn(rb, key) || !jsonEqual(ra[key], rb[key])) return false;
  }
  for (const key of Object.keys(rb)) if (rb[key] !== undefined) count--;
  return count === 0;
}

// ---------------------------------------------------------------------------------------------------------
// Rendering

/**
 * Renders a map's entries into `out` (which may hold keys already): the `leading` keys in order, then the
 * others in code-unit order. For a node or edge (`entry`), the order key and a stored `id` are left out and
 * escaped keys are unescaped.
 */
function renderInto(out: Record_, map: Y.Map<unknown>, leading: readonly string[], entry: boolean): Record_ {
  for (const key of leading) {
    const value = map.get(key);
    if (value !== undefined) put(out, key, renderValue(value));
  }
  const rest: Array<[string, unknown]> = [];
  map.forEach((value, stored) => {
    if (value === undefined || leading.includes(stored)) return;
    const key = entry ? unescapeKey(stored) : stored;
    if (key !== undefined && key !== 'id') rest.push([key, value]);
  });
  if (rest.length > 1) rest.sort((a, b) => compare(a[0], b[0]));
  for (const [key, value] of rest) put(out, key, renderValue(value));
  return out;
}

/** A value stored in the document as plain JSON (a nested map as an object, another shared type as its JSON). */
function renderValue(value: unknown): unknown {
  if (value instanceof Y.Map) return renderInto({}, value as Y.Map<unknown>, DATA_LEADING, false);
  if (value instanceof Y.AbstractType) return value.toJSON() as unknown;
  return copyJson(value);
}

function renderEntry(id: string, map: Y.Map<unknown>, kind: Kind): Record_ {
  const out: Record_ = {};
  put(out, 'id', id);
  renderInto(out, map, kind.leading, true);
  if (kind === NODE) dropUnsafeImage(out);
  return out;
}

/**
 * Leaves out a rendered node's `data.image` of a scheme the rules refuse (a `javascript:` URL stored before they held
 * live edits, or in a canvas saved before live documents): such an image is never served. Changes `node` in place.
 */
export function dropUnsafeImage(node: unknown): void {
  if (!isRecord(node) || !isRecord(node.data)) return;
  const image = node.data.image;
  if (typeof image === 'string' && !hasImageScheme(image)) delete node.data.image;
}

/** The order key of an entry as stored ('' when missing or not a string: such entries sort first). */
const orderOf = (map: Y.Map<unknown>): string => {
  const key = map.get(ORDER_KEY);
  return typeof key === 'string' ? key : '';
};

function renderCollection(root: Y.Map<unknown>, kind: Kind): unknown[] {
  const entries: Array<{ id: string; order: string; map: Y.Map<unknown> }> = [];
  root.forEach((value, id) => {
    if (value instanceof Y.Map) entries.push({ id, order: orderOf(value), map: value });
  });
  entries.sort((a, b) => compare(a.order, b.order) || compare(a.id, b.id));
  return entries.map((e) => renderEntry(e.id, e.map, kind));
}

/** SPEC's `{ nodes, edges }` of the document: plain JSON, in order, the same text on every peer. */
export function renderCanvas(doc: Y.Doc): CanvasContent {
  const { nodes, edges } = canvasMaps(doc);
  return { nodes: renderCollection(nodes, NODE), edges: renderCollection(edges, EDGE) };
}

// ---------------------------------------------------------------------------------------------------------
// Applying

interface Target {
  id: string;
  value: Record_;
  existing: Y.Map<unknown> | undefined;
}

/** The body's entries that can be stored: objects with a string id, the first of each id. */
function targetsOf(items: unknown, root: Y.Map<unknown>): Target[] {
  if (!Array.isArray(items)) return [];
  const seen = new Set<string>();
  const out: Target[] = [];
  for (const item of items as unknown[]) {
    if (!isRecord(item) || typeof item.id !== 'string' || seen.has(item.id)) continue;
    seen.add(item.id);
    const existing = root.get(item.id);
    out.push({ id: item.id, value: item, existing: existing instanceof Y.Map ? existing : undefined });
  }
  return out;
}

/**
 * The new order key of each target (undefined: keep its key). Entries already in order relative to each other
 * (the longest subsequence increasing by (order key, id), among those with a well-formed key) keep theirs.
 */
function orderKeys(targets: Target[]): Array<string | undefined> {
  const n = targets.length;
  const keyOf = targets.map((t) => (t.existing ? t.existing.get(ORDER_KEY) : undefined));
  const less = (i: number, j: number) => {
    const a = keyOf[i] as string;
    const b = keyOf[j] as string;
    return a < b || (a === b && targets[i].id < targets[j].id);
  };
  const anchored = new Array<boolean>(n).fill(false);
  // Longest increasing subsequence (patience sorting): tails[k] ends the best subsequence of length k + 1.
  const tails: number[] = [];
  const previous = new Array<number>(n).fill(-1);
  for (let i = 0; i < n; i++) {
    if (!isOrderKey(keyOf[i])) continue;
    let lo = 0;
    let hi = tails.length;
    if (hi > 0 && less(tails[hi - 1], i)) lo = hi; // the common case: already in order
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (less(tails[mid], i)) lo = mid + 1;
      else hi = mid;
    }
    previous[i] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = i;
  }
  for (let i = tails.length > 0 ? tails[tails.length - 1] : -1; i >= 0; i = previous[i]) anchored[i] = true;

  const keys = new Array<string | undefined>(n).fill(undefined);
  try {
    let lower: string | null = null;
    let start = 0;
    for (let i = 0; i <= n; i++) {
      if (i < n && !anchored[i]) continue;
      // Targets start..i-1 go between `lower` and anchor i; with no room between equal keys, i moves too.
      const upper = i < n ? (keyOf[i] as string) : null;
      if (i > start && upper !== null && lower !== null && lower >= upper) {
        anchored[i] = false;
        continue;
      }
      const fresh = keysBetween(lower, upper, i - start);
      for (let k = 0; k < fresh.length; k++) keys[start + k] = fresh[k];
      lower = upper;
      start = i + 1;
    }
  } catch {
    // Keys out of room (practically unreachable, but keys may come from any peer): re-key everything.
    return keysBetween(null, null, n);
  }
  return keys;
}

/** Makes a `Y.Map`'s entries equal to a plain object's (keys stored as-is). Returns whether it changed. */
function syncData(map: Y.Map<unknown>, value: Record_): boolean {
  const gone = storedKeys(map).filter((key) => value[key] === undefined || !Object.hasOwn(value, key));
  for (const key of gone) map.delete(key);
  let changed = gone.length > 0;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (v === undefined) continue;
    const current = map.get(key);
    if (current !== undefined && jsonEqual(current, v)) continue;
    map.set(key, copyJson(v));
    changed = true;
  }
  return changed;
}

/** The keys of a map's live entries (`forEach`: much cheaper than the `keys()` iterator). */
function storedKeys(map: Y.Map<unknown>): string[] {
  const keys: string[] = [];
  map.forEach((_value, key) => keys.push(key));
  return keys;
}

/** A new (not yet integrated) `data` map: only written to, never read, before it is in the document. */
function newData(value: Record_): Y.Map<unknown> {
  const map = new Y.Map<unknown>();
  for (const key of Object.keys(value)) if (value[key] !== undefined) map.set(key, copyJson(value[key]));
  return map;
}

/** A new node or edge map, built before it is inserted: the entry and its fields go out in one update. */
function newEntry(value: Record_, kind: Kind, order: string | undefined): Y.Map<unknown> {
  const map = new Y.Map<unknown>();
  map.set(ORDER_KEY, order);
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (key === 'id' || v === undefined) continue;
    map.set(escapeKey(key), kind.nestedData && key === 'data' && isRecord(v) ? newData(v) : copyJson(v));
  }
  return map;
}

/** Makes an entry's fields equal to a node or edge (all but its id and order key). Returns whether it changed. */
function syncEntry(map: Y.Map<unknown>, value: Record_, kind: Kind): boolean {
  const gone = storedKeys(map).filter((stored) => {
    const key = unescapeKey(stored);
    if (key === undefined) return false; // reserved: the order key
    return key === 'id' || value[key] === undefined || !Object.hasOwn(value, key);
  });
  for (const stored of gone) map.delete(stored);
  let changed = gone.length > 0;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (key === 'id' || v === undefined) continue;
    const stored = escapeKey(key);
    const current = map.get(stored);
    if (kind.nestedData && key === 'data' && isRecord(v)) {
      if (current instanceof Y.Map) changed = syncData(current, v) || changed;
      else {
        map.set(stored, newData(v));
        changed = true;
      }
    } else if (current === undefined || !jsonEqual(current, v)) {
      map.set(stored, copyJson(v));
      changed = true;
    }
  }
  return changed;
}

function syncCollection(root: Y.Map<unknown>, items: unknown, kind: Kind): boolean {
  const targets = targetsOf(items, root);
  let changed = false;
  const wanted = new Set(targets.map((t) => t.id));
  for (const id of storedKeys(root)) {
    if (!wanted.has(id)) {
      root.delete(id);
      changed = true;
    }
  }
  const keys = orderKeys(targets);
  for (let i = 0; i < targets.length; i++) {
    const { id, value, existing } = targets[i];
    if (existing) {
      if (keys[i] !== undefined) {
        existing.set(ORDER_KEY, keys[i]);
        changed = true;
      }
      changed = syncEntry(existing, value, kind) || changed;
    } else {
      root.set(id, newEntry(value, kind, keys[i]));
      changed = true;
    }
  }
  return changed;
}

/**
 * Makes the document's canvas equal to `{ nodes, edges }` (missing lists are empty) by changing only what
 * differs, in one transaction with `origin`: entries added and deleted, changed fields (and `data` keys) set,
 * removed ones deleted, unchanged values untouched; only entries that must move get a new order key. Applying
 * what the document already holds writes nothing. Returns whether anything changed.
 */
export function applyCanvas(doc: Y.Doc, canvas: { nodes?: unknown; edges?: unknown }, origin?: unknown): boolean {
  const { nodes, edges } = canvasMaps(doc);
  let changed = false;
  doc.transact(() => {
    changed = syncCollection(nodes, canvas.nodes, NODE);
    changed = syncCollection(edges, canvas.edges, EDGE) || changed;
  }, origin);
  return changed;
}

// ---------------------------------------------------------------------------------------------------------
// Adding (live clients)

/** The greatest well-formed order key among a collection's entries (null when there is none). */
function lastOrderKey(root: Y.Map<unknown>): string | null {
  let last: string | null = null;
  root.forEach((value) => {
    if (!(value instanceof Y.Map)) return;
    const key: unknown = (value as Y.Map<unknown>).get(ORDER_KEY);
    if ((last === null || (typeof key === 'string' && key > last)) && isOrderKey(key)) last = key;
  });
  return last;
}

function addEntries(root: Y.Map<unknown>, items: unknown, kind: Kind): boolean {
  const targets = targetsOf(items, root);
  const added = targets.filter((t) => !t.existing).length;
  const keys = added > 0 ? keysBetween(lastOrderKey(root), null, added) : [];
  let changed = false;
  let k = 0;
  for (const { id, value, existing } of targets) {
    if (existing) changed = syncEntry(existing, value, kind) || changed;
    else {
      root.set(id, newEntry(value, kind, keys[k++]));
      changed = true;
    }
  }
  return changed;
}

/**
 * Adds nodes and edges after every entry the document holds (in the order given), stored exactly as
 * `applyCanvas` stores them, and touches nothing else: what a live client writes when a person adds
 * something, instead of a whole-canvas write. An id already present is made equal to the value in place (it
 * keeps its order key). One transaction with `origin`. Returns whether anything changed.
 */
export function addToCanvas(doc: Y.Doc, canvas: { nodes?: unknown; edges?: unknown }, origin?: unknown): boolean {
  const { nodes, edges } = canvasMaps(doc);
  let changed = false;
  doc.transact(() => {
    changed = addEntries(nodes, canvas.nodes, NODE);
    changed = addEntries(edges, canvas.edges, EDGE) || changed;
  }, origin);
  return changed;
}

/** One entry of a collection as rendered, with its order key ('' when it has none, as when rendering). */
export interface RenderedEntry {
  id: string;
  order: string;
  value: Record<string, unknown>;
}

/**
 * One node or edge as `renderCanvas` renders it, with its order key; undefined when the collection holds no such
 * entry. For live clients that re-render only the entries an update touched: sorted with `compareEntries`,
 * the entries of a collection are in `renderCanvas`'s order.
 */
export function renderCanvasEntry(doc: Y.Doc, collection: 'nodes' | 'edges', id: string): RenderedEntry | undefined {
  const map = canvasMaps(doc)[collection].get(id);
  if (!(map instanceof Y.Map)) return undefined;
  return { id, order: orderOf(map), value: renderEntry(id, map, collection === 'nodes' ? NODE : EDGE) };
}

/** The order in which `renderCanvas` lists entries: by order key, then by id. */
export const compareEntries = (a: { id: string; order: string }, b: { id: string; order: string }): number => compare(a.order, b.order) || compare(a.id, b.id);
