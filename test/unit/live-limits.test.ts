// What keeps the web client's live writes inside what the service accepts (web/src/canvas/live-limits.ts): hostile
// or over-long values fitted by the client pass the service's own update check (src/collab/update-check.ts) where
// the raw values are refused; the throttle that paces drags and the pointer; and which close reasons are refusals
// of content (the provider resends the change on every reconnect) and which are not.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import { CLOSE } from '../../src/collab/protocol.js';
import { createUpdateCheck, type UpdateLimits } from '../../src/collab/update-check.js';
import { addElements, setNodeData } from '../../web/src/canvas/live-doc.js';
import { cutText, fitElements, limitPatch, LIVE_WRITE_MS, refusalText, Throttle, type CanvasLimits } from '../../web/src/canvas/live-limits.js';
import { peerOf, withCanvas } from '../helpers/yjs-docs.js';

type Json = Record<string, unknown>;
const LIMITS: CanvasLimits = { promptMaxChars: 100, maxNodes: 50, maxEdges: 50 };
const CHECK: UpdateLimits = { promptChars: 100, nodes: 50, edges: 50, bytes: 1024 * 1024 };
const gen = (id: string, data: Json = {}, extra: Json = {}) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', ...data }, ...extra });

/** The service's verdict on what a peer of a one-node canvas writes with `write` (null: accepted). */
function verdict(write: (peer: Y.Doc) => void): string | null {
  const base = withCanvas({ nodes: [gen('a')], edges: [] });
  const peer = peerOf(base);
  const before = Y.encodeStateVector(peer);
  write(peer);
  const update = Y.encodeStateAsUpdate(peer, before);
  return createUpdateCheck(CHECK).check(Y.decodeUpdate(update), base)?.reason ?? null;
}

describe('live writes fitted to the canvas rules', () => {
  const hostile: Array<[string, Json, string]> = [
    ['an over-long prompt', { prompt: 'p'.repeat(101) }, 'invalid-prompt'],
    ['a prompt with NUL', { prompt: 'a\u0000b' }, 'invalid-prompt'],
    ['a prompt cut in a surrogate pair', { prompt: `${'p'.repeat(99)}😀` }, 'invalid-prompt'],
    ['an over-long model', { model: 'm'.repeat(101) }, 'invalid-model'],
    ['a javascript: image', { image: 'javascript:alert(1)' }, 'invalid-image'],
    ['an image URL over 2,048 characters', { image: `https://x/${'a'.repeat(2100)}` }, 'invalid-image'],
    ['a huge unknown value', { note: 'n'.repeat(20_000) }, 'invalid-value'],
  ];

  for (const [name, patch, reason] of hostile) {
    it(`a data patch with ${name}: refused raw, accepted fitted`, () => {
      // The raw patch (what the client wrote before) is refused; the fitted one passes.
      expect(verdict((d) => setNodeData(d, 'a', patch))).toBe(reason);
      expect(verdict((d) => setNodeData(d, 'a', limitPatch(patch, LIMITS)))).toBeNull();
    });
  }

  it('cuts a prompt to the limit and keeps the rest of the patch; a refused value is not written (not deleted)', () => {
    const fitted = limitPatch({ prompt: 'q'.repeat(150), image: 'javascript:x', model: 'gpt' }, LIMITS);
    expect(fitted).toEqual({ prompt: 'q'.repeat(100), model: 'gpt' });
    expect(Object.hasOwn(fitted, 'image')).toBe(false);
    const ok = { prompt: 'fine' };
    expect(limitPatch(ok, LIMITS)).toBe(ok);
    expect(limitPatch({ prompt: undefined }, LIMITS)).toEqual({ prompt: undefined }); // a deletion stays one
    expect(cutText(`ab😀`, 3)).toBe('ab');
    expect(cutText('abc', 3)).toBe('abc');
  });

  it('an add (a paste of a hostile clipboard) is fitted: bad nodes and edges left out, bad fields dropped', () => {
    const long = 'i'.repeat(201);
    const elements = {
      nodes: [
        gen('n1', { prompt: 'p'.repeat(500), model: 'm'.repeat(200), image: 'vbscript:x' }, { measured: { width: 1, height: 2 } }),
        gen('n2', {}, { position: { x: Number.NaN, y: 0 } }),
        gen('n3', {}, { position: { x: Number.POSITIVE_INFINITY, y: 0 } }),
        gen(long),
        gen('n4', {}, { style: { junk: 'j'.repeat(20_000) } }),
      ],
      edges: [
        { id: 'e1', source: 'n1', target: 'a', sourceHandle: 'h'.repeat(300) },
        { id: 'e2', source: long, target: 'a' },
        { id: long, source: 'n1', target: 'a' },
      ],
    };
    expect(verdict((d) => addElements(d, { nodes: elements.nodes.filter((n) => n.id === 'n1') }))).toBe('invalid-prompt');
    expect(verdict((d) => addElements(d, { edges: [elements.edges[0]] }))).toBe('invalid-handle');
    const fitted = fitElements(elements, LIMITS);
    expect(fitted.nodes.map((n) => n.id)).toEqual(['n1', 'n4']);
    expect(fitted.edges.map((e) => e.id)).toEqual(['e1']);
    expect(fitted.nodes[0]).toMatchObject({ measured: { width: 1, height: 2 }, data: { type: 'generation', prompt: 'p'.repeat(100) } });
    expect(verdict((d) => addElements(d, fitted))).toBeNull();
    const doc = withCanvas({ nodes: [], edges: [] });
    addElements(doc, fitted);
    expect(canvasMaps(doc).nodes.size).toBe(2);
  });
});

