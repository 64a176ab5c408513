// Builds the React client (web/) into web/dist with Vite. `--if-needed` skips the build when web/dist is
// newer than every source of the client, so `npm start` only pays for a build after a change.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = path.join(root, 'web');
export const WEB_DIST = path.join(web, 'dist');
/** What the built client depends on, besides web/src/**: its config, the lock file, and the modules it shares with the server. */
const INPUTS = ['index.html', 'vite.config.ts', 'tsconfig.json']
  .map((f) => path.join(web, f))
  .concat(
    path.join(root, 'package-lock.json'),
    ...['src/auth/auth-errors.ts', 'src/collab/canvas-doc.ts', 'src/collab/canvas-rules.ts', 'src/collab/order-keys.ts', 'src/net/data-scheme.ts', 'client/index.ts', 'client/sse.ts', 'client/schema.d.ts'].map((f) => path.join(root, f)),
  );

async function mtime(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).mtimeMs;
  } catch {
    return 0;
  }
}

async function newestUnder(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, await mtime(path.join(entry.parentPath, entry.name)));
  }
  return newest;
}

/** True when web/dist is missing or older than a source of the client. */
export async function webBuildIsStale(): Promise<boolean> {
  const built = await mtime(path.join(WEB_DIST, 'index.html'));
  if (!built) return true;
  // The node kinds (src/kinds/) are shared with the client whole.
  const sources = Math.max(await newestUnder(path.join(web, 'src')), await newestUnder(path.join(root, 'src', 'kinds')), ...(await Promise.all(INPUTS.map(mtime))));
  return sources > built;
}

export async function buildWeb(opts: { ifNeeded?: boolean; quiet?: boolean } = {}): Promise<'built' | 'fresh'> {
  if (opts.ifNeeded && !(await webBuildIsStale())) return 'fresh';
  const started = Date.now();
  let build: typeof import('vite').build;
  try {
    ({ build } = await import('vite'));
  } catch {
    // An install without devDependencies: serve a build made earlier, if there is one.
    if (await mtime(path.join(WEB_DIST, 'index.html'))) {
      console.warn('vite is not installed (devDependencies): serving the existing web/dist as it is');
      return 'fresh';
    }
    throw new Error('web/dist is missing and vite is not installed: run `npm install` (with devDependencies), then `npm run build:web`');
  }
  await build({ configFile: path.join(web, 'vite.config.ts'), logLevel: opts.quiet ? 'warn' : 'info' });
  // Date the build by when it started, so a source edited while it ran still counts as newer.
  const startedAt = new Date(started);
  await fs.utimes(path.join(WEB_DIST, 'index.html'), startedAt, startedAt);
  if (!opts.quiet) console.log(`web client built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 'built';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const ifNeeded = process.argv.includes('--if-needed');
  const result = await buildWeb({ ifNeeded });
  if (result === 'fresh') console.log('web client is up to date (web/dist)');
}
