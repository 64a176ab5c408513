// The live document's content limits (docs/api.md "Live canvas"): every update a peer sends is checked, before it is
// applied, against the REST canvas limits — root types, node and edge counts, each field's rule (./canvas-rules.ts)
// and the canvas's bytes. A refused update is not applied, stored or broadcast; its sender is told why.
//
// The check reads the decoded update (Y.decodeUpdate) and never applies it to a copy of the document: each item's
// place is found from the item itself, or through its parent or origin, in the update or in the document's store.
// In a decoded update an item names its parent only when it has no origin: a root map by its name (a string), or the
// ID of the item holding a nested type; an item with an origin (a map value that replaces another) has the parent
// and key of that origin (Yjs copies them when it integrates the item). A place is the path of keys from a root:
// `[root, id]` (a node or an edge), `[root, id, field]`, `['nodes', id, 'data', key]`; nothing deeper exists.
//
// Kinds (src/kinds/). A node's `data` keys are held to the rules of its kind — the `type` the update sets, else the
// one the document holds —; a key another kind names is refused on it (`data-of-another-kind`), any other key is an
// extra value; a new `data` map has its kind's required keys. A change of a node's `type` (or a node replaced whole)
// is allowed and re-checks what the node keeps: its existing data under the new kind (keys the same update deletes
// or sets aside), the new kind's required keys, and every edge of the node (one pass over the edges, only then).
// An edge the update adds or whose ends or handles it sets or deletes must name ports its nodes' kinds have, whose
// values fit (`unknown-port`, `ports-do-not-fit`); an edge with an end that is not a node is not judged. Each check
// reads only the entries the update names: no rendering. Yjs resolves concurrent sets of one key by client id, not
// by arrival: a type set concurrently with another one is checked as if it won.
//
// Bytes. CANVAS_MAX_BYTES is measured as REST measures a canvas: the UTF-8 JSON of the rendered nodes plus that of
// the rendered edges (so the live document holds what a REST save could). The exact measure renders the whole
// document, so it is taken when a document is first checked — unless it came with the document: one loaded from
// the database is measured in the document workers, off the service's thread (`seed`) — and then only when needed:
// between two, every applied update (from any origin) adds an upper bound of the JSON it can add (each value's JSON
// and its key), and only when that bound would pass the limit is the document measured again — at most once per
// REMEASURE_MS unless the bound grew by `slack` since (a refusal costs nothing then). An update that adds no content
// (deletions) always passes.
import * as Y from 'yjs';
import { canvasRules, isId, KEY_MAX_CHARS, type CanvasRuleLimits, type FieldRule, type FieldRules } from './canvas-rules.js';
import { ORDER_KEY, renderCanvas } from './canvas-doc.js';
import { CLOSE, REFUSED_CHANGE, RULE_REFUSED } from './protocol.js';
import { fits, kindOf, portOf } from '../kinds/index.js';

export interface UpdateLimits extends CanvasRuleLimits {
  nodes: number;
  edges: number;
  /** CANVAS_MAX_BYTES: the rendered canvas's JSON at most. */
  bytes: number;
}

/** Why an update is refused: the close reason (naming the rule) and code (4413 for a limit, 4400 for a rule). */
export interface UpdateRefusal {
  reason: string;
  code: number;
}

export interface UpdateCheck {
  /** The refusal of a decoded update to `doc`, or null when it may be applied. */
  check(decoded: Decoded, doc: Y.Doc): UpdateRefusal | null;
  /** The document's bytes as last measured and the upper bound held now (tests, benchmarks); undefined before the first check. */
  bytesOf(doc: Y.Doc): { measured: number; bound: number } | undefined;
  /**
   * The bytes of a document measured elsewhere (`measure` of the same content, in the document workers when it was
   * loaded): its first check then renders nothing. Call right after the content measured was applied; a document
   * already checked keeps its own.
   */
  seed(doc: Y.Doc, bytes: number): void;
}

type Decoded = ReturnType<typeof Y.decodeUpdate>;
type Struct = Y.Item | Y.GC | Y.Skip;
/** Where an item goes: a path of keys from a root, or why it has none. */
type Place = string[] | typeof DEAD | typeof MISSING | typeof INVALID;
/** Its parent is gone: Yjs turns the item into a GC struct (nothing visible). */
const DEAD = 'dead';
/** Its parent or origin is neither in the update nor in the document (Yjs would hold it back until it comes). */
const MISSING = 'missing';
/** A list position where only map keys exist, a parent that is not a map, or a place nested too deep. */
const INVALID = 'invalid';
const MAX_DEPTH = 4;
/** At least this long between two exact measures of a document, unless its bound grew by `slack` since. */
const REMEASURE_MS = 2_000;

