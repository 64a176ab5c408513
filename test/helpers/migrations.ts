// Databases at an older migration, to test an upgrade: the migrations folder copied with its journal cut at a
// given tag, applied with drizzle's migrator (the service then applies the rest at start-up).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../drizzle');

/** Applies the migrations up to and including `lastTag` (e.g. `0004_payment_webhooks`). */
export async function migrateUpTo(url: string, lastTag: string): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-migrations-'));
  try {
    await fs.cp(MIGRATIONS, dir, { recursive: true });
    const journalFile = path.join(dir, 'meta', '_journal.json');
    const journal = JSON.parse(await fs.readFile(journalFile, 'utf8')) as { entries: { tag: string }[] };
    const last = journal.entries.findIndex((e) => e.tag === lastTag);
    if (last < 0) throw new Error(`no migration ${lastTag}`);
    journal.entries = journal.entries.slice(0, last + 1);
    await fs.writeFile(journalFile, JSON.stringify(journal));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migrate(drizzle(client), { migrationsFolder: dir });
    } finally {
      await client.end();
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
