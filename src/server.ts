// The process entry: configuration → app → listen; graceful shutdown on SIGTERM/SIGINT. Nothing else.
import 'dotenv/config';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { tuneGarbageCollector } from './gc.js';
import { startBanner, terminalWarnings } from './start-banner.js';
import { processLog, routeConsole, routeProcessEvents, type LogLevelName, type ProcessLog } from './process-log.js';

/** Set once the log format is known: JSON lines (production) route everything the process prints through it. */
let jsonLog: ProcessLog | undefined;

/** Whether logs are JSON lines, as the config would decide (known also when the config is refused). */
const jsonLogs = (env: NodeJS.ProcessEnv) => env.LOG_FORMAT === 'json' || (env.LOG_FORMAT !== 'pretty' && (env.NODE_ENV === 'production' || !process.stdout.isTTY));

async function main() {
  tuneGarbageCollector();
  if (jsonLogs(process.env)) {
    // LOG_LEVEL=silent still tells why the process stops (a refused configuration, a failed start): fatal lines only.
    const level = (['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const).find((l) => l === process.env.LOG_LEVEL) ?? (process.env.LOG_LEVEL === 'silent' ? 'fatal' : 'info');
    jsonLog = processLog(level satisfies LogLevelName);
    routeConsole(jsonLog);
    routeProcessEvents(jsonLog);
  }
  let loaded;
  try {
    loaded = loadConfig(process.env, { stdoutIsTTY: process.stdout.isTTY });
  } catch (err) {
    if (err instanceof ConfigError) {
      if (jsonLog) jsonLog.fatal({ problems: err.problems }, err.message);
      else console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const { config } = loaded;
  // A person's terminal (pretty logs) gets the local defaults and optional services in the banner below, in words.
  const pretty = config.logFormat === 'pretty';
  const warnings = pretty ? terminalWarnings(loaded) : loaded.warnings;
  // JSON lines: the app's logger writes to the same stdout as the lines above (one writer, whole lines).
  const app = await buildApp(config, config.logFormat === 'json' && jsonLog ? { logStream: process.stdout } : {});
  app.log.info(pretty ? {} : { node: process.version }, `running on Node ${process.version}`);
  for (const warning of warnings) app.log.warn(warning);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info(`${signal}: finishing in-flight requests (up to ${config.shutdownGraceMs} ms)`);
    const force = setTimeout(() => {
      app.log.error('grace period over: exiting with requests still in flight');
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    // Keep-alive connections would hold close() open for their whole idle timeout: close each one as soon as
    // it has no request in flight (in-flight requests finish and are answered first).
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    sweep.unref();
    try {
      await app.close(); // stops accepting, waits for in-flight requests, then closes the database
      process.exit(0);
    } catch (err) {
      app.log.error(err);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Image Canvas is serving ${config.baseUrl}`);
  if (pretty && config.logLevel !== 'silent') process.stdout.write(`\n${startBanner(loaded).join('\n')}\n\n`);
}

main().catch((err) => {
  if (jsonLog) jsonLog.fatal({ err }, `not started: ${err instanceof Error ? err.message : String(err)}`);
  else console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
