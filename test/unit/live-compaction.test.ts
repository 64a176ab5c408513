// When live documents are compacted (src/collab/live-documents.ts): a compaction that comes due while a document is
// being edited waits a random part of COLLAB_COMPACT_SPREAD_MS, so documents opened together are not compacted in one
// burst; the wait never holds up shutdown, and a spread of 0 compacts at once. In-memory repositories, the real module.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveDocuments } from '../../src/collab/live-documents.js';
import { canvasMaps } from '../../src/collab/canvas-doc.js';
import * as Y from 'yjs';
import { createFakeRepositories, type FakeRepositories } from '../fakes/repositories.js';
import { createUnitLiveDocuments } from '../helpers/unit-live.js';

let live: LiveDocuments | undefined;
afterEach(async () => {
  await live?.close();
  live = undefined;
});

/** A project with a document; `compactions` counts the repository's compactions that merged something. */
async function setUp(spreadMs: number) {
  const repos: FakeRepositories = createFakeRepositories();
  const owner = repos.addUser({ email: 'ada@example.com' }).id;
  const projectId = (await repos.projects.insert({ userId: owner, name: 'P' }))!.id;
  const merged: number[] = [];
  const compact = repos.collab.compact.bind(repos.collab);
  repos.collab.compact = async (id, restorePointMs) => {
    const n = await compact(id, restorePointMs);
    if (n > 0) merged.push(n);
    return n;
  };
  // Every change is "due" at once (maxDebounce 0) and counts as editing (the debounce is long): each one starts a
  // compaction that waits its spread.
  live = createUnitLiveDocuments(repos, { storeDebounceMs: 3_600_000, storeMaxDebounceMs: 0, storeSpreadMs: spreadMs });
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
});
