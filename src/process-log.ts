// The process's own log lines when logs are JSON (production): everything the process prints is one JSON object per
// line, in the shape of the app's pino lines (`level` as pino's number, `time`, `pid`, `hostname`, `msg`, fields).
// Libraries that print with `console` (hocuspocus prints plain text with console.error/console.warn and takes no
// logger), Node's warnings, an unhandled rejection or exception and a refused configuration all become such lines.
// They are written to process.stdout, which server.ts also gives the app's logger: one writer, whole lines (stdout is
// synchronous for files and pipes on Linux), and the last lines before an exit are never lost.
import os from 'node:os';
import { format } from 'node:util';
import { serializeError } from './http/logging.js';

export type LogLevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LEVELS: Record<Exclude<LogLevelName, 'silent'>, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

export type ProcessLog = Record<Exclude<LogLevelName, 'silent'>, (fields: Record<string, unknown>, msg: string) => void>;

/** A logger writing pino-shaped JSON lines at `level` and above (an `err` field serialized as the app's are). */
export function processLog(level: LogLevelName, stream: NodeJS.WritableStream = process.stdout): ProcessLog {
  const least = level === 'silent' ? Infinity : LEVELS[level];
  const hostname = os.hostname();
  const write = (name: keyof typeof LEVELS) => (fields: Record<string, unknown>, msg: string) => {
    if (LEVELS[name] < least) return;
    const { err, ...rest } = fields;
    const line = { level: LEVELS[name], time: Date.now(), pid: process.pid, hostname, ...rest, ...(err !== undefined ? { err: serializeError(err) } : {}), msg };
    stream.write(`${JSON.stringify(line)}\n`);
  };
  return { trace: write('trace'), debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), fatal: write('fatal') };
}

const CONSOLE_LEVELS = { error: 'error', warn: 'warn', info: 'info', log: 'info', debug: 'debug', trace: 'trace' } as const;

/**
 * `console.error/warn/info/log/debug/trace` write one JSON line each (`source: "console"`): the message is the
 * arguments as console would format them, an Error among them logged as `err` (its stack in the field).
 */
export function routeConsole(log: ProcessLog): void {
  for (const [method, level] of Object.entries(CONSOLE_LEVELS)) {
    (console as unknown as Record<string, (...args: unknown[]) => void>)[method] = (...args: unknown[]) => {
      const err = args.find((a) => a instanceof Error);
      const rest = args.filter((a) => a !== err);
      const msg = rest.length > 0 ? format(...rest) : err instanceof Error ? err.message : '';
      log[level]({ source: 'console', ...(err ? { err } : {}) }, msg);
    };
  }
}

/**
 * Node's warnings, unhandled rejections and uncaught exceptions as JSON lines. Node's own printing of warnings (plain
 * text on stderr) is replaced; an unhandled rejection or uncaught exception is logged as fatal and the process exits
 * 1, as Node's default would after printing plain text.
 */
export function routeProcessEvents(log: ProcessLog): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => log.warn({ source: 'node', err: warning }, `${warning.name}: ${warning.message}`));
  process.on('unhandledRejection', (reason) => {
    log.fatal({ source: 'node', err: reason }, `unhandled rejection: ${reason instanceof Error ? reason.message : String(reason)}`);
    process.exit(1);
  });
  process.on('uncaughtException', (err) => {
    log.fatal({ source: 'node', err }, `uncaught exception: ${err.message}`);
    process.exit(1);
  });
}
