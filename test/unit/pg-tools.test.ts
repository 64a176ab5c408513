// Choosing pg_dump / pg_restore by version (src/ops/pg-tools.ts): the newest one of at least the version needed,
// or an error naming that version, each one found and how to provide one.
import { describe, expect, it } from 'vitest';
import { findAll, majorOf, pickTool } from '../../src/ops/pg-tools.js';

describe('pg tools', () => {
  it('reads the major version of --version lines', () => {
    expect(majorOf('pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)')).toBe(15);
    expect(majorOf('pg_restore (PostgreSQL) 18.4')).toBe(18);
    expect(majorOf('pg_dump (PostgreSQL) 19devel')).toBe(19);
    expect(majorOf('something else')).toBeUndefined();
  });

  it('picks a pg_dump at least as new as the server, or names the version needed and every one found', async () => {
    const all = await findAll('pg_dump');
    if (process.env.CI === 'true') expect(all.length, 'pg_dump (Debian postgresql-client) must be installed in CI').toBeGreaterThan(0);
    if (all.length) {
      const newest = Math.max(...all.map((t) => t.major));
      expect((await pickTool('pg_dump', newest, 'test')).major).toBe(newest);
    }
    const found = all.map((t) => `pg_dump ${t.major} \\(${t.path}\\)`).join(', ');
    await expect(pickTool('pg_dump', 999, 'the database server is PostgreSQL 999.0')).rejects.toThrow(
      new RegExp(
        `^pg_dump 999 or newer is needed \\(the database server is PostgreSQL 999\\.0\\); ${all.length ? `found only ${found}` : 'found no pg_dump'}\\. ` +
          `Install PostgreSQL 999's client programs \\(e\\.g\\. the postgresql-client-999 package\\) and put them on PATH or name their folder in BACKUP_PG_BIN_DIR\\.$`,
      ),
    );
  });
});
