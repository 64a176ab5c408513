// When live documents are compacted (src/collab/live-documents.ts): a compaction that comes due while a document is
// being edited waits a random part of COLLAB_COMPACT_SPREAD_MS, so documents opened together are not compacted in one
// burst; the wait never holds up shutdown, and a spread of 0 compacts at once. While people edit, a log small against
// the document is left for later (COLLAB_COMPACT_LOG_RATIO) unless a restore point is due. In-memory repositories, the
// real module.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveDocuments, LiveLimits, OpenDocument } from '../../src/collab/live-documents.js';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import * as Y from 'yjs';
import { createFakeRepositories, type FakeRepositories } from '../fakes/repositories.js';
import { createUnitLiveDocuments } from '../helpers/unit-live.js';
import type { CompactionResult } from '../../src/metrics.js';

let live: LiveDocuments | undefined;
afterEach(async () => {
  await live?.close();
  live = undefined;
});

/**
 * A project with a document; `merged` counts the repository's compactions that merged something; `metrics`, when
 * given, is told of every compaction that came due.
 */
async function setUp(spreadMs: number, limits: Partial<LiveLimits> = {}, metrics?: Parameters<typeof createUnitLiveDocuments>[2]) {
  const repos: FakeRepositories = createFakeRepositories();
  const owner = repos.addUser({ email: 'ada@example.com' }).id;
  const projectId = (await repos.projects.insert({ userId: owner, name: 'P' }))!.id;
  const merged: number[] = [];
  const compact = repos.collab.compact.bind(repos.collab);
  repos.collab.compact = async (id, options) => {
    const n = await compact(id, options);
    if (n > 0) merged.push(n);
    return n;
  };
  // Every change is "due" at once (maxDebounce 0) and counts as editing (the debounce is long): each one starts a
  // compaction that waits its spread.
  live = createUnitLiveDocuments(repos, { storeDebounceMs: 3_600_000, storeMaxDebounceMs: 0, storeSpreadMs: spreadMs, ...limits }, metrics);
  return { projectId, merged, log: () => repos.collab.load(projectId) };
}

const addNode = (doc: Y.Doc) => {
  const node = new Y.Map<unknown>();
  node.set('type', 'upload');
  canvasMaps(doc).nodes.set(randomUUID(), node);
};

