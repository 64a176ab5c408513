// Graph runs (issue 35 point 7; DESIGN.md §12 "Runs", "Cache", "Lists and counts"), on one instance of its own with
// the offline kinds, against floors measured in the same run:
// - the floor: the chain's 50 `adjust` tasks run back to back in this process through the image workers' runSteps
//   (src/imaging/pool.ts; each on the previous one's result, as in the chain), and the list's 100 prompts through the
//   image workers' offline engine, back to back. Neither has the service around it (store, database, queue, document);
// - a 50-node chain (one upload → a1 → … → a50), `POST /api/projects/{id}/runs` mode `all`, from sending the request
//   to the run's end on the user's event stream (`event: run`), minus the floor's time for the same 50 tasks, per node
//   (goal ≤ 10 ms p50), over BENCH_RUNS_REPEATS chains (default 5; each its own project, after one warm-up chain);
// - the same chains run again unchanged: every job from the cache, no model call and no new generation (goal ≤ 250 ms);
// - a `list` of BENCH_RUNS_LIST prompts (default 100) into one generation node with the offline engine: time until
//   every job is queued (goal ≤ 1 s from the request), the whole run, and the most jobs running at once (from the
//   jobs' own start and end times) against the limits that bound it.
// The run is followed from the load client's process (./load.ts runFollowJob), so the client's work (the event
// stream's RunViews) does not run on the service's event loop. BENCH_RUNS_IMAGE_PX (default 256): the picture's side.
// BENCH_RUNS_PROFILE=1: a CPU profile of the service's thread over the measured chains, the cached re-runs and the
// list run each (load/profile.ts), summarised under the table: where the time beyond the tasks goes.
// BENCH_RUNS_ASYNC_COMMIT=1 (a diagnosis, not a setting to deploy): the section's own embedded PostgreSQL commits
// without waiting for its WAL to reach the disk (synchronous_commit = off), to show how much of a run's time is
// commits waiting for fsync.
import { performance } from 'node:perf_hooks';
import { createImageWorkers } from '../src/imaging/pool.js';
import { startProfile } from '../load/profile.js';
import { startTestApp, type TestApp } from '../test/helpers/test-app.js';
import type { ApiContext } from './api.js';
import type { RunTimeline } from './load.js';
import { adjustData, CHAIN_NODES, chainCanvas, listCanvas, listPrompts, picture, projectWith, uploadPicture } from './run-canvases.js';
import type { Section } from './table.js';

const envInt = (name: string, fallback: number, min: number) => {
  const raw = process.env[name];
  const n = raw === undefined || raw.trim() === '' ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
};

const REPEATS = envInt('BENCH_RUNS_REPEATS', 5, 1);
const LIST_ITEMS = envInt('BENCH_RUNS_LIST', 100, 1);
const IMAGE_PX = envInt('BENCH_RUNS_IMAGE_PX', 256, 16);
const FLOOR_PASSES = 3;
const RUN_CAP_MS = 180_000;
const PROFILE = process.env.BENCH_RUNS_PROFILE === '1';
const ASYNC_COMMIT = process.env.BENCH_RUNS_ASYNC_COMMIT === '1';

const GOAL_NODE_OVERHEAD_MS = 10;
const GOAL_CACHED_RUN_MS = 250;
const GOAL_ALL_QUEUED_MS = 1_000;

/** Nearest-rank percentile. */
function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');

interface JobTimes {
  id: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  status: string;
  cacheHit: boolean | null;
  /** Its generation's createdAt: an image-steps job stamps it right after the image workers answered. */
  madeAt: Date | null;
}

