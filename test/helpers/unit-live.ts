// The live documents (src/collab/live-documents.ts) of a test that uses the services without the app: the real
// module over the given collab repository (in memory, or PostgreSQL), roles from the given sharing repository,
// never mounted (no socket: the session verifier knows nobody). Close it after each test. Whole-document work runs
// on the test's thread (COLLAB_WORKERS=0) unless `limits.workers` says otherwise: these tests wait for a compaction
// by turns of the event loop.
import { createProjectAccess } from '../../src/auth/project-access.js';
import { createLiveDocuments, type LiveDeps, type LiveDocuments, type LiveLimits } from '../../src/collab/live-documents.js';
import type { CollabRepository, SharingRepository } from '../../src/db/repositories/index.js';

export function createUnitLiveDocuments(
  repos: { collab: CollabRepository; sharing: Pick<SharingRepository, 'access'> },
  limits: Partial<LiveLimits> = {},
  metrics?: LiveDeps['metrics'],
): LiveDocuments {
  return createLiveDocuments({
    collab: repos.collab,
    accessOf: createProjectAccess({ sharing: repos.sharing }).accessOf,
    sessions: { verify: async () => null },
    origin: 'http://app.test',
    limits: {
      messageBytes: 1024 * 1024,
      updatesPerSecond: 100,
      nodes: 5_000,
      edges: 10_000,
      canvasBytes: 16 * 1024 * 1024,
      promptChars: 10_000,
      heldBytes: 64 * 1024 * 1024,
      restorePointMs: 5 * 60_000,
      storeDebounceMs: 2_000,
      storeMaxDebounceMs: 10_000,
      storeSpreadMs: 5_000,
      workers: 0,
      ...limits,
    },
    log: { warn: () => undefined, error: () => undefined },
    metrics,
  });
}
