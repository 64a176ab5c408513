// The in-memory repositories of the services' unit tests (test/fakes/repositories.ts) against the repository
// contract that the real ones pass on PostgreSQL (test/api/repositories.test.ts).
import { beforeAll, describe } from 'vitest';
import { repositoryContract } from '../contract/repositories/index.js';
import { createFakeRepositories, type FakeRepositories } from '../fakes/repositories.js';

describe('in-memory repository fakes', () => {
  let fakes: FakeRepositories;
  beforeAll(() => {
    fakes = createFakeRepositories();
  });
  repositoryContract(() => fakes);
});
