// What both modes of `npm run load` share (run.ts: REST editors; live-run.ts: live editors over WebSockets):
// settings from the environment, the load client's child process, the wall-time cap, the wait for quiet cores
// before a step, and the resource window of a step (service, PostgreSQL, client and machine CPU, the service's
// RSS, PostgreSQL's own view).
import { fork, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { PgWatch } from './postgres.js';
import { startProfile } from './profile.js';
import type { StepResources } from './report.js';
import { machineCpu, treeCpu, writeCalls } from './resources.js';
import { collectGarbage, watchStalls } from './stalls.js';

// ---------------------------------------------------------------------------------------------------------
// Settings

export function envNumber(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number ≥ ${min}, got "${raw}"`);
  return n;
}

/** LOAD_STEPS: whole numbers 1…10000, deduplicated and sorted; `fallback` when unset. */
export function envSteps(fallback: number[]): number[] {
  const raw = process.env.LOAD_STEPS;
  if (!raw) return fallback;
  const steps = raw.split(',').map((s) => Number(s.trim()));
  if (steps.some((n) => !Number.isInteger(n) || n < 1 || n > 10_000)) throw new Error(`LOAD_STEPS must be whole numbers 1…10000, got "${raw}"`);
  return [...new Set(steps)].sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------------------------------------
// The wall-time cap: every wait of a run races it

export class CapReached extends Error {}

export interface Cap {
  within: <T>(p: Promise<T>) => Promise<T>;
  clear: () => void;
}

export function startCap(capMs: number): Cap {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CapReached(`wall-time cap of ${capMs / 60_000} min reached`)), capMs);
  });
  cap.catch(() => undefined);
  return { within: (p) => Promise.race([p, cap]), clear: () => clearTimeout(timer) };
}

/** `p`, or a failure naming `what` when it takes longer than `ms` (the work itself is not cancelled). */
export function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Runs `work(i)` for i in 0…n-1, `concurrency` at a time. */
export async function pool(n: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, n)) }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------
// The load client's process

/** Messages every load client may send besides its own: progress lines and a failure. */
export type ClientBase = { type: 'progress'; line: string } | { type: 'failed'; error: string };

/** A load client (editors.ts, live-editors.ts) in a Node process of its own, talking over IPC. */
export class LoadProcess<To extends { type: string }, From extends { type: string }> {
  private readonly child: ChildProcess;
  private readonly listeners = new Set<(m: From | ClientBase) => void>();
  private exited: Error | undefined;
  private readonly exit: Promise<void>;

  /** `script`: a file next to this one; `nodeOptions`: extra Node flags (e.g. a larger heap). */
  constructor(script: string, nodeOptions: string[] = []) {
    // TypeScript through tsx's loader, resolved from this project (not from the working directory).
    const tsx = import.meta.resolve('tsx');
    this.child = fork(fileURLToPath(new URL(script, import.meta.url)), [], {
      execArgv: [...nodeOptions, '--import', tsx],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m: From | ClientBase) => {
      if (m.type === 'progress') process.stderr.write(`${(m as { line: string }).line}\n`);
      for (const l of [...this.listeners]) l(m);
    });
    this.exit = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        this.exited = new Error(`load client exited (${signal ?? code})`);
        for (const l of [...this.listeners]) l({ type: 'failed', error: this.exited.message });
        resolve();
      }),
    );
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Waits for the first message of `type` (or a failure), at most timeoutMs. */
  wait<T extends From['type']>(type: T, timeoutMs: number, onMessage?: (m: From | ClientBase) => void): Promise<Extract<From, { type: T }>> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`load client did not answer "${type}" within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
      const listener = (m: From | ClientBase) => {
        onMessage?.(m);
        if (m.type === type) done(undefined, m as Extract<From, { type: T }>);
        else if (m.type === 'failed') done(new Error(`load client failed: ${(m as { error: string }).error}`));
      };
      const done = (err?: Error, m?: Extract<From, { type: T }>) => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        if (err) reject(err);
        else resolve(m!);
      };
      this.listeners.add(listener);
    });
  }

  send(m: To): void {
    if (this.exited) throw this.exited;
    this.child.send(m);
  }

  async close(): Promise<void> {
    if (!this.exited && this.child.connected) this.child.send({ type: 'close' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 8_000);
    await this.exit;
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Quiet cores

/**
 * Waits (bounded by `maxWaitMs`) until work outside this run uses less than `quietCores` of the machine,
 * measured over 2 s windows while our own processes idle. Returns the last measurement, in cores.
 */
export async function waitForQuiet(
  own: () => number,
  within: <T>(p: Promise<T>) => Promise<T>,
  quietCores: number,
  maxWaitMs: number,
): Promise<{ otherCores: number; waitedMs: number }> {
  const started = performance.now();
  for (;;) {
    const m0 = machineCpu().busy;
    const o0 = own();
    await within(new Promise((resolve) => setTimeout(resolve, 2_000)));
    const otherCores = Math.max(0, (machineCpu().busy - m0 - (own() - o0)) / 2);
    const waitedMs = performance.now() - started;
    if (otherCores < quietCores || waitedMs >= maxWaitMs) return { otherCores, waitedMs };
  }
}

// ---------------------------------------------------------------------------------------------------------
// A step's resource window

export interface Watchers {
  postmasterPid: number;
  pg: PgWatch;
  /** Set: profile the service's thread during the window under this name. */
  profile?: string;
}

export interface WindowResult {
  resources: StepResources;
  profile?: string[];
}

/**
 * Starts watching the service (this process), PostgreSQL, the load client(s) (`clientCpu`: their CPU seconds so far) and the machine. The returned
 * function ends the window at the moment it is called (the CPU counters are read before it first awaits) and
 * answers what was seen, PostgreSQL's view and the profile included.
 */
export async function startWindow(watch: Watchers, clientCpu: () => number): Promise<() => Promise<WindowResult>> {
  const { postmasterPid } = watch;
  const stopPg = await watch.pg.start();
  let stopProfile: (() => Promise<string[]>) | undefined;
  try {
    stopProfile = watch.profile ? await startProfile(watch.profile) : undefined;
  } catch (err) {
    await stopPg().catch(() => undefined);
    throw err;
  }
  const start = {
    at: performance.now(),
    elu: performance.eventLoopUtilization(),
    server: process.cpuUsage(),
    writes: writeCalls(),
    postgres: treeCpu(postmasterPid),
    client: clientCpu(),
    machine: machineCpu(),
  };
  const stopStalls = watchStalls();
  let rssPeak = process.memoryUsage.rss();
  const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 250);
  let stopped: Promise<WindowResult> | undefined;
  return () => {
    if (stopped) return stopped;
    // Synchronously, at the moment the window ends:
    clearInterval(rssTimer);
    const wallS = (performance.now() - start.at) / 1000;
    const server = process.cpuUsage(start.server);
    const serverCpu = (server.user + server.system) / 1e6 / wallS;
    const serverWritesPerS = (writeCalls() - start.writes) / wallS;
    const postgresCpu = (treeCpu(postmasterPid) - start.postgres) / wallS;
    const clientCores = (clientCpu() - start.client) / wallS;
    const machineBusy = (machineCpu().busy - start.machine.busy) / wallS;
    const serverElu = performance.eventLoopUtilization(start.elu).utilization;
    const rss = process.memoryUsage.rss();
    const serverStalls = stopStalls();
    // What the open documents hold (after the counters: the collection is outside the window): heap and buffers live
    // after a full collection.
    collectGarbage();
    const { heapUsed, external } = process.memoryUsage();
    const pgDone = stopPg();
    const profileDone = stopProfile?.();
    stopped = (async () => {
      const pg = await pgDone;
      return {
        resources: {
          wallS,
          serverElu,
          serverCpu,
          serverWritesPerS,
          postgresCpu,
          clientCpu: clientCores,
          otherCpu: Math.max(0, machineBusy - serverCpu - postgresCpu - clientCores),
          machineBusy,
          serverRssMiB: rss / 2 ** 20,
          serverRssPeakMiB: Math.max(rssPeak, rss) / 2 ** 20,
          serverHeapMiB: (heapUsed + external) / 2 ** 20,
          serverStalls,
          pgBusyAvg: pg.busyAvg,
          pgActiveAvg: pg.activeAvg,
          pgWaits: pg.waits,
          walMiBPerS: pg.walMiBPerS,
          checkpoints: pg.checkpoints,
        },
        profile: await profileDone,
      };
    })();
    return stopped;
  };
}
