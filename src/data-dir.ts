// Everything the embedded mode writes lives under DATA_DIR. One service process owns a DATA_DIR at a time:
// `lockDataDir` refuses a second one with a clear message and takes over a lock left by a crashed run.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `Another Image Canvas process (pid ${pid}) is already using the data folder ${dir}. ` +
        'Stop it first, or give this process its own DATA_DIR.',
    );
    this.name = 'DataDirLockedError';
  }
}

/** Whether a process with this pid exists (EPERM: it exists but is not ours to signal). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Take the DATA_DIR lock; returns the release function. */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  await fs.mkdir(dir, { recursive: true });
  const lockFile = path.join(dir, 'service.lock');
  const mine = `${process.pid}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    // Write the pid to a private temp file, then link it into place: the link is atomic and fails if a
    // lock exists, so two starting processes can never both win.
    const temp = `${lockFile}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await fs.writeFile(temp, mine);
    try {
      await fs.link(temp, lockFile);
      return async () => {
        const holder = await fs.readFile(lockFile, 'utf8').catch(() => '');
        if (holder === mine) await fs.rm(lockFile, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      await fs.rm(temp, { force: true });
    }
    const holder = Number((await fs.readFile(lockFile, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isProcessAlive(holder)) {
      throw new DataDirLockedError(dir, holder);
    }
    // Left by a crashed run (or unreadable): remove it and try again.
    await fs.rm(lockFile, { force: true });
  }
  throw new Error(`Could not take the lock on the data folder ${dir}.`);
}

/** A secret generated once and kept under DATA_DIR (mode 600), so it survives restarts. */
export async function persistentSecret(dir: string, name: string): Promise<string> {
  const file = path.join(dir, 'secrets', name);
  try {
    const value = (await fs.readFile(file, 'utf8')).trim();
    if (value.length >= 32) return value;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = randomBytes(32).toString('base64url');
  await fs.writeFile(file, value + '\n', { mode: 0o600 });
  return value;
}
