// The live documents' whole-document work on stored bytes (src/collab/stored-document.ts) and the worker threads that
// run it (src/collab/document-workers.ts): a merge is the state of a fresh document holding every part, deleted
// content dropped, measured as the content check measures; a render is the canvas; a worker's answer is the same as
// the service's thread's, byte for byte; a task that fails fails alone.
import { afterEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { addToCanvas, applyCanvas, canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import { createDocumentWorkers, type DocumentWorkers } from '../../src/collab/document-workers.js';
import { jsonOfParts, mergeParts, packParts, partsOf, renderParts, unpackParts, type StoredParts } from '../../src/collab/stored-document.js';
import { measure } from '../../src/collab/update-check.js';

const node = (id: string, prompt = 'p') => ({ id, type: 'generation', position: { x: 1, y: 2 }, data: { type: 'generation', prompt } });
const edge = (id: string, source: string, target: string) => ({ id, source, target });
const LONG = 'w'.repeat(100_000);

/**
 * A document as the database holds it after some editing: a snapshot, then a log of changes — nodes added, a prompt
 * of 100 KB set and then the node deleted, a prompt changed — and the document the parts make.
 */
function storedDocument(): { stored: StoredParts; doc: Y.Doc } {
  const doc = new Y.Doc();
  applyCanvas(doc, { nodes: [node('a'), node('b')], edges: [edge('e', 'a', 'b')] });
  const snapshot = Y.encodeStateAsUpdate(doc);
  const updates: Uint8Array[] = [];
  doc.on('update', (u: Uint8Array) => updates.push(u));
  addToCanvas(doc, { nodes: [node('c', LONG)] });
  canvasMaps(doc).nodes.delete('c');
  ((canvasMaps(doc).nodes.get('a') as Y.Map<unknown>).get('data') as Y.Map<unknown>).set('prompt', 'changed');
  addToCanvas(doc, { nodes: [node('d')], edges: [edge('f', 'b', 'd')] });
  return { stored: { snapshot, updates }, doc };
}

/** The canvas a state renders to. */
const canvasOf = (state: Uint8Array) => {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, state);
  return renderCanvas(doc);
};

const log = { warn: () => undefined };
let workers: DocumentWorkers | undefined;
afterEach(async () => {
  await workers?.close();
  workers = undefined;
});

describe('merging and rendering a stored document', () => {
  it('packs parts into one buffer of their own and back', () => {
    const parts = [new Uint8Array([1, 2]), new Uint8Array([]), new Uint8Array([3, 4, 5])];
    const packed = packParts(parts);
    expect(packed.buffer.byteLength).toBe(5);
    expect(unpackParts(packed).map((p) => [...p])).toEqual([[1, 2], [], [3, 4, 5]]);
  });

  it("merges into a state holding the document's content, without what was deleted, measured as the content check measures", () => {
    const { stored, doc } = storedDocument();
    const parts = partsOf(stored);
    const merged = mergeParts(parts, { measure: true });
    expect(canvasOf(merged.state)).toEqual(renderCanvas(doc));
    expect(renderCanvas(doc).nodes.map((n) => (n as { id: string }).id)).toEqual(['a', 'b', 'd']);
    expect(merged.bytes).toBe(measure(doc));
    // The deleted node's 100 KB prompt is gone from the state; merging the updates as they are would keep it.
    expect(merged.state.byteLength).toBeLessThan(5_000);
    expect(Y.mergeUpdates(parts).byteLength).toBeGreaterThan(LONG.length);
    expect(mergeParts(parts, { measure: false })).toEqual({ state: merged.state });
  });

  it('renders the canvas the document holds', () => {
    const { stored, doc } = storedDocument();
    expect(renderParts(partsOf(stored))).toEqual(renderCanvas(doc));
    expect(renderParts(partsOf({ snapshot: null, updates: [] }))).toEqual({ nodes: [], edges: [] });
  });

  it("gives the document's maps as Yjs does, not rendered (what a deleted project's object sweep searches)", () => {
    const { stored, doc } = storedDocument();
    const json = jsonOfParts(partsOf(stored));
    expect(json).toEqual({ nodes: doc.getMap('nodes').toJSON(), edges: doc.getMap('edges').toJSON() });
    expect(Object.keys(json.nodes as object).sort()).toEqual(['a', 'b', 'd']);
  });
});

describe('the document workers', () => {
  it('answer in a worker thread what the service thread answers, byte for byte, and leave the parts given to them whole', async () => {
    const { stored, doc } = storedDocument();
    const here = createDocumentWorkers({ workers: 0, log });
    workers = createDocumentWorkers({ workers: 1, log });
    const sizes = partsOf(stored).map((p) => p.byteLength);

    const [inWorker, inThread] = await Promise.all([workers.merge(stored, { measure: true }), here.merge(stored, { measure: true })]);
    expect([...inWorker.state]).toEqual([...inThread.state]);
    expect(inWorker.bytes).toBe(measure(doc));
    expect(inThread.bytes).toBe(measure(doc));
    expect(await workers.render(stored)).toEqual(renderCanvas(doc));
    expect(await here.render(stored)).toEqual(renderCanvas(doc));
    expect(await workers.json(stored)).toEqual(await here.json(stored));
    expect(partsOf(stored).map((p) => p.byteLength)).toEqual(sizes);

    const once = (where: 'worker' | 'thread') => ({ worker: where === 'worker' ? 1 : 0, thread: where === 'thread' ? 1 : 0, failed: 0 });
    expect(workers.stats()).toEqual({ merge: once('worker'), render: once('worker'), json: once('worker') });
    expect(here.stats()).toEqual({ merge: once('thread'), render: once('thread'), json: once('thread') });
    await here.close();
  });

  it('fail the task of a corrupt row alone (counted); the next task succeeds', async () => {
    const { stored, doc } = storedDocument();
    const tasks: string[] = [];
    workers = createDocumentWorkers({ workers: 1, log, metrics: { documentTask: (task, where, result) => tasks.push(`${task}:${where}:${result}`) } });
    const corrupt = { snapshot: new TextEncoder().encode('not a yjs update'), updates: stored.updates };
    await expect(workers.merge(corrupt, { measure: true })).rejects.toThrow();
    await expect(workers.render(corrupt)).rejects.toThrow();
    expect(await workers.render(stored)).toEqual(renderCanvas(doc));
    expect(workers.stats()).toEqual({ merge: { worker: 0, thread: 0, failed: 1 }, render: { worker: 1, thread: 0, failed: 1 }, json: { worker: 0, thread: 0, failed: 0 } });
    expect(tasks).toEqual(['merge:worker:failed', 'render:worker:failed', 'render:worker:ok']);
  });

  it('share the work among their threads, each task answered with its own document', async () => {
    workers = createDocumentWorkers({ workers: 2, log });
    const docs = Array.from({ length: 6 }, (_, i) => {
      const doc = new Y.Doc();
      applyCanvas(doc, { nodes: [node(`n${i}`, `prompt ${i}`)], edges: [] });
      return doc;
    });
    const merged = await Promise.all(docs.map((doc) => workers!.merge({ snapshot: Y.encodeStateAsUpdate(doc), updates: [] }, { measure: true })));
    merged.forEach((m, i) => {
      expect(canvasOf(m.state)).toEqual(renderCanvas(docs[i]));
      expect(m.bytes).toBe(measure(docs[i]));
    });
    expect(workers.stats().merge).toEqual({ worker: 6, thread: 0, failed: 0 });
  });

  it('refuse tasks once closed', async () => {
    const { stored } = storedDocument();
    workers = createDocumentWorkers({ workers: 1, log });
    await workers.merge(stored, { measure: false });
    await workers.close();
    await expect(workers.merge(stored, { measure: false })).rejects.toThrow(/closed/);
    const here = createDocumentWorkers({ workers: 0, log });
    await here.close();
    await expect(here.render(stored)).rejects.toThrow(/closed/);
  });
});
