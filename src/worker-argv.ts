// Node options for the service's workers (tinypool: the image worker processes, src/imaging/pool.ts; the live
// documents' worker threads, src/collab/document-workers.ts): the service's own (memory flags and the like), plus the
// TypeScript loader when the worker's file is TypeScript and the service was not started through tsx (tests: tsx
// resolves our `.js` import specifiers to the `.ts` files).
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The options a worker running `worker` (its file's URL) starts with. */
export function workerExecArgv(worker: URL): string[] {
  const own = process.execArgv.filter((arg) => !arg.startsWith('--inspect'));
  if (extname(worker.pathname) !== '.ts' || own.some((arg) => arg.includes('tsx'))) return own;
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return [...own, '--import', loader];
}
