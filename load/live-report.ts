// The live mode's tables: what the editors saw, and where the CPU and memory went, one row per step.
import os from 'node:os';
import type { LiveStepResult } from './live-protocol.js';
import type { RunsDuringStep } from './live-runs.js';
import { markdownTable, type StepResources } from './report.js';

export interface LiveMeasured {
  result: LiveStepResult;
  resources: StepResources;
  pass: boolean;
  /** Failed while other work competed for the cores, and was run again (the rerun counts instead). */
  rerun?: boolean;
  /** Per open document (its sockets included): the service's RSS growth over the step (RSS is not given back, so only a first step's counts), and its live heap and buffers after a full collection, less before the documents opened. */
  perDocument?: { rssKiB: number; heapKiB: number };
  /** LOAD_RUNS: the graph runs started during the step (absent: none). */
  runs?: RunsDuringStep;
  /** LOAD_RUNS: the step without runs measured before the same step with them (it does not decide the verdict). */
  baseline?: boolean;
}

/** The editors cell: the count, and whether graph runs went on (LOAD_RUNS). */
const editorsCell = ({ result, runs, baseline }: LiveMeasured) =>
  `${result.editors}${runs ? ` + runs every ${runs.everySeconds} s${runs.rooms ? ` in ${runs.rooms} rooms` : ''}` : baseline ? ' (no runs)' : ''}`;

const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(1) : n.toFixed(0)) : '–');
const cores = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');

export function liveResultsTable(measured: LiveMeasured[], p99LimitMs: number): string {
  const header = ['editors', 'rooms', 'duration s', 'edits', 'edits/s', 'p50 ms', 'p99 ms', 'errors', 'lost edits', `verdict (p99 < ${p99LimitMs} ms)`];
  const rows = measured.map(({ result: r, pass, rerun, baseline }, i) => [
    editorsCell(measured[i]),
    String(r.rooms),
    String(r.durationMs / 1000),
    String(r.edits),
    (r.edits / (r.durationMs / 1000)).toFixed(0),
    ms(r.p50Ms),
    ms(r.p99Ms),
    String(r.errors),
    String(r.lost),
    (pass ? '✓' : rerun ? '✗ (machine busy: run again, next row)' : '✗') + (baseline ? ' (baseline)' : ''),
  ]);
  return markdownTable(header, rows, [true, true, true, true, true, true, true, true, true, false]);
}

export function liveResourcesTable(measured: LiveMeasured[]): string {
  const header = [
    'editors',
    'server thread busy',
    'service CPU',
    'service RSS MiB (end / peak)',
    'per open document KiB (RSS growth / live heap + buffers)',
    'service writes/s',
    'PostgreSQL CPU',
    'WAL MiB/s',
    'client CPU',
    'other CPU',
    'machine busy',
    'DB connections busy avg',
    'PG active: waiting on',
    'p90 ms',
    'max ms',
    'ack p50 / p99 ms',
    'loop delay p99 / max ms: service; client',
    'GC max ms: service; client',
    'client timer lag p99 ms',
    'connect s',
    'update bytes',
  ];
  const rows = measured.map(({ result: r, resources: x, rerun }, i) => [
    `${editorsCell(measured[i])}${rerun ? ' (busy)' : ''}`,
    `${(x.serverElu * 100).toFixed(0)} %`,
    cores(x.serverCpu),
    `${x.serverRssMiB.toFixed(0)} / ${x.serverRssPeakMiB.toFixed(0)}`,
    measured[i].perDocument ? `${measured[i].perDocument.rssKiB.toFixed(0)} / ${measured[i].perDocument.heapKiB.toFixed(0)}` : '–',
    Number.isFinite(x.serverWritesPerS) ? x.serverWritesPerS.toFixed(0) : '–',
    cores(x.postgresCpu),
    `${x.walMiBPerS.toFixed(2)}${x.checkpoints ? ` (${x.checkpoints} checkpoint${x.checkpoints > 1 ? 's' : ''})` : ''}`,
    cores(x.clientCpu),
    cores(x.otherCpu),
    `${cores(x.machineBusy)} of ${os.cpus().length}`,
    x.pgBusyAvg.toFixed(1),
    x.pgWaits.slice(0, 3).map(([w, share]) => `${w} ${(share * 100).toFixed(0)} %`).join(', ') || '–',
    ms(r.p90Ms),
    ms(r.maxMs),
    `${ms(r.ackP50Ms)} / ${ms(r.ackP99Ms)}`,
    `${ms(x.serverStalls.loopDelayP99Ms)} / ${ms(x.serverStalls.loopDelayMaxMs)}; ${ms(r.clientStalls.loopDelayP99Ms)} / ${ms(r.clientStalls.loopDelayMaxMs)}`,
    `${ms(x.serverStalls.gcMaxMs)}; ${ms(r.clientStalls.gcMaxMs)}`,
    ms(r.timerLagP99Ms),
    (r.connectMs / 1000).toFixed(1),
    Number.isFinite(r.updateBytes) ? r.updateBytes.toFixed(0) : '–',
  ]);
  return markdownTable(header, rows, header.map((h) => h !== 'PG active: waiting on'));
}
