// The web client's side of the live canvas (web/src/canvas/live-doc.ts, presence.ts, connection.ts): the small
// writes a person's actions make, the mirror that re-renders only what an update touched (and agrees with
// renderCanvas after any mix of local and remote changes), presence read from any awareness state, and the
// status word of the header.
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyCanvas, canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import { connectionStatus, type ConnectionState } from '../../web/src/canvas/connection.js';
import { addElements, CanvasMirror, jsonEqual, moveNodes, removeElements, setNodeData } from '../../web/src/canvas/live-doc.js';
import { colorOf, initialsOf, peersOf, peopleOf, selectionToSend } from '../../web/src/canvas/presence.js';
import { peerOf, withCanvas } from '../helpers/yjs-docs.js';

type Json = Record<string, unknown>;

const upload = (id: string, x = 0) => ({ id, type: 'upload', position: { x, y: 0 }, data: { type: 'upload', image: `http://img/${id}.png` } });
const generation = (id: string, prompt?: string) => ({ id, type: 'generation', position: { x: 400, y: 0 }, data: { type: 'generation', ...(prompt ? { prompt } : {}) } });
const base = { nodes: [upload('a'), upload('b', 300), generation('g', 'sepia')], edges: [{ id: 'e1', source: 'a', target: 'g' }, { id: 'e2', source: 'b', target: 'g' }] };

function sync(a: Y.Doc, b: Y.Doc): void {
  const toB = Y.encodeStateAsUpdate(a, Y.encodeStateVector(b));
  const toA = Y.encodeStateAsUpdate(b, Y.encodeStateVector(a));
  Y.applyUpdate(b, toB, 'remote');
  Y.applyUpdate(a, toA, 'remote');
}
/** The transactions (origin, update size) `doc` makes while `fn` runs. */
function transactionsOf(doc: Y.Doc, fn: () => void): Array<{ origin: unknown; bytes: number }> {
  const out: Array<{ origin: unknown; bytes: number }> = [];
  const listener = (update: Uint8Array, origin: unknown) => out.push({ origin, bytes: update.length });
  doc.on('update', listener);
  fn();
  doc.off('update', listener);
  return out;
}
/** A mirror of `doc` fed by observeDeep, as the web client's LiveSession feeds it. */
function mirrorOf(doc: Y.Doc) {
  const mirror = new CanvasMirror(doc);
  const changes: string[] = [];
  const { nodes, edges } = canvasMaps(doc);
  nodes.observeDeep((events) => mirror.update('nodes', events) && changes.push('nodes'));
  edges.observeDeep((events) => mirror.update('edges', events) && changes.push('edges'));
  return { mirror, changes };
}

describe('writes', () => {
  it('a move sets only the position, one small transaction with the origin; unknown ids and no-ops write nothing', () => {
    const doc = withCanvas(base);
    const origin = { source: 'editor' };
    const moved = transactionsOf(doc, () => moveNodes(doc, [['a', { x: 5, y: 6 }], ['missing', { x: 1, y: 1 }]], origin));
    expect(moved).toHaveLength(1);
    expect(moved[0].origin).toBe(origin);
    expect(moved[0].bytes).toBeLessThan(60);
    expect(renderCanvas(doc).nodes[0]).toEqual({ ...upload('a'), position: { x: 5, y: 6 } });
    expect(transactionsOf(doc, () => moveNodes(doc, [['a', { x: 5, y: 6 }], ['b', { x: Number.NaN, y: 0 }]]))).toEqual([]);
  });

  it('setNodeData sets and deletes keys of data only; false for a node that is gone; repairs a data that is not a map', () => {
    const doc = withCanvas(base);
    expect(setNodeData(doc, 'g', { prompt: 'blur 2', isGenerating: true })).toBe(true);
    expect((renderCanvas(doc).nodes[2] as Json).data).toEqual({ type: 'generation', prompt: 'blur 2', isGenerating: true });
    expect(transactionsOf(doc, () => setNodeData(doc, 'g', { prompt: 'blur 2' }))).toEqual([]); // unchanged: nothing written
    setNodeData(doc, 'g', { isGenerating: undefined, prompt: undefined });
    expect((renderCanvas(doc).nodes[2] as Json).data).toEqual({ type: 'generation' });
    expect(setNodeData(doc, 'missing', { prompt: 'x' })).toBe(false);
    (canvasMaps(doc).nodes.get('a') as Y.Map<unknown>).set('data', { type: 'upload', image: 'http://x' });
    setNodeData(doc, 'a', { image: 'http://y' });
    expect((canvasMaps(doc).nodes.get('a') as Y.Map<unknown>).get('data')).toBeInstanceOf(Y.Map);
    expect((renderCanvas(doc).nodes[0] as Json).data).toEqual({ type: 'upload', image: 'http://y' });
  });

  it('a prompt edit and a concurrent move of the same node both survive', () => {
    const ada = withCanvas(base);
    const bob = peerOf(ada);
    setNodeData(ada, 'g', { prompt: 'grayscale' });
    moveNodes(bob, [['g', { x: 1, y: 2 }]]);
    sync(ada, bob);
    const expected = { ...generation('g', 'grayscale'), position: { x: 1, y: 2 } };
    expect(renderCanvas(ada).nodes[2]).toEqual(expected);
    expect(renderCanvas(bob).nodes[2]).toEqual(expected);
  });

  it('adds after everything; removing a node removes its edges too, in one transaction', () => {
    const doc = withCanvas(base);
    addElements(doc, { nodes: [upload('c')], edges: [{ id: 'e3', source: 'c', target: 'g' }] });
    expect(renderCanvas(doc).nodes.map((n) => (n as Json).id)).toEqual(['a', 'b', 'g', 'c']);
    expect(transactionsOf(doc, () => removeElements(doc, { nodes: ['g'], edges: ['missing'] }, 'me'))).toHaveLength(1);
    expect(renderCanvas(doc)).toEqual({ nodes: [upload('a'), upload('b', 300), upload('c')], edges: [] });
    removeElements(doc, { edges: ['nothing'] });
    expect(renderCanvas(doc).nodes).toHaveLength(3);
  });

  it('an undo manager tracking the editor origin undoes only its own changes', () => {
    const ada = withCanvas(base);
    const bob = peerOf(ada);
    const mine = { source: 'editor' };
    const { nodes, edges } = canvasMaps(ada);
    const undo = new Y.UndoManager([nodes, edges], { trackedOrigins: new Set([mine]), captureTimeout: Number.POSITIVE_INFINITY });
    moveNodes(ada, [['a', { x: 50, y: 50 }]], mine);
    setNodeData(bob, 'g', { prompt: 'from bob' });
    sync(ada, bob);
    undo.undo();
    expect(renderCanvas(ada).nodes[0]).toEqual(upload('a'));
    expect((renderCanvas(ada).nodes[2] as Json).data).toEqual({ type: 'generation', prompt: 'from bob' });
  });
});

