// The repositories on PostgreSQL (embedded, and the external server) against the repository contract that the
// services' in-memory fakes pass too (test/unit/repository-fakes.test.ts).
import { afterAll, beforeAll, describe } from 'vitest';
import { openDatabase, type Database } from '../../src/db/index.js';
import { createGenerationJobsRepository, createRepositories } from '../../src/db/repositories/index.js';
import type { ContractRepositories } from '../contract/repositories/index.js';
import { repositoryContract } from '../contract/repositories/index.js';
import { createOwnDatabase } from '../helpers/test-app.js';

describe('repositories on PostgreSQL', () => {
  let own: Awaited<ReturnType<typeof createOwnDatabase>>;
  let database: Database;
  let repos: ContractRepositories;
  beforeAll(async () => {
    own = await createOwnDatabase();
    database = await openDatabase({ url: own.url, poolSize: 4, statementTimeoutMs: 0, onError: () => undefined });
    repos = { ...createRepositories(database.db), generationJobs: createGenerationJobsRepository(database.db) };
  });
  afterAll(async () => {
    await database?.close();
    await own?.drop();
  });
  repositoryContract(() => repos);
});
