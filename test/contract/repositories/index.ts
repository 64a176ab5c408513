// One contract for the repositories, run against the real ones on PostgreSQL (test/api/repositories.test.ts, both
// database projects) and against the in-memory fakes the services' unit tests use (test/unit/repository-fakes.test.ts),
// so a fake that drifts from the real repository fails here rather than letting a unit test pass for the wrong reason.
import { canvasesContract } from './canvases.contract.js';
import { collabContract } from './collab.contract.js';
import { generationsContract } from './generations.contract.js';
import type { RepositoriesUnderTest } from './harness.js';
import { projectsContract } from './projects.contract.js';
import { receiptsContract } from './receipts.contract.js';
import { sharingContract } from './sharing.contract.js';
import { subscriptionsContract } from './subscriptions.contract.js';
import { templatesContract } from './templates.contract.js';
import { usersContract } from './users.contract.js';

export type { ContractRepositories, RepositoriesUnderTest } from './harness.js';

export function repositoryContract(repos: RepositoriesUnderTest): void {
  usersContract(repos);
  subscriptionsContract(repos);
  projectsContract(repos);
  canvasesContract(repos);
  collabContract(repos);
  generationsContract(repos);
  sharingContract(repos);
  templatesContract(repos);
  receiptsContract(repos);
}