describe('compacting a document while it is edited', () => {
  it('with no spread, a change due for compaction is merged into the snapshot at once', async () => {
    const { projectId, merged, log } = await setUp(0);
    const document = await live!.open(projectId);
    await document.change(addNode);
    await live!.settled(projectId);
    // The compaction runs after the change is stored; wait for it by its result, bounded.
    for (let i = 0; i < 200 && merged.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(merged.length).toBeGreaterThan(0);
    expect((await log()).updates).toHaveLength(0);
    await document.close();
  });

  it('with an hour of spread, nothing is compacted while the document is open; the last connection leaving compacts at once', async () => {
    const { projectId, merged, log } = await setUp(3_600_000);
    const document = await live!.open(projectId);
    const other = await live!.open(projectId);
    await document.change(addNode);
    await other.change(addNode);
    await live!.settled(projectId);
    await document.close(); // one connection is left: still being edited
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(merged).toEqual([]);
    expect((await log()).updates).toHaveLength(2);
    // Closing the last one neither waits for the spread (it would not return within the test) nor leaves the log.
    await other.close();
    expect((await log()).updates).toHaveLength(0);
    expect(merged).toEqual([2]);
  });

  it('closing the service compacts a document whose compaction was put off, without waiting for it', async () => {
    const { projectId, merged, log } = await setUp(3_600_000);
    const document = await live!.open(projectId);
    await document.change(addNode);
    await live!.settled(projectId);
    expect(merged).toEqual([]);
    await live!.close();
    live = undefined;
    expect((await log()).updates).toHaveLength(0);
    expect(merged).toEqual([1]);
  });

  it('closing the service compacts what is open in the worker threads (COLLAB_WORKERS=1), and only then ends them', async () => {
    const { projectId, merged, log } = await setUp(3_600_000, { workers: 1 });
    const document = await live!.open(projectId);
    await document.change(addNode);
    await live!.settled(projectId);
    const closing = live!;
    live = undefined;
    await closing.close();
    expect(merged).toEqual([1]);
    expect((await log()).updates).toHaveLength(0);
    expect(closing.documentTasks().merge).toEqual({ worker: 1, thread: 0, failed: 0 });
  });
});

describe('compacting a large document while it is edited (COLLAB_COMPACT_LOG_RATIO)', () => {
  /** A canvas of `n` nodes with some text each: a document of a few tens of kilobytes. */
  const addNodes = (n: number) => (doc: Y.Doc) => {
    for (let i = 0; i < n; i++) {
      const node = new Y.Map<unknown>();
      node.set('type', 'generation');
      node.set('prompt', `a prompt of some length for node ${i}, so that the document is large against one edit`);
      canvasMaps(doc).nodes.set(`n${i}`, node);
    }
  };
  const move = (i: number) => (doc: Y.Doc) => (canvasMaps(doc).nodes.get('n0') as Y.Map<unknown>).set('position', { x: i, y: i });
  /** Makes a change and lets the compaction its store may have started run (a few turns: no timer with no spread). */
  const changed = async (document: OpenDocument, projectId: string, fn: (doc: Y.Doc) => void) => {
    await document.change(fn);
    await live!.settled(projectId);
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('leaves a small log while people edit, merges it once it reaches the ratio, and when the last one leaves', async () => {
    const { projectId, merged, log } = await setUp(0, { compactLogRatio: 0.05 });
    const document = await live!.open(projectId);
    await changed(document, projectId, addNodes(200)); // the whole document is log: merged
    expect(merged).toEqual([1]);
    const size = (await log()).snapshot!.byteLength;
    // One move is far below 5 % of the document: it stays in the log.
    await changed(document, projectId, move(1));
    expect(merged).toEqual([1]);
    expect((await log()).updates).toHaveLength(1);
    // Moves until the log comes to 5 % of the document: then it is merged, and not before.
    const perMove = (await log()).updates[0].byteLength;
    let moves = 1;
    while (merged.length === 1 && moves < 5_000) {
      await changed(document, projectId, move(++moves));
    }
    expect(merged).toEqual([1, moves]);
    expect((await log()).updates).toHaveLength(0);
    expect(moves * perMove).toBeGreaterThanOrEqual(0.05 * size * 0.9);
    expect((moves - 1) * perMove).toBeLessThan(0.05 * size * 1.1);
    // A small log again, merged at once when the last connection leaves.
    await document.change(move(0));
    await live!.settled(projectId);
    await document.close();
    expect(merged).toEqual([1, moves, 1]);
    expect((await log()).updates).toHaveLength(0);
  });

  it('merges even a small log when a restore point is due (COLLAB_RESTORE_POINT_MINUTES since the last compaction)', async () => {
    const { projectId, merged, log } = await setUp(0, { compactLogRatio: 0.05, restorePointMs: 0 });
    const document = await live!.open(projectId);
    await changed(document, projectId, addNodes(200));
    await changed(document, projectId, move(1));
    expect(merged).toEqual([1, 1]);
    expect((await log()).updates).toHaveLength(0);
    await document.close();
  });

  it('counts each compaction that came due in the metrics: merged, or skipped while the log was small', async () => {
    const results: CompactionResult[] = [];
    const { projectId } = await setUp(0, { compactLogRatio: 0.05 }, { compaction: (result) => results.push(result) });
    const document = await live!.open(projectId);
    await changed(document, projectId, addNodes(200));
    await changed(document, projectId, move(1));
    expect(results).toEqual(['merged', 'skipped']);
    await document.close();
    expect(results).toEqual(['merged', 'skipped', 'merged']);
  });

  it('with a ratio of 0, every compaction that comes due runs', async () => {
    const { projectId, merged } = await setUp(0, { compactLogRatio: 0 });
    const document = await live!.open(projectId);
    await changed(document, projectId, addNodes(200));
    await changed(document, projectId, move(1));
    expect(merged).toEqual([1, 1]);
    await document.close();
  });
});
