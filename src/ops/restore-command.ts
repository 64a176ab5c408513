// npm run restore -- <backup folder> [--force]: restores a backup made by `npm run backup` into the (empty)
// deployment this environment (and .env) configures. docs/deploy.md, "Backup and restore".
import 'dotenv/config';
import { parseArgs } from 'node:util';
import { runOps, usage } from './cli.js';
import { restore } from './backup.js';

await runOps(async (config, log) => {
  const { values, positionals } = parseArgs({ options: { force: { type: 'boolean', default: false } }, allowPositionals: true });
  if (positionals.length !== 1) throw usage('npm run restore -- <backup folder> [--force]');
  await restore(config, { dir: positionals[0], force: values.force, log });
});
