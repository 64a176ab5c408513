// A small bounded load loop: a fixed number of operations with C in flight, after a warm-up, each timed
// with process.hrtime.bigint(). Every loop also stops issuing after a hard cap of 60 s, and then fails.
// Any failed operation (for HTTP: a status not in the expected set) fails the loop loudly once it ends.
//
// The loops run in a child process (LoadClient → load-worker.ts): the service under test runs in this
// process, and a load client on the same event loop (or in a thread of it, sharing its heap, GC and memory
// figures) would steal the server's time. Client and server still share the machine's cores, as PostgreSQL does.
import { fork, type ChildProcess } from 'node:child_process';
import { Pool, request, type Dispatcher } from 'undici';
import { createSseParser } from '../client/sse.js';
import type { CanvasesRepository, CollabRepository } from '../src/db/repositories/index.js';
import { runEnded, type RunViewLike } from './run-view.js';
import type { Row } from './table.js';

export const HARD_CAP_MS = 60_000;

export interface LoadOptions {
  name: string;
  /** Measured operations. */
  requests: number;
  /** Operations run first, with the same concurrency, and not measured. */
  warmup: number;
  /** Operations in flight at once. */
  concurrency: number;
  capMs?: number;
  /**
   * Report instead of failing (for measuring a degraded service): on the hard cap the loop ends with the operations
   * done so far (`requests` says how many), and measured operations that fail count in `errors` (timed like the others).
   */
  lenient?: boolean;
}

export interface LoadResult {
  name: string;
  concurrency: number;
  requests: number;
  elapsedMs: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Every measured latency, sorted (for merging rounds). */
  latenciesMs: Float64Array;
  /** Lenient loops only: measured operations that failed, and the first few messages. */
  errors?: number;
  errorSamples?: string[];
}

/** One operation; `worker` is the index (0..C-1) of the in-flight slot running it. Throws to count an error. */
export type Operation = (i: number, worker: number) => Promise<void>;

class LoadError extends Error {}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export async function runLoad(opts: LoadOptions, op: Operation): Promise<LoadResult> {
  const deadline = Date.now() + (opts.capMs ?? HARD_CAP_MS);
  const errors: string[] = [];
  let errorCount = 0;

  async function phase(count: number, latencies?: Float64Array): Promise<number> {
    let next = 0;
    let done = 0;
    const worker = async (w: number) => {
      while (next < count && Date.now() < deadline) {
        const i = next++;
        const start = process.hrtime.bigint();
        try {
          await op(i, w);
        } catch (err) {
          errorCount++;
          if (errors.length < 5) errors.push((err as Error).message);
        }
        if (latencies) latencies[i] = Number(process.hrtime.bigint() - start) / 1e6;
        done++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, Math.max(count, 1)) }, (_, w) => worker(w)));
    return done;
  }

  const fail = (what: string) => {
    throw new LoadError(`${opts.name} (${opts.concurrency} in flight): ${what}${errors.length ? `; first errors: ${errors.join(' | ')}` : ''}`);
  };

  const warmed = await phase(opts.warmup);
  if (warmed < opts.warmup) fail(`hard cap of ${(opts.capMs ?? HARD_CAP_MS) / 1000} s reached during warm-up (${warmed} of ${opts.warmup})`);
  if (errorCount > 0) fail(`${errorCount} errors during warm-up`);

  const all = new Float64Array(opts.requests);
  const start = process.hrtime.bigint();
  const done = await phase(opts.requests, all);
  const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (!opts.lenient && done < opts.requests) fail(`hard cap of ${(opts.capMs ?? HARD_CAP_MS) / 1000} s reached after ${done} of ${opts.requests} requests`);
  if (!opts.lenient && errorCount > 0) fail(`${errorCount} of ${opts.requests} requests failed`);

  // Operations are numbered in the order they start and every started one is awaited: the done ones are 0..done-1.
  const latencies = all.slice(0, done).sort();
  return {
    name: opts.name,
    concurrency: opts.concurrency,
    requests: done,
    elapsedMs,
    reqPerSec: done / (elapsedMs / 1000),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    latenciesMs: latencies,
    ...(opts.lenient ? { errors: errorCount, errorSamples: errors } : {}),
  };
}