const refusal = (reason: string, code: number = RULE_REFUSED): UpdateRefusal => ({ reason, code });

/** Finds the places of an update's items, through the update and the document's store. */
class Places {
  private readonly byClient = new Map<number, Struct[]>();
  private readonly own = new Set<Struct>();
  private readonly memo = new Map<Struct, Place>();

  constructor(
    structs: readonly Struct[],
    private readonly doc: Y.Doc,
    private readonly roots: { nodes: unknown; edges: unknown },
  ) {
    // decodeUpdate lists each client's structs in clock order.
    for (const s of structs) {
      this.own.add(s);
      const list = this.byClient.get(s.id.client);
      if (list) list.push(s);
      else this.byClient.set(s.id.client, [s]);
    }
  }

  /** The struct holding this clock: the update's own first, then the document's. */
  private find(id: Y.ID): Struct | null {
    const list = this.byClient.get(id.client);
    if (list) {
      let lo = 0;
      let hi = list.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const s = list[mid];
        if (id.clock < s.id.clock) hi = mid - 1;
        else if (id.clock >= s.id.clock + s.length) lo = mid + 1;
        else return s instanceof Y.Skip ? null : s;
      }
    }
    if (Y.getState(this.doc.store, id.client) <= id.clock) return null;
    return Y.getItem(this.doc.store, id);
  }

  private rootName(type: unknown): string {
    return type === this.roots.nodes ? 'nodes' : type === this.roots.edges ? 'edges' : '#other';
  }

  /** The place of an item already in the document. */
  private integrated(item: Y.Item): Place {
    const keys: string[] = [];
    for (let it = item; ; ) {
      if (it.parentSub === null) return INVALID;
      keys.push(it.parentSub);
      const type = it.parent as Y.AbstractType<unknown> | null;
      if (!type) return DEAD;
      if (type._item === null) {
        keys.push(this.rootName(type));
        return keys.length > MAX_DEPTH ? INVALID : keys.reverse();
      }
      if (keys.length >= MAX_DEPTH) return INVALID;
      it = type._item;
    }
  }

  /** The place of a struct of the update or of the document (iterative: chains of origins may be long). */
  placeOf(start: Struct): Place {
    const chain: Array<{ item: Y.Item; sub: string | null }> = [];
    let result: Place;
    let cur: Struct | null = start;
    for (;;) {
      if (cur === null) {
        result = MISSING;
        break;
      }
      const known = this.memo.get(cur);
      if (known !== undefined) {
        result = known;
        break;
      }
      if (!(cur instanceof Y.Item)) {
        result = DEAD; // a GC struct
        break;
      }
      if (!this.own.has(cur)) {
        result = this.integrated(cur);
        break;
      }
      const parent = cur.parent as unknown;
      if (typeof parent === 'string') {
        // A list item of a root (parentSub null) keeps only the root's name: refused for the root or the shape.
        result = cur.parentSub === null ? [parent] : [parent, cur.parentSub];
        break;
      }
      if (parent instanceof Y.ID) {
        if (cur.parentSub === null) {
          result = INVALID;
          break;
        }
        const holder = this.find(parent);
        if (holder === null) result = MISSING;
        else if (!(holder instanceof Y.Item) || holder.content instanceof Y.ContentDeleted) result = DEAD;
        else if (!(holder.content instanceof Y.ContentType) || !(holder.content.type instanceof Y.Map)) result = INVALID;
        else {
          chain.push({ item: cur, sub: cur.parentSub });
          cur = holder;
          continue;
        }
        break;
      }
      // Parent and key come from the origin (left), else from the right origin, as Yjs integrates it.
      let next: Struct | null = cur.origin ? this.find(cur.origin) : null;
      if (cur.origin && next === null) {
        result = MISSING;
        break;
      }
      if (!(next instanceof Y.Item) && cur.rightOrigin) {
        next = this.find(cur.rightOrigin);
        if (next === null) {
          result = MISSING;
          break;
        }
      }
      if (next === null) {
        result = INVALID;
        break;
      }
      chain.push({ item: cur, sub: null });
      cur = next;
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const { item, sub } = chain[i];
      if (sub !== null && Array.isArray(result)) result = result.length >= MAX_DEPTH || result.length < 2 ? INVALID : [...result, sub];
      this.memo.set(item, result);
    }
    return result;
  }
}