describe('the mirror', () => {
  it('starts as renderCanvas, follows local and remote changes, and keeps the objects of untouched entries', () => {
    const doc = withCanvas(base);
    const { mirror, changes } = mirrorOf(doc);
    expect({ nodes: mirror.nodes, edges: mirror.edges }).toEqual(renderCanvas(doc));
    const [a, b, g] = mirror.nodes;
    moveNodes(doc, [['a', { x: 9, y: 9 }]]);
    expect(mirror.nodes[0]).toEqual({ ...upload('a'), position: { x: 9, y: 9 } });
    expect(mirror.nodes[1]).toBe(b);
    expect(mirror.nodes[2]).toBe(g);
    expect(changes).toEqual(['nodes']);
    setNodeData(doc, 'g', { prompt: 'new' });
    expect(mirror.nodes[0]).not.toBe(a);
    expect(mirror.nodes[1]).toBe(b);
    // A remote peer's changes arrive as updates.
    const peer = peerOf(doc);
    removeElements(peer, { nodes: ['b'] });
    addElements(peer, { nodes: [upload('z')] });
    sync(doc, peer);
    expect({ nodes: mirror.nodes, edges: mirror.edges }).toEqual(renderCanvas(doc));
    expect(mirror.nodes.map((n) => n.id)).toEqual(['a', 'g', 'z']);
    // Writing what is already there changes nothing, and reports no change.
    const before = changes.length;
    moveNodes(doc, [['a', { x: 9, y: 9 }]]);
    setNodeData(doc, 'g', { prompt: 'new' });
    expect(changes.length).toBe(before);
  });

  it('agrees with renderCanvas after random mixes of local and remote edits (seeded)', () => {
    let seed = 1;
    const rnd = () => ((seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
    const ada = withCanvas(base);
    const bob = peerOf(ada);
    const { mirror } = mirrorOf(ada);
    const ids = () => renderCanvas(ada).nodes.map((n) => (n as Json).id as string);
    for (let round = 0; round < 300; round++) {
      const doc = rnd() < 0.5 ? ada : bob;
      const pick = ids()[Math.floor(rnd() * ids().length)];
      const action = Math.floor(rnd() * 6);
      if (action === 0) addElements(doc, { nodes: [upload(`n${round}`, round)] });
      else if (action === 1 && pick) removeElements(doc, { nodes: [pick] });
      else if (action === 2 && pick) moveNodes(doc, [[pick, { x: round, y: -round }]]);
      else if (action === 3 && pick) setNodeData(doc, pick, { prompt: rnd() < 0.3 ? undefined : `p${round}` });
      else if (action === 4 && pick) addElements(doc, { edges: [{ id: `e${round}`, source: pick, target: 'g' }] });
      else if (pick) applyCanvas(doc, { ...renderCanvas(doc), nodes: [...renderCanvas(doc).nodes].reverse() }); // a whole-canvas write (REST)
      if (rnd() < 0.3) sync(ada, bob);
      expect({ nodes: mirror.nodes, edges: mirror.edges }).toEqual(renderCanvas(ada));
    }
  });
});

describe('presence', () => {
  it('reads peers from any awareness state, leaving out ourselves and what is not a presence', () => {
    const states = new Map<number, unknown>([
      [1, { user: { id: 'u1', name: 'Ada', color: '#112233' }, cursor: { x: 1, y: 2 }, selection: ['a', 7, 'b'] }],
      [2, { user: { id: 'u2', name: 'Me', color: '#000000' }, cursor: null, selection: [] }],
      [3, { user: { id: 'u3', name: 'Bad colour', color: 'red;background:url(x)' }, cursor: { x: 'no', y: 1 }, selection: 'a' }],
      [4, { cursor: { x: 1, y: 1 } }],
      [5, null],
      [0, { user: { id: 'u1', name: 'Ada', color: '#112233' }, cursor: null, selection: [] }],
    ]);
    const peers = peersOf(states, 2);
    expect(peers.map((p) => p.clientId)).toEqual([0, 1, 3]);
    expect(peers[1]).toEqual({ clientId: 1, user: { id: 'u1', name: 'Ada', color: '#112233' }, cursor: { x: 1, y: 2 }, selection: ['a', 'b'] });
    expect(peers[2]).toEqual({ clientId: 3, user: { id: 'u3', name: 'Bad colour', color: colorOf('u3') }, cursor: null, selection: [] });
    expect(peopleOf(peers).map((p) => p.name)).toEqual(['Ada', 'Bad colour']); // one avatar per person
  });

  it("sends at most what peers show of a selection, small enough for the service's presence limit", () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `generation-${String(i).padStart(36, '0')}`);
    const sent = selectionToSend(ids);
    expect(sent).toEqual(ids.slice(0, sent.length));
    expect(sent.length).toBeLessThanOrEqual(1000);
    expect(JSON.stringify(sent).length).toBeLessThan(40_000); // COLLAB_MAX_PRESENCE_BYTES is 64 KB by default
    expect(selectionToSend(['a', 'b'])).toEqual(['a', 'b']);
    expect(selectionToSend(['x'.repeat(40_000), 'b'])).toEqual([]);
  });

  it('gives stable colours and short initials', () => {
    expect(colorOf('user-1')).toBe(colorOf('user-1'));
    expect(colorOf('user-1')).toMatch(/^#[0-9a-f]{6}$/);
    expect(initialsOf('Ada Lovelace')).toBe('AL');
    expect(initialsOf('bob@example.com')).toBe('BC');
    expect(initialsOf('  ')).toBe('?');
    expect(initialsOf('émile')).toBe('É');
  });
});

describe('connection status', () => {
  const state: ConnectionState = { socket: 'connected', synced: true, loaded: true, unsynced: 0, saving: true, relayed: true, scope: 'read-write', denied: false, busy: false, online: true };
  it('says Connected, Offline (— changes kept), Reconnecting…, Not saving, or Connecting… before the first sync', () => {
    expect(connectionStatus(state)).toBe('connected');
    expect(connectionStatus({ ...state, unsynced: 3 })).toBe('connected'); // "Saving…" is a detail
    expect(connectionStatus({ ...state, socket: 'disconnected', synced: false, unsynced: 2 })).toBe('offline');
    expect(connectionStatus({ ...state, socket: 'connecting', synced: false })).toBe('reconnecting');
    expect(connectionStatus({ ...state, socket: 'disconnected', synced: false, online: false })).toBe('offline'); // nothing waiting, no network
    expect(connectionStatus({ ...state, socket: 'connected', synced: false, unsynced: 1 })).toBe('offline'); // not yet in step again
    expect(connectionStatus({ ...state, saving: false, unsynced: 4 })).toBe('not-saving');
    expect(connectionStatus({ ...state, loaded: false, synced: false })).toBe('connecting');
  });

  it('says Server busy while the service has no room to open the document, before the first sync or after, unless the browser is offline', () => {
    expect(connectionStatus({ ...state, loaded: false, synced: false, socket: 'disconnected', busy: true })).toBe('busy');
    expect(connectionStatus({ ...state, synced: false, socket: 'connecting', unsynced: 2, busy: true })).toBe('busy');
    expect(connectionStatus({ ...state, synced: false, socket: 'disconnected', busy: true, online: false })).toBe('offline');
  });
});

it('jsonEqual treats undefined keys as absent', () => {
  expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
  expect(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
  expect(jsonEqual({ a: [1] }, { a: { 0: 1 } })).toBe(false);
  expect(jsonEqual(null, {})).toBe(false);
});