describe('pasted edges and ports', () => {
  it('an edge between pasted nodes names ports their kinds have and is left out when its ports do not fit', () => {
    const text = { id: 't', type: 'text', position: { x: 0, y: 0 }, data: { type: 'text', text: 'words' } };
    const fitted = fitElements(
      {
        nodes: [gen('g'), text],
        edges: [
          { id: 'into-prompt', source: 't', target: 'g', targetHandle: 'prompt' },
          { id: 'unknown-handle', source: 't', target: 'g', sourceHandle: 'nope', targetHandle: 'prompt' },
          { id: 'text-into-images', source: 't', target: 'g' },
        ],
      },
      LIMITS,
    );
    expect(fitted.edges).toEqual([
      { id: 'into-prompt', source: 't', target: 'g', targetHandle: 'prompt' },
      { id: 'unknown-handle', source: 't', target: 'g', targetHandle: 'prompt' },
    ]);
    expect(verdict((d) => addElements(d, fitted))).toBeNull();
  });
});

describe('the live write throttle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('writes at most once per interval however often it is asked, the last request included', () => {
    let writes = 0;
    const throttle = new Throttle(() => writes++, LIVE_WRITE_MS, () => Date.now());
    // A 144 Hz display: a request every ~6.9 ms for 3 seconds.
    const frames = Math.round(3 * 144);
    for (let i = 0; i < frames; i++) {
      throttle.request();
      vi.advanceTimersByTime(1000 / 144);
    }
    vi.runAllTimers();
    expect(writes).toBeGreaterThan(3 * 25);
    expect(writes).toBeLessThanOrEqual(Math.ceil(3000 / LIVE_WRITE_MS) + 1);
    // Well under the service's default 60 changes a second (plus as many presence frames: under 300 frames a second).
    expect(writes / 3).toBeLessThan(31);
  });

  it('the first request is written at once, a pending one by flush, and nothing after cancel', () => {
    let writes = 0;
    const throttle = new Throttle(() => writes++, LIVE_WRITE_MS, () => Date.now());
    throttle.request();
    expect(writes).toBe(1);
    throttle.request();
    expect(writes).toBe(1);
    throttle.flush();
    expect(writes).toBe(2);
    throttle.flush();
    expect(writes).toBe(2);
    throttle.request();
    throttle.cancel();
    vi.runAllTimers();
    expect(writes).toBe(2);
  });
});

describe('close reasons', () => {
  it('names every content refusal of the rules table, and none of the socket or session closes', () => {
    for (const reason of ['invalid-prompt', 'invalid-image', 'invalid-position', 'invalid-id', 'invalid-handle', 'invalid-value', 'missing-data-type', 'too-many-nodes', 'too-many-edges', 'canvas-too-large']) {
      expect(refusalText(reason), reason).toEqual(expect.any(String));
    }
    for (const { reason } of Object.values(CLOSE)) if (reason !== 'malformed-update') expect(refusalText(reason), reason).toBeNull();
    for (const reason of ['signed-out', 'role-changed', 'token-revoked', '', undefined, 42]) expect(refusalText(reason)).toBeNull();
  });
});

describe('why a refusal asks for a reload, not an undo', () => {
  it('an undone refused change still travels, with its content, in what the provider resends: refused again', () => {
    const base = withCanvas({ nodes: [gen('a', { prompt: 'ok' })], edges: [] });
    const peer = peerOf(base);
    const origin = { source: 'editor' };
    const undo = new Y.UndoManager([canvasMaps(peer).nodes], { trackedOrigins: new Set([origin]) });
    const served = Y.encodeStateVector(base);
    setNodeData(peer, 'a', { prompt: 'x'.repeat(200) }, origin);
    undo.undo();
    expect((canvasMaps(peer).nodes.get('a') as Y.Map<Y.Map<unknown>>).get('data')!.get('prompt')).toBe('ok');
    expect(createUpdateCheck(CHECK).check(Y.decodeUpdate(Y.encodeStateAsUpdate(peer, served)), base)?.reason).toBe('invalid-prompt');
  });
});
