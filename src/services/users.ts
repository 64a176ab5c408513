// Users: created on first sign-in (isPro false), found on later ones, never duplicated even when two first
// sign-ins of one person race (the unique indexes decide; the loser reads the winner's row).
import type { SignInUsers } from '../auth/authjs.js';
import type { UsersRepository } from '../db/repositories/index.js';

/** Sign-in's users (src/auth/authjs.ts says what sign-in needs; this service is all of it). */
export type UsersService = SignInUsers;

export interface UsersDeps {
  users: Pick<UsersRepository, 'findById' | 'findBySubject' | 'insertIfAbsent'>;
}

export function createUsersService({ users }: UsersDeps): UsersService {
  const findBySubject = (provider: string, subject: string) => users.findBySubject(provider, subject);

  return {
    findBySubject,
    findById: (id) => users.findById(id),
    async signIn(identity) {
      const existing = await findBySubject(identity.provider, identity.subject);
      if (existing) return existing;
      const email = identity.email.trim().toLowerCase();
      const created = await users.insertIfAbsent({
        email,
        name: identity.name.slice(0, 200),
        image: identity.image.slice(0, 2048),
        provider: identity.provider,
        providerSubject: identity.subject,
      });
      if (created) return created;
      // Lost a race with the same person's other sign-in, or the email is held by another identity.
      const again = await findBySubject(identity.provider, identity.subject);
      return again;
    },
  };
}