/** Rounds of one case run at different times, as one result: requests and time add up, latencies merge. */
export function combine(results: LoadResult[]): LoadResult {
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const elapsedMs = results.reduce((n, r) => n + r.elapsedMs, 0);
  const latenciesMs = new Float64Array(requests);
  let at = 0;
  for (const r of results) {
    latenciesMs.set(r.latenciesMs, at);
    at += r.latenciesMs.length;
  }
  latenciesMs.sort();
  return {
    name: results[0].name,
    concurrency: results[0].concurrency,
    requests,
    elapsedMs,
    reqPerSec: requests / (elapsedMs / 1000),
    p50Ms: percentile(latenciesMs, 0.5),
    p99Ms: percentile(latenciesMs, 0.99),
    latenciesMs,
  };
}

export interface HttpRequest {
  method?: Dispatcher.HttpMethod;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** Requests per in-flight slot: slot w sends slots[w % slots.length][i % its length] as operation i. */
type Slots<T> = T[][];
const pick = <T>(slots: Slots<T>, i: number, w: number): T => {
  const mine = slots[w % slots.length];
  return mine[i % mine.length];
};

/** An HTTP loop, as data (it crosses to the worker). */
export interface HttpJob {
  kind: 'http';
  origin: string;
  load: LoadOptions;
  /** Statuses that count as success; default any 2xx. */
  expect?: number[];
  slots: Slots<HttpRequest>;
}

/**
 * One data-layer call of a canvas save or read: a save appends one change (a Yjs update) to the project's live
 * document (the collab repository's `append`, which also steps the version); a read is what a read of a document
 * that is not in memory runs: the canvases row and role (`current`), then the stored document (`load`).
 */
export type CanvasCall = { append: { projectId: string; update: Uint8Array } } | { read: { userId: string; projectId: string } };

/** The repositories a canvas job calls. */
export interface CanvasRepositories {
  canvases: Pick<CanvasesRepository, 'current'>;
  collab: Pick<CollabRepository, 'append' | 'load'>;
}

/**
 * A loop of repository calls (the service's own statements, the data layer without HTTP) on a pool of the
 * client's own; each call must find its canvas.
 */
export interface CanvasJob {
  kind: 'canvas';
  db: { connectionString: string; max: number; statement_timeout?: number };
  load: LoadOptions;
  slots: Slots<CanvasCall>;
}

/**
 * A loop of generation jobs, each timed from `POST /api/generations` to its `succeeded` event on the user's event
 * stream (`GET /api/generations/events`, one stream for the loop, opened before it starts): the whole asynchronous
 * path, queue included. A job that ends in another state fails the loop.
 */
export interface GenerationJobsJob {
  kind: 'jobs';
  origin: string;
  load: LoadOptions;
  /** The user's credentials (a session cookie or a Bearer token). */
  headers: Record<string, string>;
  /** The body of POST /api/generations (JSON). */
  body: string;
}

/**
 * One graph run followed to its end (./runs.ts): the user's event stream (`GET /api/generations/events`) is opened
 * first, then `POST /api/projects/{projectId}/runs` is sent; the run's `run` events (each the whole RunView) say when
 * every job was queued and when it ended. A slow poll of `GET …/runs/{runId}` (every POLL_MS) backs the events up
 * and says so in `endedBy`. Fails when the run is refused or has not ended within `capMs`.
 */
export interface RunFollowJob {
  kind: 'run';
  origin: string;
  headers: Record<string, string>;
  projectId: string;
  /** The body of POST …/runs (JSON). */
  body: string;
  capMs?: number;
}

export interface RunTimeline {
  runId: string;
  status: string;
  /** From sending the POST to its 202 answer. */
  answeredMs: number;
  /** From sending the POST to the first view (the answer or an event) in which no job is `waiting` any more. */
  allQueuedMs: number | null;
  /** From sending the POST to the view in which the run has ended. */
  endedMs: number;
  endedBy: 'answer' | 'event' | 'poll';
  /** `run` events of this run received, and `job` events (of any job of the user's). */
  runEvents: number;
  jobEvents: number;
  /** The most jobs `running` in one view of the run. */
  maxRunningSeen: number;
  /** The run as it ended. */
  view: RunViewLike;
}

export type Job = HttpJob | CanvasJob | GenerationJobsJob | RunFollowJob;

/**
 * HTTP load with undici: a Pool of exactly C connections (pipelining 1), so C requests are in flight.
 * Each response body is read to the end (it is part of the cost).
 */
export async function runHttpJob(job: HttpJob): Promise<LoadResult> {
  const pool = new Pool(job.origin, { connections: job.load.concurrency, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const ok = (status: number) => (job.expect ? job.expect.includes(status) : status >= 200 && status < 300);
  try {
    return await runLoad(job.load, async (i, w) => {
      const req = pick(job.slots, i, w);
      const res = await pool.request({ method: req.method ?? 'GET', path: req.path, headers: req.headers, body: req.body });
      const body = Buffer.from(await res.body.arrayBuffer());
      if (!ok(res.statusCode)) throw new Error(`${req.method ?? 'GET'} ${req.path} → ${res.statusCode} ${body.toString('utf8', 0, 200)}`);
    });
  } finally {
    await pool.close();
  }
}

export async function runGenerationJobsJob(job: GenerationJobsJob): Promise<LoadResult> {
  const pool = new Pool(job.origin, { connections: job.load.concurrency, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const events = new AbortController();
  /** Jobs waited for, by id; an event that comes before its POST's answer is kept in `ended`. */
  const waiting = new Map<string, (status: string) => void>();
  const ended = new Map<string, string>();
  const stream = await request(`${job.origin}/api/generations/events`, { headers: job.headers, signal: events.signal, bodyTimeout: 0 });
  if (stream.statusCode !== 200) throw new Error(`GET /api/generations/events → ${stream.statusCode}`);
  const parser = createSseParser({
    onEvent(event) {
      const { id, status } = JSON.parse(event.data) as { id: string; status: string };
      if (status === 'queued' || status === 'running') return;
      const wake = waiting.get(id);
      if (wake) wake(status);
      else ended.set(id, status);
    },
  });
  const reading = (async () => {
    for await (const chunk of stream.body) parser.feed(chunk as Buffer);
  })().catch(() => undefined); // ends with the abort below
  try {
    return await runLoad(job.load, async () => {
      const res = await pool.request({ method: 'POST', path: '/api/generations', headers: { ...job.headers, 'content-type': 'application/json' }, body: job.body });
      const answer = await res.body.text();
      if (res.statusCode !== 202) throw new Error(`POST /api/generations → ${res.statusCode} ${answer.slice(0, 200)}`);
      const { id } = JSON.parse(answer) as { id: string };
      const status = ended.get(id) ?? (await new Promise<string>((resolve) => waiting.set(id, resolve)));
      waiting.delete(id);
      ended.delete(id);
      if (status !== 'succeeded') throw new Error(`job ${id} ended ${status}`);
    });
  } finally {
    events.abort();
    await reading;
    await pool.close();
  }
}

const POLL_MS = 2_000;

export async function runFollowJob(job: RunFollowJob): Promise<RunTimeline> {
  const capMs = job.capMs ?? HARD_CAP_MS;
  const events = new AbortController();
  const stream = await request(`${job.origin}/api/generations/events`, { headers: job.headers, signal: events.signal, bodyTimeout: 0 });
  if (stream.statusCode !== 200) throw new Error(`GET /api/generations/events → ${stream.statusCode}`);
  let t0 = 0;
  const since = () => Number(process.hrtime.bigint() - BigInt(t0)) / 1e6;
  let runId: string | undefined;
  /** Views of runs that came before the POST's answer named ours: [ms since the POST, view]. */
  const early: Array<[number, RunViewLike]> = [];
  let runEvents = 0;
  let jobEvents = 0;
  let allQueuedMs: number | null = null;
  let maxRunningSeen = 0;
  let ended: ((e: { view: RunViewLike; ms: number; by: RunTimeline['endedBy'] }) => void) | undefined;
  const end = new Promise<{ view: RunViewLike; ms: number; by: RunTimeline['endedBy'] }>((resolve) => (ended = resolve));
  const seen = (view: RunViewLike, ms: number, by: RunTimeline['endedBy']) => {
    if (by === 'event') runEvents++;
    if (allQueuedMs === null && view.jobs.every((j) => j.status !== 'waiting')) allQueuedMs = ms;
    maxRunningSeen = Math.max(maxRunningSeen, view.jobs.filter((j) => j.status === 'running').length);
    if (runEnded(view.status)) ended!({ view, ms, by });
  };
  const parser = createSseParser({
    onEvent(event) {
      if (event.event === 'job') jobEvents++;
      if (event.event !== 'run') return;
      const ms = since();
      const view = JSON.parse(event.data) as RunViewLike;
      if (runId === undefined) early.push([ms, view]);
      else if (view.id === runId) seen(view, ms, 'event');
    },
  });
  const reading = (async () => {
    for await (const chunk of stream.body) parser.feed(chunk as Buffer);
  })().catch(() => undefined); // ends with the abort below
  const pool = new Pool(job.origin, { connections: 2, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
  let poller: NodeJS.Timeout | undefined;
  let capTimer: NodeJS.Timeout | undefined;
  try {
    t0 = Number(process.hrtime.bigint());
    const res = await pool.request({ method: 'POST', path: `/api/projects/${job.projectId}/runs`, headers: { ...job.headers, 'content-type': 'application/json' }, body: job.body });
    const answer = await res.body.text();
    const answeredMs = since();
    if (res.statusCode !== 202) throw new Error(`POST /api/projects/${job.projectId}/runs → ${res.statusCode} ${answer.slice(0, 300)}`);
    const first = JSON.parse(answer) as RunViewLike;
    runId = first.id;
    seen(first, answeredMs, 'answer');
    for (const [ms, view] of early.splice(0)) if (view.id === runId) seen(view, ms, 'event');
    const poll = async () => {
      const got = await pool.request({ method: 'GET', path: `/api/projects/${job.projectId}/runs/${runId}`, headers: job.headers });
      const text = await got.body.text();
      if (got.statusCode === 200) {
        const view = JSON.parse(text) as RunViewLike;
        if (runEnded(view.status)) ended!({ view, ms: since(), by: 'poll' });
      }
      poller = setTimeout(() => void poll().catch(() => undefined), POLL_MS);
    };
    poller = setTimeout(() => void poll().catch(() => undefined), POLL_MS);
    const capped = new Promise<never>((_, reject) => {
      capTimer = setTimeout(() => reject(new Error(`run ${runId} did not end within ${capMs / 1000} s`)), capMs);
    });
    const last = await Promise.race([end, capped]);
    return { runId, status: last.view.status, answeredMs, allQueuedMs, endedMs: last.ms, endedBy: last.by, runEvents, jobEvents, maxRunningSeen, view: last.view };
  } finally {
    clearTimeout(poller);
    clearTimeout(capTimer);
    events.abort();
    await reading;
    await pool.close();
  }
}

export async function runCanvasJob(job: CanvasJob, { canvases, collab }: CanvasRepositories): Promise<LoadResult> {
  return runLoad(job.load, async (i, w) => {
    const call = pick(job.slots, i, w);
    if ('append' in call) {
      const versions = await collab.append([call.append]);
      if (!versions.get(call.append.projectId)) throw new Error('the collab repository stepped no version of that project');
      return;
    }
    const found = await canvases.current({ userId: call.read.userId }, call.read.projectId);
    if (!found?.version) throw new Error('the canvases repository found no canvas of that project and user');
    const stored = await collab.load(call.read.projectId);
    if (!stored.snapshot && stored.updates.length === 0) throw new Error('the collab repository found no document of that project');
  });
}

/** Runs jobs in a child process, one at a time. */
export class LoadClient {
  private readonly worker: ChildProcess;
  private next = 0;
  private readonly waiting = new Map<number, { resolve(r: unknown): void; reject(e: Error): void }>();
  private dead: Error | undefined;

  /** The client process (BENCH_PIN moves it to a core of its own). */
  get pid(): number | undefined {
    return this.worker.pid;
  }

  constructor() {
    // The client is TypeScript: run it with tsx's loader. `advanced` serialization carries typed arrays (bodies,
    // latencies) across the IPC channel.
    this.worker = fork(new URL('./load-worker.ts', import.meta.url), [], {
      execArgv: ['--import', 'tsx'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.worker.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(m.error));
      else w?.resolve(m.result);
    });
    const fail = (err: Error) => {
      this.dead = err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code, signal) => fail(new Error(`load client exited (${code ?? signal})`)));
  }

  private send<R = LoadResult>(message: { job?: Job; close?: true }, timeoutMs: number): Promise<R> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.next++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`load client did not answer within ${timeoutMs / 1000} s`));
        this.worker.kill('SIGKILL');
      }, timeoutMs);
      const settle = <A>(f: (a: A) => void) => (a: A) => {
        clearTimeout(timer);
        f(a);
      };
      this.waiting.set(id, { resolve: settle(resolve), reject: settle(reject) });
      this.worker.send({ id, ...message });
    });
  }

  run(job: Exclude<Job, RunFollowJob>): Promise<LoadResult> {
    return this.send({ job }, (job.load.capMs ?? HARD_CAP_MS) + 30_000);
  }

  /** One graph run, followed to its end from the client process (RunFollowJob). */
  followRun(origin: string, headers: Record<string, string>, projectId: string, body: object, capMs = HARD_CAP_MS): Promise<RunTimeline> {
    return this.send<RunTimeline>({ job: { kind: 'run', origin, headers, projectId, body: JSON.stringify(body), capMs } }, capMs + 30_000);
  }

  http(origin: string, load: LoadOptions, slots: Slots<HttpRequest>, expect?: number[]): Promise<LoadResult> {
    return this.run({ kind: 'http', origin, load, slots, expect });
  }

  jobs(origin: string, load: LoadOptions, headers: Record<string, string>, body: string): Promise<LoadResult> {
    return this.run({ kind: 'jobs', origin, load, headers, body });
  }

  canvas(db: CanvasJob['db'], load: LoadOptions, slots: Slots<CanvasCall>): Promise<LoadResult> {
    return this.run({ kind: 'canvas', db, load, slots });
  }

  /** Ends the client's database pools, then the client process. */
  async close(): Promise<void> {
    if (!this.dead) await this.send({ close: true }, 10_000).catch(() => undefined);
    if (this.worker.exitCode === null && this.worker.signalCode === null) {
      const exited = new Promise((resolve) => this.worker.once('exit', resolve));
      this.worker.kill('SIGKILL');
      await exited;
    }
  }
}

export function toRow(caseName: string, r: LoadResult, baseline?: Row): Row {
  if (baseline) baseline.isBaseline = true;
  return {
    case: caseName,
    inFlight: r.concurrency,
    requests: r.requests,
    reqPerSec: r.reqPerSec,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    baseline,
  };
}
