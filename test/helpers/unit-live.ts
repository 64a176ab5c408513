// The live documents (src/collab/live-documents.ts) of a service unit test: the real module over the in-memory
// collab repository, roles from the fake sharing repository, never mounted (no socket: the session verifier
// knows nobody). Close it after each test.
import { createLiveDocuments, type LiveDocuments } from '../../src/collab/live-documents.js';
import type { FakeRepositories } from '../fakes/repositories.js';

export function createUnitLiveDocuments(repos: Pick<FakeRepositories, 'collab' | 'sharing'>): LiveDocuments {
  return createLiveDocuments({
    collab: repos.collab,
    roleOf: async (userId, projectId) => (await repos.sharing.access(userId, projectId))?.role ?? null,
    sessions: { verify: async () => null },
    origin: 'http://app.test',
    limits: {
      messageBytes: 1024 * 1024,
      updatesPerSecond: 100,
      nodes: 5_000,
      edges: 10_000,
      heldBytes: 64 * 1024 * 1024,
      restorePointMs: 5 * 60_000,
      storeDebounceMs: 2_000,
      storeMaxDebounceMs: 10_000,
    },
    log: { warn: () => undefined, error: () => undefined },
  });
}
