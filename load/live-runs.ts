// LOAD_RUNS=1 in the live mode (live-run.ts): a 50-node graph run started on the instance every
// LOAD_RUN_EVERY_SECONDS (default 10) while the live editors edit, so each step's p99 edit-to-peer is measured with
// runs going, against the same step without them (the baseline, measured just before in the same run).
//
// One user of its own owns a project with one uploaded picture feeding a chain of 50 `adjust` nodes
// (bench/run-canvases.ts). Each tick, if the run before has ended, it changes the first node's brightness over REST
// (every node's key changes with it, so all 50 run again: none comes from the cache) and starts `POST
// /api/projects/{id}/runs` mode `all`; a tick that finds the run before still going starts none and counts as
// late. The runner writes each node's run state and result into that project's live document, and the image workers,
// the job queue and PostgreSQL do the chain's work beside the editors' edits. Its few requests (three per tick) come
// from this process (the service's): their cost is small against the editors' thousands of edits per second.
// Everything is bounded: every request by REQUEST_MS, the last run's end by STOP_WAIT_MS (then it is canceled).
import { performance } from 'node:perf_hooks';
import { bounded } from './harness.js';
import { CHAIN_NODES, chainCanvas, chainNodeId, picture, projectWith, uploadPicture } from '../bench/run-canvases.js';
import { runEnded, type RunViewLike } from '../bench/run-view.js';
import type { TestApp } from '../test/helpers/test-app.js';

const REQUEST_MS = 30_000;
const STOP_WAIT_MS = 120_000;

export interface RunsDuringStep {
  everySeconds: number;
  /** Runs started, and how they ended (a run still going at the stop is waited for, then canceled). */
  started: number;
  succeeded: number;
  failed: number;
  canceled: number;
  /** Ticks that found the run before still going (no run started). */
  late: number;
  /** Jobs of the runs started, and how many came from the cache (0 expected: every run changes the chain). */
  jobs: number;
  cached: number;
  /** Each ended run's own time, from its createdAt to its finishedAt (the service's clock). */
  durationsMs: number[];
  /** First problems (a refused run, a failed save), at most 5. */
  problems: string[];
}

type User = Awaited<ReturnType<TestApp['user']>>;

export class RunTicker {
  private variant = 1;

  private constructor(
    private readonly user: User,
    private readonly projectId: string,
    readonly everySeconds: number,
  ) {}

  /** Signs the runs' user in and makes its project: the picture uploaded, the chain saved. */
  static async prepare(t: TestApp, everySeconds: number): Promise<RunTicker> {
    const user = await bounded(t.user('load-runs@example.com', 'Load Runs'), REQUEST_MS, 'sign-in of the runs user');
    const imageUrl = await bounded(uploadPicture(user.client, await picture(256), 'load-runs.png'), REQUEST_MS, 'POST /api/upload');
    const projectId = await bounded(projectWith(user.client, user.id, 'Load runs', chainCanvas(imageUrl, CHAIN_NODES, 1)), REQUEST_MS, 'the runs project');
    return new RunTicker(user, projectId, everySeconds);
  }

