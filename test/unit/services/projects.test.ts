// The projects service on in-memory repositories: ownership, 401 for a user that no longer exists, 404s.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { createProjectAccess } from '../../../src/auth/project-access.js';
import { AppError } from '../../../src/errors.js';
import { createProjectsService, type ProjectsService } from '../../../src/services/projects.js';
import { createFakeRepositories, type FakeRepositories } from '../../fakes/repositories.js';

let repos: FakeRepositories;
let projects: ProjectsService;
let ada: string;
let bob: string;

beforeEach(() => {
  repos = createFakeRepositories();
  projects = createProjectsService({ projects: repos.projects, access: createProjectAccess({ sharing: repos.sharing }) });
  ada = repos.addUser({ email: 'ada@example.com' }).id;
  bob = repos.addUser({ email: 'bob@example.com' }).id;
});

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: unknown) => (err instanceof AppError ? err.code : err),
  );

describe('projects service', () => {
  it('creates and lists a user’s projects in creation order (oldest first), and only theirs', async () => {
    const first = await projects.create(ada, 'First');
    const second = await projects.create(ada, 'Second');
    await projects.create(bob, 'Bob’s');
    expect(first).toMatchObject({ userId: ada, name: 'First' });
    expect((await projects.list(ada)).map((p) => p.id)).toEqual([first.id, second.id]);
    expect((await projects.list(bob)).map((p) => p.name)).toEqual(['Bob’s']);
  });

  it('a session whose user no longer exists gets 401 (unauthorized) and creates nothing', async () => {
    expect(await code(projects.create(randomUUID(), 'Ghost'))).toBe('unauthorized');
    expect(repos.state.projects.size).toBe(0);
  });

  it('renames and removes only the owner’s project; another user’s looks missing (project_not_found, 404)', async () => {
    const mine = await projects.create(ada, 'Mine');
    expect(await code(projects.rename(bob, mine.id, 'Stolen'))).toBe('project_not_found');
    expect(await code(projects.remove(bob, mine.id))).toBe('project_not_found');
    expect(repos.state.projects.get(mine.id)?.name).toBe('Mine');

    expect(await projects.rename(ada, mine.id, 'Renamed')).toMatchObject({ id: mine.id, name: 'Renamed' });
    await projects.remove(ada, mine.id);
    expect(await projects.list(ada)).toEqual([]);
    expect(await code(projects.remove(ada, mine.id))).toBe('project_not_found');
  });

  it('an id that is not a uuid is a missing project', async () => {
    expect(await code(projects.rename(ada, 'not-a-uuid', 'x'))).toBe('project_not_found');
    expect(await code(projects.remove(ada, "1' OR '1'='1"))).toBe('project_not_found');
  });
});
