// Users: created on first sign-in (SPEC §3), found on later ones, never duplicated even when two first
// sign-ins of one person race (the unique indexes decide; the loser reads the winner's row).
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/index.js';
import { users, type UserRow } from '../db/schema.js';

export interface SignInIdentity {
  provider: string;
  subject: string;
  email: string;
  name: string;
  image: string;
}

export interface UsersService {
  /** The user for this identity, created on first sign-in; null when the email belongs to another identity. */
  signIn(identity: SignInIdentity): Promise<UserRow | null>;
  findBySubject(provider: string, subject: string): Promise<UserRow | null>;
  findById(id: string): Promise<UserRow | null>;
}

export function createUsersService({ db }: { db: Db }): UsersService {
  const findBySubject = async (provider: string, subject: string) =>
    (await db.select().from(users).where(and(eq(users.provider, provider), eq(users.providerSubject, subject))))[0] ?? null;

  return {
    findBySubject,
    async findById(id) {
      return (await db.select().from(users).where(eq(users.id, id)))[0] ?? null;
    },
    async signIn(identity) {
      const existing = await findBySubject(identity.provider, identity.subject);
      if (existing) return existing;
      const email = identity.email.trim().toLowerCase();
      const [created] = await db
        .insert(users)
        .values({
          email,
          name: identity.name.slice(0, 200),
          image: identity.image.slice(0, 2048),
          provider: identity.provider,
          providerSubject: identity.subject,
        })
        .onConflictDoNothing()
        .returning();
      if (created) return created;
      // Lost a race with the same person's other sign-in, or the email is held by another identity.
      const again = await findBySubject(identity.provider, identity.subject);
      return again;
    },
  };
}