/** The run's jobs as their rows say (generation_jobs: when each was created, started and finished; cache_hit). */
async function jobTimes(t: TestApp, ids: string[]): Promise<JobTimes[]> {
  const cacheHit = (await t.pool.query("SELECT 1 FROM information_schema.columns WHERE table_name = 'generation_jobs' AND column_name = 'cache_hit'")).rowCount ? 'cache_hit' : 'NULL::boolean';
  const { rows } = await t.pool.query<{ id: string; created_at: Date; started_at: Date | null; finished_at: Date | null; status: string; cache_hit: boolean | null; made_at: Date | null }>(
    `SELECT j.id, j.created_at, j.started_at, j.finished_at, j.status, ${cacheHit} AS cache_hit, g.created_at AS made_at
       FROM generation_jobs j LEFT JOIN generations g ON g.id = j.generation_id WHERE j.id = ANY($1)`,
    [ids],
  );
  return rows.map((r) => ({ id: r.id, createdAt: r.created_at, startedAt: r.started_at, finishedAt: r.finished_at, status: r.status, cacheHit: r.cache_hit, madeAt: r.made_at }));
}

/** The most jobs running at once, from their start and end times (an end at the same instant as a start comes first). */
function maxOverlap(jobs: JobTimes[]): number {
  const points: Array<[number, number]> = [];
  for (const j of jobs) if (j.startedAt && j.finishedAt) points.push([j.startedAt.getTime(), 1], [j.finishedAt.getTime(), -1]);
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of points) most = Math.max(most, (now += d));
  return most;
}

const generationsOf = async (t: TestApp, projectId: string) =>
  (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM generations WHERE project_id = $1', [projectId])).rows[0].n;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const right = header.map((_, i) => i > 0 && i < header.length - 2);
  const line = (c: string[]) => `| ${c.map((v, i) => (right[i] ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`, ...rows.map(line)].join('\n');
}