/** The key of a place (an entry, a field of one, or a key of a node's `data`) in the maps of one check. */
const placeKey = (root: string, id: string, field = '', dataKey = '') => `${root}\u0000${id}\u0000${field}\u0000${dataKey}`;
/** The value a map item holds (a map key's last value). */
const valueOf = (item: Y.Item): unknown => {
  const values = item.content.getContent();
  return values[values.length - 1];
};

/**
 * What the canvas's nodes are once an update is applied, as far as their kinds go: a node's type (the one the update
 * sets, else the document's), whether it exists, an edge's ends and handles. Reads only the entries the update
 * names, from the update's values and the document's maps (never renders the document).
 */
class Kinds {
  private readonly types = new Map<string, unknown>();

  constructor(
    private readonly ds: Decoded['ds'],
    private readonly roots: { nodes: Y.Map<unknown>; edges: Y.Map<unknown> },
    /** Entries the update makes (or replaces), by placeKey(root, id). */
    private readonly made: ReadonlyMap<string, unknown>,
    /** The values the update sets, by placeKey. */
    private readonly setTo: ReadonlyMap<string, unknown>,
  ) {}

  /** Whether a document item is gone once the update is applied. */
  private removed(item: Y.Item | undefined): boolean {
    return !item || item.deleted || Y.isDeleted(this.ds, item.id);
  }

  /** The document's map of an entry, unless the update deletes or replaces it. */
  private current(root: 'nodes' | 'edges', id: string): Y.Map<unknown> | null {
    if (this.made.has(placeKey(root, id))) return null;
    const item = this.roots[root]._map.get(id);
    if (this.removed(item) || !(item!.content instanceof Y.ContentType) || !(item!.content.type instanceof Y.Map)) return null;
    return item!.content.type as Y.Map<unknown>;
  }

  /** An entry's field once the update is applied: the update's value, else the document's (unless the update deletes it). */
  valueAfter(root: 'nodes' | 'edges', id: string, field: string): unknown {
    const key = placeKey(root, id, field);
    if (this.setTo.has(key)) return this.setTo.get(key);
    const item = this.current(root, id)?._map.get(field);
    return this.removed(item) ? undefined : valueOf(item!);
  }

  exists(root: 'nodes' | 'edges', id: string): boolean {
    return this.made.has(placeKey(root, id)) || this.current(root, id) !== null;
  }

  typeAfter(id: string): unknown {
    if (!this.types.has(id)) this.types.set(id, this.valueAfter('nodes', id, 'type'));
    return this.types.get(id);
  }

  /** Nodes the document holds whose kind the update changes: their `type` set to another, or the whole node replaced. */
  kindChanges(): Set<string> {
    const changed = new Set<string>();
    const before = (id: string) => {
      const item = this.roots.nodes._map.get(id);
      if (!item || item.deleted || !(item.content instanceof Y.ContentType)) return undefined;
      const typeItem = (item.content.type as Y.Map<unknown>)._map.get('type');
      return typeItem && !typeItem.deleted ? valueOf(typeItem) : undefined;
    };
    for (const key of this.made.keys()) {
      const [root, id] = key.split('\u0000');
      if (root === 'nodes' && this.roots.nodes.has(id)) changed.add(id);
    }
    for (const key of this.setTo.keys()) {
      const [root, id, field, dataKey] = key.split('\u0000');
      if (root === 'nodes' && field === 'type' && dataKey === '' && this.roots.nodes.has(id) && before(id) !== this.typeAfter(id)) changed.add(id);
    }
    return changed;
  }