  /** Starts ticking now; `stop()` ends the ticks, waits for the last run (bounded) and answers what happened. */
  start(): { stop: () => Promise<RunsDuringStep> } {
    const stats: RunsDuringStep = { everySeconds: this.everySeconds, started: 0, succeeded: 0, failed: 0, canceled: 0, late: 0, jobs: 0, cached: 0, durationsMs: [], problems: [] };
    const problem = (what: string) => {
      if (stats.problems.length < 5) stats.problems.push(what);
    };
    let current: string | undefined;
    let stopped = false;
    let ticking: Promise<void> = Promise.resolve();
    const ended = (view: RunViewLike) => {
      stats[view.status === 'succeeded' ? 'succeeded' : view.status === 'canceled' ? 'canceled' : 'failed']++;
      if (view.finishedAt) stats.durationsMs.push(Date.parse(view.finishedAt) - Date.parse(view.createdAt));
      if (view.status === 'failed') problem(`run ${view.id} failed: ${view.jobs.find((j) => j.status === 'failed')?.reason ?? '?'}`);
    };
    /** The current run's state; when it has ended, it is counted and forgotten. */
    const look = async (): Promise<boolean> => {
      if (!current) return true;
      const got = await bounded(this.user.client.get(`/api/projects/${this.projectId}/runs/${current}`), REQUEST_MS, 'GET run');
      if (got.status !== 200) throw new Error(`GET run → ${got.status} ${got.text.slice(0, 200)}`);
      const view = got.json as RunViewLike;
      if (!runEnded(view.status)) return false;
      ended(view);
      current = undefined;
      return true;
    };
    const tick = async () => {
      if (!(await look())) {
        stats.late++;
        return;
      }
      await this.changeChain();
      const res = await bounded(this.user.client.post(`/api/projects/${this.projectId}/runs`, { mode: 'all' }), REQUEST_MS, 'POST run');
      if (res.status !== 202) throw new Error(`POST run → ${res.status} ${res.text.slice(0, 200)}`);
      const view = res.json as RunViewLike;
      stats.started++;
      stats.jobs += view.jobs.length;
      stats.cached += view.jobs.filter((j) => j.cached).length;
      current = view.id;
      if (runEnded(view.status)) await look();
    };
    const run = () => {
      ticking = ticking.then(() => (stopped ? undefined : tick().catch((err: Error) => problem(err.message))));
    };
    run();
    const timer = setInterval(run, this.everySeconds * 1000);
    return {
      stop: async () => {
        clearInterval(timer);
        stopped = true;
        await ticking;
        const until = performance.now() + STOP_WAIT_MS;
        try {
          while (current && performance.now() < until && !(await look())) await new Promise((resolve) => setTimeout(resolve, 500));
          if (current) {
            problem(`run ${current} still going ${STOP_WAIT_MS / 1000} s after the step: canceled`);
            await bounded(this.user.client.post(`/api/projects/${this.projectId}/runs/${current}/cancel`, {}), REQUEST_MS, 'cancel run');
            await look();
          }
        } catch (err) {
          problem((err as Error).message);
        }
        return stats;
      },
    };
  }

  /** The chain's first node gets another brightness (a REST save of the canvas as it is), so every key changes. */
  private async changeChain(): Promise<void> {
    const variant = ++this.variant;
    for (let attempt = 0; attempt < 3; attempt++) {
      const read = await bounded(this.user.client.get(`/api/user/project/canvas?projectId=${this.projectId}`), REQUEST_MS, 'GET canvas');
      if (read.status !== 200) throw new Error(`GET canvas → ${read.status}`);
      const canvas = read.json as { nodes: Array<{ id: string; data: Record<string, unknown> }>; edges: unknown[]; version: number };
      const first = chainCanvas('', 1, variant).nodes.find((n) => n.id === chainNodeId(0))!.data;
      const nodes = canvas.nodes.map((n) => (n.id === chainNodeId(0) ? { ...n, data: { ...n.data, brightness: first.brightness } } : n));
      const saved = await bounded(this.user.client.post('/api/user/project/canvas', { projectId: this.projectId, nodes, edges: canvas.edges, version: canvas.version }), REQUEST_MS, 'POST canvas');
      if (saved.status === 200) return;
      if (saved.status !== 409) throw new Error(`POST canvas → ${saved.status} ${saved.text.slice(0, 200)}`);
    }
    throw new Error('POST canvas: 409 three times (the document kept changing)');
  }
}

/** Nearest-rank percentile. */
const pct = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
};

/** Whether the runs of a step went as they should: at least one started, none failed or was refused. */
export const runsHeld = (r: RunsDuringStep) => r.started > 0 && r.failed === 0 && r.problems.length === 0;

/** One line of what the runs of a step did. */
export function runsLine(r: RunsDuringStep): string {
  const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '–');
  return (
    `${r.started} runs started (every ${r.everySeconds} s; ${r.late} ticks late: the run before still going), ${r.succeeded} succeeded, ${r.failed} failed, ${r.canceled} canceled; ` +
    `${r.jobs} jobs, ${r.cached} from the cache; a run took p50 ${ms(pct(r.durationsMs, 0.5))} ms, max ${ms(Math.max(...r.durationsMs))} ms` +
    (r.problems.length ? `; problems: ${r.problems.join(' | ')}` : '')
  );
}
