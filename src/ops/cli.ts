// The shared frame of the operations commands (scripts/backup.ts, scripts/restore.ts): the service's
// configuration from the environment, progress lines on stdout, and one clear line on stderr with a non-zero
// exit code on failure (2 for a refusal).
import { ConfigError, loadConfig, type Config } from '../config.js';
import { OpsError, type Log } from './backup.js';

export const usage = (text: string) => new OpsError(`usage: ${text}`, 64);

export async function runOps(fn: (config: Config, log: Log) => Promise<void>): Promise<void> {
  const log: Log = (line) => process.stdout.write(`${line}\n`);
  try {
    const { config } = loadConfig(process.env);
    await fn(config, log);
  } catch (err) {
    const parseArgs = (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ?? false;
    const known = err instanceof OpsError || err instanceof ConfigError || parseArgs;
    process.stderr.write(`error: ${known ? (err as Error).message : ((err as Error).stack ?? String(err))}\n`);
    process.exitCode = err instanceof OpsError ? err.exitCode : 1;
  }
}