  /**
   * The refusal of a node whose kind the update changes, by its existing data: every key the update leaves must
   * pass the new kind's rule, and the new kind's required keys must be there. Null when it passes.
   */
  recheckData(id: string, dataOf: (type: unknown) => FieldRules | undefined, ruleOf: (table: FieldRules, key: string) => FieldRule): string | null {
    const table = dataOf(this.typeAfter(id));
    if (!table) return REFUSED_CHANGE.unknownNodeType.reason;
    const dataItem = this.current('nodes', id)?._map.get('data');
    if (this.removed(dataItem) || !(dataItem!.content instanceof Y.ContentType)) return null; // `data` deleted: refused as missing
    const data = dataItem!.content.type as Y.Map<unknown>;
    const left = (key: string) => {
      const set = placeKey('nodes', id, 'data', key);
      if (this.setTo.has(set)) return this.setTo.get(set); // checked with the update's values
      const item = data._map.get(key);
      return this.removed(item) ? undefined : valueOf(item!);
    };
    for (const [key, item] of data._map) {
      if (this.removed(item) || this.setTo.has(placeKey('nodes', id, 'data', key))) continue;
      const rule = ruleOf(table, key);
      if (!rule.test(valueOf(item))) return rule.reason;
    }
    for (const [key, rule] of Object.entries(table)) if (rule.required && left(key) === undefined) return `missing-data-${key}`;
    return null;
  }

  /**
   * The refusal of an edge whose ports do not exist on its nodes' kinds or do not fit (src/kinds/ `portOf`, `fits`):
   * the edges the update sets, and every edge of a node whose kind it changes (found by one pass over the edges,
   * only then). An edge with an end that is not a node (yet) is not judged, as before.
   */
  checkEdges(touched: ReadonlySet<string>, changedNodes: ReadonlySet<string>): string | null {
    const ids = new Set(touched);
    if (changedNodes.size > 0) {
      for (const [id, item] of this.roots.edges._map) {
        if (item.deleted || !(item.content instanceof Y.ContentType)) continue;
        const fields = (item.content.type as Y.Map<unknown>)._map;
        const source = fields.get('source');
        const target = fields.get('target');
        if ((source && !source.deleted && changedNodes.has(valueOf(source) as string)) || (target && !target.deleted && changedNodes.has(valueOf(target) as string))) ids.add(id);
      }
    }
    for (const id of ids) {
      if (!this.exists('edges', id)) continue;
      const source = this.valueAfter('edges', id, 'source');
      const target = this.valueAfter('edges', id, 'target');
      if (typeof source !== 'string' || typeof target !== 'string' || !this.exists('nodes', source) || !this.exists('nodes', target)) continue;
      const from = kindOf(this.typeAfter(source));
      const to = kindOf(this.typeAfter(target));
      if (!from || !to) continue; // a type no kind has: refused where it is set
      const output = portOf(from.outputs, this.valueAfter('edges', id, 'sourceHandle') as string | null | undefined);
      const input = portOf(to.inputs, this.valueAfter('edges', id, 'targetHandle') as string | null | undefined);
      if (!output || !input) return REFUSED_CHANGE.unknownPort.reason;
      if (!fits(output, input)) return REFUSED_CHANGE.portsDoNotFit.reason;
    }
    return null;
  }
}

/**
 * Entries of a root map, for the count limits. `Y.Map.size` walks a generator over every key (~3 ms for 5,000 nodes);
 * the map's key table, which also keeps each deleted key's last item, is an upper bound that is enough until it
 * nears the limit, and a plain loop over it counts exactly.
 */
function entries(map: Y.Map<unknown>): number {
  let live = 0;
  for (const item of map._map.values()) if (!item.deleted) live++;
  return live;
}

/** UTF-8 bytes of a string, as REST counts a canvas. */
const utf8 = (s: string) => Buffer.byteLength(s);
/** UTF-8 bytes of a value's JSON; Infinity for one that has none (a bigint: refused by its rule before bytes count). */
function jsonBytes(value: unknown): number {
  try {
    return utf8(JSON.stringify(value) ?? '');
  } catch {
    return Infinity;
  }
}

interface ByteState {
  /** The document's bytes as last measured. */
  measured: number;
  /** An upper bound of its bytes now: `measured` plus what every update applied since can have added. */
  bound: number;
  measuredAt: number;
}

/**
 * The REST measure of a document: UTF-8 JSON of its rendered nodes and of its rendered edges. It renders the whole
 * document (./stored-document.ts takes it in the document workers when a document is loaded).
 */
export function measure(doc: Y.Doc): number {
  const { nodes, edges } = renderCanvas(doc);
  return utf8(JSON.stringify(nodes)) + utf8(JSON.stringify(edges));
}

/**
 * `now`: the clock of REMEASURE_MS (performance.now by default); `measured`: told each time a whole document is
 * rendered here to measure it (metrics).
 */
