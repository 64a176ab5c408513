// npm run backup [-- --out <folder>]: the database and every stored object of the deployment this
// environment (and .env) configures, into a new folder under --out (default ./backups). docs/deploy.md,
// "Backup and restore".
import 'dotenv/config';
import { parseArgs } from 'node:util';
import { runOps } from './cli.js';
import { backup } from './backup.js';

await runOps(async (config, log) => {
  const { values } = parseArgs({ options: { out: { type: 'string', default: 'backups' } } });
  await backup(config, { outDir: values.out, log });
});
