// The users service on in-memory repositories: first sign-in creates, later ones find; a lost race reads the
// winner's row; an email held by another identity signs nobody in.
import { describe, expect, it } from 'vitest';
import type { UsersRepository } from '../../../src/db/repositories/index.js';
import { createUsersService } from '../../../src/services/users.js';
import { createFakeRepositories } from '../../fakes/repositories.js';

const identity = { provider: 'oauth', subject: 'sub-1', email: '  Ada@Example.COM ', name: 'Ada', image: 'https://example.com/a.png' };

describe('users service', () => {
  it('creates the user on first sign-in (email normalised) and finds the same row later', async () => {
    const repos = createFakeRepositories();
    const users = createUsersService({ users: repos.users });
    const created = await users.signIn(identity);
    expect(created).toMatchObject({ email: 'ada@example.com', name: 'Ada', provider: 'oauth', providerSubject: 'sub-1' });
    expect(await users.signIn({ ...identity, name: 'Changed' })).toEqual(created);
    expect(repos.state.users.size).toBe(1);
    expect(await users.findById(created!.id)).toEqual(created);
    expect(await users.findBySubject('oauth', 'sub-1')).toEqual(created);
  });

  it('losing a race with the same person’s other first sign-in answers the winner’s row', async () => {
    const repos = createFakeRepositories();
    let lookups = 0;
    // The other sign-in inserts between this one's lookup and its insert.
    const racing: UsersRepository = {
      ...repos.users,
      async findBySubject(provider, subject) {
        if (lookups++ === 0) {
          await repos.users.insertIfAbsent({ email: 'ada@example.com', name: 'Winner', image: '', provider, providerSubject: subject });
          return null;
        }
        return repos.users.findBySubject(provider, subject);
      },
    };
    const users = createUsersService({ users: racing });
    const row = await users.signIn(identity);
    expect(row).toMatchObject({ name: 'Winner', providerSubject: 'sub-1' });
    expect(repos.state.users.size).toBe(1);
    expect(lookups).toBe(2);
  });

  it('an email already held by another identity signs nobody in and creates nothing', async () => {
    const repos = createFakeRepositories();
    repos.addUser({ email: 'ada@example.com', providerSubject: 'someone-else' });
    const users = createUsersService({ users: repos.users });
    expect(await users.signIn(identity)).toBeNull();
    expect(repos.state.users.size).toBe(1);
  });
});