export const runsSection: Section<ApiContext> = async ({ load, notes }) => {
  // One instance; no per-minute or in-flight caps on generations (a run makes many jobs at once), the offline engine.
  const out: string[][] = [];
  const lines: string[] = [];
  const t = await startTestApp(
    { IMAGE_MODEL: 'local', RATE_LIMIT_GENERATIONS_PER_MINUTE: '0', RATE_LIMIT_UPLOADS_PER_MINUTE: '0', GENERATIONS_IN_FLIGHT_PER_USER: '0', JOBS_RUNNING_PER_USER: '0' },
    'embedded',
  );
  if (ASYNC_COMMIT) {
    await t.pool.query('ALTER SYSTEM SET synchronous_commit = off');
    await t.pool.query('SELECT pg_reload_conf()');
    lines.push('BENCH_RUNS_ASYNC_COMMIT=1: this section\'s PostgreSQL ran with synchronous_commit = off (a diagnosis: commits did not wait for fsync).');
  }
  const workers = createImageWorkers({ workers: t.config.model.imageWorkers, log: { warn: () => undefined } });
  try {
    const user = await t.user('bench-runs@example.com', 'Bench Runs');
    const headers = { cookie: await user.client.jar.getCookieString(t.baseUrl) };
    const png = await picture(IMAGE_PX);
    const imageUrl = await uploadPicture(user.client, png, 'bench-runs.png');
    const maxPixels = t.config.limits.inputImagePixels;

    // --- Floor: the chain's tasks back to back through the image workers (a warm-up pass, then FLOOR_PASSES).
    const floorPass = async (): Promise<number[]> => {
      const ms: number[] = [];
      let input: Uint8Array = png;
      for (let i = 0; i < CHAIN_NODES; i++) {
        const started = performance.now();
        const answer = await workers.runSteps({ type: 'adjust', data: adjustData(i), image: input, maxPixels }, { owner: user.id });
        ms.push(performance.now() - started);
        if (!answer.ok) throw new Error(`floor: adjust task ${i + 1} failed: ${answer.message}`);
        input = answer.png;
      }
      return ms;
    };
    await floorPass();
    const passes: number[][] = [];
    for (let p = 0; p < FLOOR_PASSES; p++) passes.push(await floorPass());
    const floorTask = Array.from({ length: CHAIN_NODES }, (_, i) => pct(passes.map((ms) => ms[i]), 0.5));
    const floorChainMs = floorTask.reduce((a, b) => a + b, 0);
    out.push([`floor: ${CHAIN_NODES} adjust tasks back to back in-process (image workers' runSteps), per task`, String(FLOOR_PASSES * CHAIN_NODES), f1(pct(passes.flat(), 0.5)), f1(pct(passes.flat(), 0.9)), f1(Math.max(...passes.flat())), '', '', 'baseline']);

    // --- The chains: one warm-up (not reported), then REPEATS, each its own project (so none finds the others' results).
    const chains: string[] = [];
    for (let k = 0; k <= REPEATS; k++) chains.push(await projectWith(user.client, user.id, `Bench chain ${k}`, chainCanvas(imageUrl, CHAIN_NODES, k + 1)));
    const follow = (projectId: string) => load.followRun(t.baseUrl, headers, projectId, { mode: 'all' }, RUN_CAP_MS);
    const check = (tl: RunTimeline, what: string, cached: boolean) => {
      const bad = tl.view.jobs.filter((j) => (cached ? !j.cached : j.cached || j.status !== 'succeeded'));
      if (tl.status !== 'succeeded' || tl.view.jobs.length !== CHAIN_NODES || bad.length > 0) {
        throw new Error(`${what}: run ${tl.runId} ended ${tl.status} with ${tl.view.jobs.length} jobs; unexpected: ${JSON.stringify(bad.slice(0, 3))}`);
      }
    };
    check(await follow(chains[0]), 'warm-up chain', false);

    const totals: number[] = [];
    const perNode: number[] = [];
    const gaps: number[] = [];
    const inTask: number[] = [];
    // A chain's node, from the job before it ending to its own end, in four parts (rows' times: PostgreSQL's now() is
    // its transaction's start): the advance queuing it after the job before ended, its pickup by the runner, the task
    // up to the image workers' answer (canvas, input, steps), the task's store and commit.
    const parts = { react: [] as number[], pickup: [] as number[], steps: [] as number[], commit: [] as number[] };
    const serverTotals: number[] = [];
    const endedBy = new Set<string>();
    /** BENCH_RUNS_PROFILE: the service thread's CPU profile over `work`, its summary kept for the notes. */
    const profiled = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      if (!PROFILE) return work();
      const stop = await startProfile(`bench-runs-${name}`);
      try {
        return await work();
      } finally {
        lines.push(...(await stop()));
      }
    };
    const commits = async () => (await t.pool.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0].n;
    const commitsBefore = Number(await commits());
    await profiled('chains', async () => {
      for (let k = 1; k <= REPEATS; k++) {
        const tl = await follow(chains[k]);
        check(tl, `chain ${k}`, false);
        endedBy.add(tl.endedBy);
        totals.push(tl.endedMs);
        perNode.push((tl.endedMs - floorChainMs) / CHAIN_NODES);
        if (tl.view.finishedAt) serverTotals.push(Date.parse(tl.view.finishedAt) - Date.parse(tl.view.createdAt));
        // Where a node's time goes: from the end of the job before it to its own start (dispatch), and its own run.
        const byId = new Map((await jobTimes(t, tl.view.jobs.map((j) => j.jobId))).map((j) => [j.id, j]));
        const ordered = [...tl.view.jobs].sort((x, y) => Number(x.nodeId.slice(1)) - Number(y.nodeId.slice(1))).map((j) => byId.get(j.jobId)); // a1 … a50
        for (let i = 0; i < ordered.length; i++) {
          const j = ordered[i];
          if (j?.startedAt && j.finishedAt) inTask.push(j.finishedAt.getTime() - j.startedAt.getTime());
          const before = ordered[i - 1];
          if (i > 0 && j?.startedAt && before?.finishedAt) gaps.push(j.startedAt.getTime() - before.finishedAt.getTime());
          if (i > 0 && j?.startedAt && j.finishedAt && j.madeAt && before?.finishedAt) {
            parts.react.push(j.createdAt.getTime() - before.finishedAt.getTime());
            parts.pickup.push(j.startedAt.getTime() - j.createdAt.getTime());
            parts.steps.push(j.madeAt.getTime() - j.startedAt.getTime());
            parts.commit.push(j.finishedAt.getTime() - j.madeAt.getTime());
          }
        }
      }
    });
    // (the bench's own queries of the rows add 2 per chain; pg_stat_database counts with a little delay)
    const commitsPerNode = (Number(await commits()) - commitsBefore - 2 * REPEATS) / (REPEATS * CHAIN_NODES);
    const p50Node = pct(perNode, 0.5);
    out.push([
      `${CHAIN_NODES}-node chain, mode all: request → run ended, minus the floor's ${f1(floorChainMs)} ms, per node`,
      String(REPEATS),
      f1(p50Node),
      f1(pct(perNode, 0.9)),
      f1(Math.max(...perNode)),
      `≤ ${GOAL_NODE_OVERHEAD_MS} ms p50`,
      p50Node <= GOAL_NODE_OVERHEAD_MS ? 'MET' : 'NOT MET',
      `${(pct(totals, 0.5) / floorChainMs).toFixed(2)}× the floor's time (whole run p50 ${f1(pct(totals, 0.5))} ms)`,
    ]);
    lines.push(
      `Chain runs: whole run p50 ${f1(pct(totals, 0.5))} ms, p90 ${f1(pct(totals, 0.9))} ms at the client (server's createdAt → finishedAt p50 ${f1(pct(serverTotals, 0.5))} ms); ` +
        `per job, from its rows: in the task p50 ${f1(pct(inTask, 0.5))} ms (floor per task p50 ${f1(pct(floorTask, 0.5))} ms), ` +
        `from the end of the job before to its start p50 ${f1(pct(gaps, 0.5))} ms, p90 ${f1(pct(gaps, 0.9))} ms; ended seen by ${[...endedBy].join(', ')}.`,
      `A chain node's time, p50 of each part (from the rows; PostgreSQL's now() is a transaction's start): the job before ended → the advance that queues it began ${f1(pct(parts.react, 0.5))} ms; ` +
        `→ the runner started it ${f1(pct(parts.pickup, 0.5))} ms; → the image workers answered (canvas, input, steps) ${f1(pct(parts.steps, 0.5))} ms; → its end (store, commit) ${f1(pct(parts.commit, 0.5))} ms. ` +
        `PostgreSQL transactions per chain node (a statement outside one counts as one; pg-boss's own included): ${f1(commitsPerNode)}.`,
    );

    // --- The same chains again, unchanged: everything from the cache.
    const cachedTotals: number[] = [];
    let newGenerations = 0;
    let cacheHits = 0;
    let cachedJobs = 0;
    await profiled('cached', async () => {
      for (let k = 1; k <= REPEATS; k++) {
        const before = await generationsOf(t, chains[k]);
        const tl = await follow(chains[k]);
        check(tl, `cached re-run of chain ${k}`, true);
        cachedTotals.push(tl.endedMs);
        newGenerations += (await generationsOf(t, chains[k])) - before;
        cachedJobs += tl.view.jobs.filter((j) => j.cached).length;
        cacheHits += (await jobTimes(t, tl.view.jobs.map((j) => j.jobId))).filter((j) => j.cacheHit).length;
      }
    });
    const p50Cached = pct(cachedTotals, 0.5);
    out.push([
      `the same chain again, unchanged: request → run ended (all ${CHAIN_NODES} cached)`,
      String(REPEATS),
      f1(p50Cached),
      f1(pct(cachedTotals, 0.9)),
      f1(Math.max(...cachedTotals)),
      `≤ ${GOAL_CACHED_RUN_MS} ms, 0 model calls`,
      Math.max(...cachedTotals) <= GOAL_CACHED_RUN_MS && newGenerations === 0 ? 'MET' : 'NOT MET',
      `${(p50Cached / floorChainMs).toFixed(2)}× the floor's time`,
    ]);
    lines.push(
      `Cached re-runs: ${cachedJobs} of ${REPEATS * CHAIN_NODES} jobs cached in the RunViews, ${cacheHits} job rows with cache_hit, ${newGenerations} new generations (model calls: ${newGenerations}).`,
    );

    // --- A list of prompts into one generation node (the offline engine), after its floor.
    const prompts = listPrompts(LIST_ITEMS);
    const model = workers.offlineModel(t.config.model.offline);
    const modelMs: number[] = [];
    for (const prompt of ['grayscale', ...prompts]) {
      const started = performance.now();
      await model.generate({ images: [{ data: png, mimeType: 'image/png' }], prompt, signal: AbortSignal.timeout(60_000), owner: user.id });
      modelMs.push(performance.now() - started);
    }
    modelMs.shift(); // the warm-up call
    const modelFloorMs = modelMs.reduce((a, b) => a + b, 0);
    out.push([`floor: the ${LIST_ITEMS} prompts back to back in-process (image workers' offline engine), per call`, String(LIST_ITEMS), f1(pct(modelMs, 0.5)), f1(pct(modelMs, 0.9)), f1(Math.max(...modelMs)), '', '', 'baseline']);

    const listProject = await projectWith(user.client, user.id, 'Bench list', listCanvas(imageUrl, prompts));
    const before = await generationsOf(t, listProject);
    const tl = await profiled('list', () => load.followRun(t.baseUrl, headers, listProject, { mode: 'all' }, RUN_CAP_MS));
    if (tl.status !== 'succeeded' || tl.view.jobs.length !== LIST_ITEMS) {
      const failed = tl.view.jobs.filter((j) => j.status !== 'succeeded');
      throw new Error(`list run ${tl.runId} ended ${tl.status} with ${tl.view.jobs.length} jobs; ${failed.length} not succeeded, first: ${JSON.stringify(failed.slice(0, 2))}`);
    }
    const jobs = await jobTimes(t, tl.view.jobs.map((j) => j.jobId));
    const running = maxOverlap(jobs);
    const created = jobs.map((j) => j.createdAt.getTime());
    const limits = {
      IMAGE_MODEL_MAX_CONCURRENT: t.config.model.maxConcurrent,
      JOBS_CONCURRENCY: t.config.jobs.concurrency,
      IMAGE_WORKERS: t.config.model.imageWorkers,
    };
    const limit = Math.min(limits.IMAGE_MODEL_MAX_CONCURRENT, limits.JOBS_CONCURRENCY);
    const queued = tl.allQueuedMs ?? NaN;
    out.push([
      `list of ${LIST_ITEMS} prompts → 1 generation node: request → every job queued`,
      '1',
      f1(queued),
      '',
      '',
      `≤ ${GOAL_ALL_QUEUED_MS} ms`,
      queued <= GOAL_ALL_QUEUED_MS ? 'MET' : 'NOT MET',
      `202 answered in ${f1(tl.answeredMs)} ms`,
    ]);
    out.push([
      `  the same run: request → run ended`,
      '1',
      f1(tl.endedMs),
      '',
      '',
      `at the model limit (${limit})`,
      running >= limit ? 'MET' : 'NOT MET',
      `${(tl.endedMs / modelFloorMs).toFixed(2)}× the floor's ${f1(modelFloorMs)} ms back to back; most running at once ${running}`,
    ]);
    lines.push(
      `List run: ${tl.view.jobs.length} jobs, ${(await generationsOf(t, listProject)) - before} generations (model calls); the jobs' rows were created within ${f1(Math.max(...created) - Math.min(...created))} ms of each other; ` +
        `most running at once ${running} by their rows (${tl.maxRunningSeen} in one RunView event), against ${Object.entries(limits).map(([k, v]) => `${k} ${v}`).join(', ')} ` +
        `(JOBS_RUNNING_PER_USER=0 here). Two more bounds apply: the job queue keeps one of its JOBS_CONCURRENCY workers for users' first jobs (src/jobs/queue.ts), so a run's ` +
        `further jobs run at most ${Math.max(1, limits.JOBS_CONCURRENCY - 1)} at once; and the image workers give one user at most IMAGE_WORKERS − 1 processes when there are two or more (src/imaging/pool.ts), ` +
        `so the offline engine's own work runs ${Math.max(1, limits.IMAGE_WORKERS - 1)} at a time; ` +
        `${tl.runEvents} run events and ${tl.jobEvents} job events on the stream.`,
    );
  } finally {
    await workers.close();
    await t.close();
    if (out.length > 0) {
      notes.push(
        '\nGraph runs (one instance, offline kinds; latencies at the load client, which follows each run on its event stream):\n\n' +
          table(['case', 'runs', 'p50 ms', 'p90 ms', 'max ms', 'goal', 'verdict', 'ratio to the floor'], out),
        ...lines,
      );
    }
  }
};
