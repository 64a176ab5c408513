// What the repository contract suites run against: the real repositories on PostgreSQL
// (test/api/repositories.test.ts) or the in-memory fakes of the services' unit tests (test/fakes/repositories.ts,
// test/unit/repository-fakes.test.ts). One set of repositories serves a whole suite, so each test makes its own
// users and projects and asserts only about them.
import { randomUUID } from 'node:crypto';
import type { GenerationJobsRepository, NewGeneration, NewGenerationJob, Repositories } from '../../../src/db/repositories/index.js';
import type { ProjectRow, UserRow } from '../../../src/db/schema.js';

/** The repositories the fakes implement, and of the generation jobs what the others read (a job's state). */
export type ContractRepositories = Omit<Repositories, 'rateLimits' | 'versions' | 'apiTokens' | 'generationsGallery'> & {
  generationJobs: Pick<GenerationJobsRepository, 'insert' | 'markRunning' | 'finish'>;
};

/** The repositories under test (read when a test runs: the runner makes them in its beforeAll). */
export type RepositoriesUnderTest = () => ContractRepositories;

export async function newUser(r: ContractRepositories, values: { email?: string; name?: string; image?: string } = {}): Promise<UserRow> {
  const user = await r.users.insertIfAbsent({
    email: values.email ?? `u-${randomUUID()}@example.com`,
    name: values.name ?? 'Ann',
    image: values.image ?? '',
    provider: 'oauth',
    providerSubject: randomUUID(),
  });
  if (!user) throw new Error('could not make a user');
  return user;
}

export async function newProject(r: ContractRepositories, userId: string, name = 'Project'): Promise<ProjectRow> {
  const project = await r.projects.insert({ userId, name });
  if (!project) throw new Error('could not make a project');
  return project;
}

export const newGeneration = (user: Pick<UserRow, 'id' | 'email'>, values: Partial<NewGeneration> = {}): NewGeneration => ({
  id: randomUUID(),
  userId: user.id,
  userEmail: user.email,
  prompt: 'a red cat',
  inputImages: [],
  outputImageUrl: `/files/${randomUUID()}.png`,
  model: 'local',
  ...values,
});

/** A job of the user, queued (into the project's node `n1` with `projectId`); its id. */
export async function newJob(r: ContractRepositories, userId: string, projectId?: string): Promise<string> {
  const job: NewGenerationJob = { id: `job_${randomUUID()}`, taskKind: 'generation', userId, prompt: 'p', images: [], projectId: projectId ?? null, nodeId: projectId ? 'n1' : null, model: 'local', createdAt: new Date(), queuePriority: 1 };
  if (!(await r.generationJobs.insert(job))) throw new Error('could not make a job');
  return job.id;
}

/** A running job of the user (its heartbeat now); with `reservedUsd`, holding that much of the free quota. */
export async function runningJob(r: ContractRepositories, userId: string, reservedUsd?: number): Promise<string> {
  const id = await newJob(r, userId);
  if ((await r.generationJobs.markRunning(id)) !== 1) throw new Error('could not start a job');
  if (reservedUsd !== undefined && !(await r.generations.reserve(id, reservedUsd))) throw new Error('could not reserve');
  return id;
}

/** Ends a running job (its first run) as succeeded. */
export const endJob = (r: ContractRepositories, id: string) => r.generationJobs.finish(id, 1, { status: 'succeeded' });

/** The error a call rejects with. */
export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );
}

// The calls that take an actor (src/db/repositories/project-access.ts), made as a signed-in user, in one place.

/** The canvas row, the user's role and whether a generation is running, as `userId` sees them. */
export const currentCanvas = (r: ContractRepositories, userId: string, projectId: string) => r.canvases.current({ userId }, projectId);

/** Makes the project's empty canvas row if `userId` may write the project (owner or editor). */
export const createEmptyCanvas = (r: ContractRepositories, canvas: { id: string; projectId: string; userId: string }) => r.canvases.createEmpty({ ...canvas, writers: ['owner', 'editor'] });

/** The user's role on the project and its owner. */
export const accessOf = (r: ContractRepositories, userId: string, projectId: string) => r.sharing.access({ userId }, projectId);
