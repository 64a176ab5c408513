// The load test's tables: what the editors saw, and where the CPU went, one row per step.
import os from 'node:os';
import type { StepResult } from './protocol.js';
import type { Stalls } from './stalls.js';

/** Resource use of one step's load window (ticks + drain, not the read-back), in cores (CPU s per s). */
export interface StepResources {
  wallS: number;
  /** Event-loop utilisation of the service's thread (1 = never idle). */
  serverElu: number;
  /** The service's process, all threads (event loop, libuv pool, GC helpers). */
  serverCpu: number;
  /** The service's write system calls per second (socket writes: a frame, or a turn's frames to one socket, each). */
  serverWritesPerS: number;
  postgresCpu: number;
  clientCpu: number;
  /** Everything busy on the machine minus the three above (kernel networking lands partly here). */
  otherCpu: number;
  machineBusy: number;
  /** The service's resident memory (this process: the service runs in the orchestrator) when the window ended, and its peak. */
  serverRssMiB: number;
  serverRssPeakMiB: number;
  /** The service's V8 heap and buffers (external) live when the window ended, after a full collection. */
  serverHeapMiB: number;
  /** The service's event-loop delay and GC pauses over the window. */
  serverStalls: Stalls;
  /** PostgreSQL's view (postgres.ts): the service's connections in a statement or a transaction, on average. */
  pgBusyAvg: number;
  /** PostgreSQL's view (postgres.ts): the service's statements running at once, and what they waited on. */
  pgActiveAvg: number;
  pgWaits: Array<[string, number]>;
  walMiBPerS: number;
  checkpoints: number;
}

export interface Measured {
  result: StepResult;
  resources: StepResources;
  pass: boolean;
  /** Failed while other work competed for the cores, and was run again (the rerun counts instead). */
  rerun?: boolean;
}

/** A markdown table whose columns are padded so it also reads as plain text; `right` marks numeric columns. */
export function markdownTable(header: string[], rows: string[][], right: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (c: string[]) => `| ${c.map((v, i) => (right[i] ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(1) : n.toFixed(0)) : '–');
const cores = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');

export function resultsTable(measured: Measured[], p99LimitMs: number): string {
  const header = ['editors', 'duration s', 'saves', 'saves/s', 'p50 ms', 'p99 ms', 'late ticks', 'errors', 'lost saves', `verdict (p99 < ${p99LimitMs} ms)`];
  const rows = measured.map(({ result: r, pass, rerun }) => [
    String(r.editors),
    String(r.durationMs / 1000),
    String(r.saves),
    (r.saves / (r.durationMs / 1000)).toFixed(0),
    ms(r.p50Ms),
    ms(r.p99Ms),
    String(r.late),
    String(r.errors + r.verifyErrors),
    String(r.lost),
    pass ? '✓' : rerun ? '✗ (machine busy: run again, next row)' : '✗',
  ]);
  return markdownTable(header, rows, [true, true, true, true, true, true, true, true, true, false]);
}

export function resourcesTable(measured: Measured[]): string {
  const header = ['editors', 'server thread busy', 'service CPU', 'PostgreSQL CPU', 'client CPU', 'other CPU', 'machine busy', 'DB connections busy avg', 'PG active avg', 'PG active: waiting on', 'WAL MiB/s', 'p90 ms', 'max ms', 'p99 from send ms', 'client timer lag p99 ms'];
  const rows = measured.map(({ result: r, resources: x, rerun }) => [
    `${r.editors}${rerun ? ' (busy)' : ''}`,
    `${(x.serverElu * 100).toFixed(0)} %`,
    cores(x.serverCpu),
    cores(x.postgresCpu),
    cores(x.clientCpu),
    cores(x.otherCpu),
    `${cores(x.machineBusy)} of ${os.cpus().length}`,
    x.pgBusyAvg.toFixed(1),
    x.pgActiveAvg.toFixed(1),
    x.pgWaits.slice(0, 3).map(([w, share]) => `${w} ${(share * 100).toFixed(0)} %`).join(', ') || '–',
    `${x.walMiBPerS.toFixed(1)}${x.checkpoints ? ` (${x.checkpoints} checkpoint${x.checkpoints > 1 ? 's' : ''})` : ''}`,
    ms(r.p90Ms),
    ms(r.maxMs),
    ms(r.sendP99Ms),
    ms(r.timerLagP99Ms),
  ]);
  return markdownTable(header, rows, header.map((h) => h !== 'PG active: waiting on'));
}
