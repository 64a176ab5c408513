// The live load tool's pure parts (load/): the cost section's arithmetic (cost-windows.ts: a window with edits against
// an adjacent one without, the spread over rounds, a negative round said as such) and a room with a graph run's
// chain (live-session.ts LiveRoom, LOAD_RUN_ROOMS: the editors never write the chain's nodes, the shape counts them).
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyCanvas } from '../../src/collab/canvas-doc.js';
import { chainCanvas } from '../../bench/run-canvases.js';
import { makeCanvas } from '../../bench/api.js';
import { negativeReason, perEdit, ratioOfMedians, spreadOf, spreadText, withEditsFirst, type CpuSpent, type WindowNotes } from '../../load/cost-windows.js';
import { LiveRoom } from '../../load/live-session.js';

const window = (wallS: number, service: number, postgres: number, notes: Partial<WindowNotes> = {}): CpuSpent & WindowNotes => ({
  wallS,
  service,
  postgres,
  compactions: 0,
  gcMs: 0,
  ...notes,
});

describe('cost per edit from a window with edits and one without', () => {
  it('is the difference of two windows of one length over the edits', () => {
    const cost = perEdit(window(17, 0.5, 0.2), window(17, 0.1, 0.05), 1_000);
    expect(cost.service).toBeCloseTo(0.0004, 10);
    expect(cost.postgres).toBeCloseTo(0.00015, 10);
  });

  it('scales the window without edits to the length of the one with them when a drain ran long', () => {
    // 0.1 s in 10 s without edits is 0.2 s over the 20 s the window with edits lasted.
    expect(perEdit(window(20, 1.2, 0), window(10, 0.1, 0), 1_000).service).toBeCloseTo(0.001, 10);
  });

  it('answers nothing (NaN) without acknowledged edits, never a figure', () => {
    expect(perEdit(window(17, 0.5, 0.2), window(17, 0.1, 0.05), 0).service).toBeNaN();
  });

  it('keeps a negative round negative, and says why from the windows', () => {
    const withEdits = window(17, 0.1, 0.02, { compactions: 0, gcMs: 5 });
    const without = window(17, 0.15, 0.02, { compactions: 2, gcMs: 40 });
    expect(perEdit(withEdits, without, 500).service).toBeLessThan(0);
    const reason = negativeReason('service', withEdits, without);
    expect(reason).toContain('150 ms');
    expect(reason).toContain('2 document(s) compacted');
    expect(reason).toContain('40 ms of garbage collection');
    expect(negativeReason('service', window(17, 0.1, 0), window(17, 0.11, 0))).toContain('no compaction or garbage collection explains it');
  });

  it('alternates which window comes first from round to round', () => {
    expect([0, 1, 2, 3].map(withEditsFirst)).toEqual([true, false, true, false]);
  });

  it('reports the median, the lowest and highest, and the negative rounds', () => {
    const s = spreadOf([0.0003, -0.0001, 0.0002, NaN]);
    expect(s).toEqual({ median: 0.0002, min: -0.0001, max: 0.0003, rounds: 3, negative: 1 });
    expect(spreadText(s)).toBe('200 µs (-100–300 over 3 rounds, 1 NEGATIVE)');
    expect(spreadOf([0.0001, 0.0003]).median).toBeCloseTo(0.0002, 12);
  });

  it('gives a ratio of medians only when both are positive', () => {
    expect(ratioOfMedians(spreadOf([0.0003]), spreadOf([0.0002]))).toBeCloseTo(1.5, 10);
    expect(ratioOfMedians(spreadOf([0.0003]), spreadOf([-0.0002]))).toBeNaN();
  });
});

describe('a room with a graph run chain', () => {
  const seeded = () => {
    const canvas = makeCanvas('user-1', 7);
    const chain = chainCanvas('https://example.test/picture.png', 50, 1);
    const doc = new Y.Doc();
    applyCanvas(doc, { nodes: [...canvas.nodes, ...chain.nodes], edges: [...canvas.edges, ...chain.edges] });
    return { doc, canvas, chainIds: chain.nodes.map((n) => n.id) };
  };

  it('never gives an editor a node of the chain, and counts the chain in the canvas shape', () => {
    const { doc, canvas, chainIds } = seeded();
    const room = new LiveRoom(0, 'project', 5, 'cookie', new Set(chainIds));
    expect(room.init(doc)).toBeUndefined();
    expect(room.nodeCount).toBe(canvas.nodes.length + chainIds.length);
    expect(room.nodes!.map((n) => n.id).sort()).toEqual(canvas.nodes.map((n) => n.id).sort());
    const written = [0, 1, 2, 3, 4].flatMap((slot) => room.assignment(slot).moves.map((n) => n.id));
    expect(written).toHaveLength(canvas.nodes.length);
    expect(written.filter((id) => chainIds.includes(id))).toEqual([]);
  });

  it('says so when the document lacks the chain it was seeded with', () => {
    const { doc, chainIds } = seeded();
    const room = new LiveRoom(3, 'project', 5, 'cookie', new Set([...chainIds, 'a51']));
    expect(room.init(doc)).toBe("room 3: 51 of the run's 52 nodes are in the document after the first sync");
  });
});