export function createUpdateCheck(limits: UpdateLimits, now: () => number = () => performance.now(), measured?: () => void): UpdateCheck {
  const rules = canvasRules(limits);
  const states = new WeakMap<Y.Doc, ByteState>();
  const slack = Math.max(64 * 1024, Math.floor(limits.bytes / 32));

  const fieldRule = (table: FieldRules, key: string): FieldRule => (key === ORDER_KEY ? rules.order : Object.hasOwn(table, key) ? table[key] : rules.extra);
  /** A key of a node's `data` under its kind's rules: a key another kind has is refused; any other is an extra value. */
  const otherKind: FieldRule = { test: (v) => v === undefined, reason: REFUSED_CHANGE.dataOfAnotherKind.reason };
  const dataRule = (table: FieldRules, key: string): FieldRule => (key !== ORDER_KEY && !Object.hasOwn(table, key) && rules.kindKeys.has(key) ? otherKind : fieldRule(table, key));

  /**
   * Walks an update: its refusal (with `enforce`), and the JSON it can add to the rendered canvas at most. Without
   * `enforce` (an update already applied, to count its bytes) places are only read.
   */
  function examine(decoded: Decoded, doc: Y.Doc, enforce: boolean): { refusal: UpdateRefusal | null; growth: number } {
    const nodes = doc.getMap('nodes');
    const edges = doc.getMap('edges');
    const places = new Places(decoded.structs, doc, { nodes, edges });
    const added = { nodes: new Set<string>(), edges: new Set<string>() };
    /** Entries (re)made by the update: the fields their items set (a new entry must have its required ones). */
    const made = new Map<string, { root: 'nodes' | 'edges'; id: string; fields: Set<string> }>();
    let growth = 0;
    /** The fields (and `data` keys) the update gives a value. */
    const fieldsSet: Array<{ root: string; id: string; field: string; dataKey?: string }> = [];
    /** The value each field (or `data` key) has once the update is applied, where the update sets it. */
    const setTo = new Map<string, unknown>();
    /** The `data` values the update sets, held to the rules of their node's kind once every node's type is known. */
    const dataSet: Array<{ id: string; key: string; values: unknown[] }> = [];
    /** Edges whose ends or handles the update sets. */
    const edgesSet = new Set<string>();

    for (const struct of decoded.structs as Struct[]) {
      if (!(struct instanceof Y.Item)) continue;
      const place = places.placeOf(struct);
      if (place === DEAD) continue;
      if (place === MISSING) {
        if (enforce) return { refusal: refusal('unknown-parent'), growth };
        continue;
      }
      if (place === INVALID) {
        if (enforce) return { refusal: refusal('invalid-shape'), growth };
        continue;
      }
      const [root, id, field, dataKey] = place;
      if (root !== 'nodes' && root !== 'edges') {
        if (enforce) return { refusal: refusal('unknown-root'), growth };
        continue;
      }
      if (place.length === 1) {
        if (enforce) return { refusal: refusal('invalid-shape'), growth };
        continue;
      }
      const content = struct.content;
      if (content instanceof Y.ContentDeleted) continue;
      const isMap = content instanceof Y.ContentType && content.type instanceof Y.Map;
      if (place.length === 2) {
        // A node or an edge: a map under its id.
        if (enforce && !isMap) return { refusal: refusal('invalid-shape'), growth };
        if (enforce && !isId(id)) return { refusal: refusal('invalid-id'), growth };
        if (!(root === 'nodes' ? nodes : edges).has(id)) added[root].add(id);
        made.set(placeKey(root, id), { root, id, fields: new Set() });
        growth += 2 * utf8(id) + 16;
        continue;
      }
      const key = place.length === 3 ? field : dataKey;
      if (enforce && key.length > KEY_MAX_CHARS) return { refusal: refusal('invalid-key'), growth };
      if (place.length === 3 && isMap) {
        // Only a node's `data` is a nested map.
        if (enforce && !(root === 'nodes' && field === 'data')) return { refusal: refusal('invalid-shape'), growth };
        fieldsSet.push({ root, id, field });
        growth += utf8(key) + 8;
        continue;
      }
      if (enforce && place.length === 4 && !(root === 'nodes' && field === 'data')) return { refusal: refusal('invalid-shape'), growth };
      if (!(content instanceof Y.ContentAny)) {
        // Text, embeds, formats, binary, JSON strings, subdocuments, nested types elsewhere: not the canvas's shape.
        if (enforce) return { refusal: refusal('invalid-shape'), growth };
        continue;
      }
      if (place.length === 4) {
        // A `data` key: its kind's rule, once the node's type after the update is known (below).
        if (enforce) dataSet.push({ id, key, values: content.arr });
      } else {
        const rule = fieldRule(root === 'nodes' ? rules.node : rules.edge, key);
        if (enforce) for (const value of content.arr) if (!rule.test(value)) return { refusal: refusal(rule.reason), growth };
        if (root === 'edges') edgesSet.add(id);
      }
      for (const value of content.arr) if (value !== undefined) growth += jsonBytes(value) + utf8(key) + 4;
      if (content.arr.some((v) => v !== undefined)) fieldsSet.push(place.length === 4 ? { root, id, field, dataKey } : { root, id, field });
      // The value that stays: an item the update itself deletes (a key set twice in one change) is not it.
      if (enforce && !Y.isDeleted(decoded.ds, struct.id)) setTo.set(placeKey(root, id, field, dataKey), content.arr[content.arr.length - 1]);
    }

    if (enforce) {
      const kinds = new Kinds(decoded.ds, { nodes, edges }, made, setTo);
      // A node or edge the update makes has the fields REST requires, and so does a `data` map it makes (its `type`).
      const dataMade = new Map<string, Set<string>>();
      for (const f of fieldsSet) if (f.field === 'data' && f.dataKey === undefined) dataMade.set(f.id, new Set());
      for (const f of fieldsSet) {
        if (f.dataKey !== undefined) dataMade.get(f.id)?.add(f.dataKey);
        else made.get(placeKey(f.root, f.id))?.fields.add(f.field);
      }
      for (const entry of made.values()) {
        const table = entry.root === 'nodes' ? rules.node : rules.edge;
        for (const [field, rule] of Object.entries(table)) if (rule.required && !entry.fields.has(field)) return { refusal: refusal(`missing-${field}`), growth };
      }
      // Each `data` value by the rules of its node's kind: the type the update sets, else the document's.
      for (const { id, key, values } of dataSet) {
        const table = rules.dataOf(kinds.typeAfter(id));
        if (!table) return { refusal: refusal(REFUSED_CHANGE.unknownNodeType.reason), growth };
        const rule = dataRule(table, key);
        for (const value of values) if (!rule.test(value)) return { refusal: refusal(rule.reason), growth };
      }
      for (const [id, keys] of dataMade) {
        const table = rules.dataOf(kinds.typeAfter(id));
        if (!table) return { refusal: refusal(REFUSED_CHANGE.unknownNodeType.reason), growth };
        for (const [key, rule] of Object.entries(table)) if (rule.required && !keys.has(key)) return { refusal: refusal(`missing-data-${key}`), growth };
      }
      // A node whose kind changes keeps only data its new kind takes, and its edges must still fit.
      const changed = kinds.kindChanges();
      for (const id of changed) {
        if (dataMade.has(id)) continue; // its data is the update's own, checked above
        const refused = kinds.recheckData(id, (type) => rules.dataOf(type), dataRule);
        if (refused) return { refusal: refusal(refused), growth };
      }
      const removed = removedRequired(decoded, doc, places, new Set(fieldsSet.map((f) => placeKey(f.root, f.id, f.field, f.dataKey))), kinds, edgesSet);
      if (removed) return { refusal: refusal(removed), growth };
      for (const entry of made.values()) if (entry.root === 'edges') edgesSet.add(entry.id);
      const edgeRefusal = kinds.checkEdges(edgesSet, changed);
      if (edgeRefusal) return { refusal: refusal(edgeRefusal), growth };
      if (added.nodes.size > 0 && nodes._map.size + added.nodes.size > limits.nodes && entries(nodes) + added.nodes.size > limits.nodes) return { refusal: refusal(REFUSED_CHANGE.tooManyNodes.reason, REFUSED_CHANGE.tooManyNodes.code), growth };
      if (added.edges.size > 0 && edges._map.size + added.edges.size > limits.edges && entries(edges) + added.edges.size > limits.edges) return { refusal: refusal(REFUSED_CHANGE.tooManyEdges.reason, REFUSED_CHANGE.tooManyEdges.code), growth };
    }
    return { refusal: null, growth };
  }

  /**
   * The refusal reason when an update deletes a field REST requires (`position`, a `data`'s `type`, a `text` node's
   * `text`, …) of a node or edge that stays: not when the entry (or its `data`) goes in the same update, nor when the
   * update sets the field again (a replaced value is a deletion too). The delete set's ranges are walked over the
   * document's structs. A `data` key is required or not by the node's kind after the update. Edges whose fields it
   * deletes are added to `edgesChanged` (their ports are checked again).
   */
  function removedRequired(decoded: Decoded, doc: Y.Doc, places: Places, setAgain: Set<string>, kinds: Kinds, edgesChanged: Set<string>): string | null {
    const { ds } = decoded;
    const gone = (item: Y.Item | null) => item === null || item.deleted || Y.isDeleted(ds, item.id);
    for (const [client, ranges] of ds.clients) {
      const structs = doc.store.clients.get(client);
      const state = Y.getState(doc.store, client);
      if (!structs) continue;
      for (const { clock, len } of ranges) {
        if (clock >= state || len <= 0) continue;
        for (let i = Y.findIndexSS(structs, clock); i < structs.length && structs[i].id.clock < clock + len; i++) {
          const item = structs[i];
          if (!(item instanceof Y.Item) || item.deleted || item.parentSub === null) continue;
          const place = places.placeOf(item);
          if (!Array.isArray(place) || place.length < 3) continue;
          const [root, id, field, dataKey] = place;
          if (root === 'edges' && place.length === 3) edgesChanged.add(id); // a handle deleted: the default port then
          const rule =
            place.length === 3 ? (root === 'nodes' ? rules.node : root === 'edges' ? rules.edge : {})[field] : field === 'data' ? rules.dataOf(kinds.typeAfter(id))?.[dataKey] : undefined;
          if (rule?.required !== true) continue;
          const map = item.parent as Y.Map<unknown>;
          if (map._map.get(item.parentSub) !== item) continue; // not the current value
          const holder = map._item; // the node or edge, or the node's data map
          if (gone(holder)) continue;
          if (place.length === 4 && gone((holder!.parent as Y.AbstractType<unknown>)._item)) continue;
          if (setAgain.has(placeKey(root, id, field, dataKey))) continue;
          return place.length === 3 ? `missing-${field}` : `missing-data-${dataKey}`;
        }
      }
    }
    return null;
  }

  const measureHere = (doc: Y.Doc) => {
    measured?.();
    return measure(doc);
  };

  /** Starts counting a document's bytes from `bytes`, its measure now. */
  function track(doc: Y.Doc, bytes: number): ByteState {
    const state: ByteState = { measured: bytes, bound: bytes, measuredAt: now() };
    states.set(doc, state);
    // Every update applied from now on (a peer's, the service's, another instance's) raises the bound.
    doc.on('update', (update: Uint8Array) => {
      try {
        state.bound += examine(Y.decodeUpdate(update), doc, false).growth;
      } catch {
        state.bound = Infinity; // unreadable (never seen): measure again before anything grows
      }
    });
    return state;
  }

  const stateOf = (doc: Y.Doc): ByteState => states.get(doc) ?? track(doc, measureHere(doc));

  return {
    check(decoded, doc) {
      let examined: ReturnType<typeof examine>;
      try {
        examined = examine(decoded, doc, true);
      } catch {
        return refusal(CLOSE.malformedUpdate.reason); // structs Yjs itself could not place (never from a real client)
      }
      const { refusal: refused, growth } = examined;
      if (refused) return refused;
      if (growth === 0) return null;
      const state = stateOf(doc);
      if (state.bound + growth <= limits.bytes) return null;
      const at = now();
      if (state.bound - state.measured >= slack || at - state.measuredAt >= REMEASURE_MS) {
        state.measured = state.bound = measureHere(doc);
        state.measuredAt = at;
      }
      return state.bound + growth > limits.bytes ? refusal(REFUSED_CHANGE.canvasTooLarge.reason, REFUSED_CHANGE.canvasTooLarge.code) : null;
    },
    bytesOf(doc) {
      const state = states.get(doc);
      return state && { measured: state.measured, bound: state.bound };
    },
    seed(doc, bytes) {
      if (!states.has(doc)) track(doc, bytes);
    },
  };
}
