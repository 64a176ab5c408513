// LOAD_RUNS=1 in the live mode (live-run.ts): 50-node graph runs started every LOAD_RUN_EVERY_SECONDS (default 10)
// while the live editors edit, so each step's p99 edit-to-peer is measured with runs going, against the same step
// without them (the baseline, measured just before in the same run).
//
// A run is one uploaded picture feeding a chain of 50 `adjust` nodes (bench/run-canvases.ts). Where the chain lives:
// - LOAD_RUN_ROOMS (default 20): in the editors' rooms — the first that many rooms are seeded with the chain beside
//   their 200-node canvas (its owner's own upload; ids of their own), and each of them that the step's editors
//   use starts a run every LOAD_RUN_EVERY_SECONDS, its owner (the room's first editor) asking over REST from this
//   process. So the runner's writes (each node's run state and job, its result) land in documents the editors are
//   editing and are broadcast to them. The editors never write the chain's nodes (live-session.ts, LiveRoom), and
//   the runner writes only those, so the lost/diverged checks keep reading only the editors' fields.
// - LOAD_RUN_ROOMS=0: on a project of its own, owned by a user of its own (no editor sees its writes).
//
// Each tick of a room, if the room's run before has ended, changes the chain's first node's brightness over REST (a
// GET and a conditional save of the canvas as it is, so every node's key changes: none of the 50 comes from the
// cache; a 409 — an editor's edit came in between — is read again and retried) and starts `POST
// /api/projects/{id}/runs` mode `downstream` from that first node: the chain's 50 nodes and nothing else (mode `all`
// would also run the room canvas's generation nodes). A tick that finds the run before still going starts none and
// counts as late. The rooms' ticks are spread evenly over the interval (each room's first tick at its own offset),
// as people who start runs on their own. Everything is bounded: every request by REQUEST_MS, the last runs' end by
// STOP_WAIT_MS (then they are canceled).
import { performance } from 'node:perf_hooks';
import { bounded } from './harness.js';
import { CHAIN_NODES, chainCanvas, chainNodeId, picture, projectWith, uploadPicture } from '../bench/run-canvases.js';
import { runEnded, type RunViewLike } from '../bench/run-view.js';
import type { HttpClient } from '../test/helpers/http-client.js';
import type { TestApp } from '../test/helpers/test-app.js';

const REQUEST_MS = 30_000;
const STOP_WAIT_MS = 120_000;
/** Conditional saves of the chain's change per tick: each 409 means an edit came in between the read and the save. */
const CHANGE_ATTEMPTS = 10;
/** The first node of the chain, from which each run goes downstream (the other 49 follow it). */
const RUN_FROM = chainNodeId(0);

export interface RunsDuringStep {
  everySeconds: number;
  /** Rooms of the editors that started runs (0: a project of its own, LOAD_RUN_ROOMS=0). */
  rooms: number;
  /** Runs started, and how they ended (a run still going at the stop is waited for, then canceled). */
  started: number;
  succeeded: number;
  failed: number;
  canceled: number;
  /** Ticks that found the room's run before still going (no run started). */
  late: number;
  /** Jobs of the runs started, and how many came from the cache (0 expected: every run changes the chain). */
  jobs: number;
  cached: number;
  /** Saves of the chain's change refused as stale (409: an editor's edit came in between) and made again. */
  conflicts: number;
  /** Each ended run's own time, from its createdAt to its finishedAt (the service's clock). */
  durationsMs: number[];
  /** First problems (a refused run, a failed save), at most 5. */
  problems: string[];
}

/** Where runs are started: a project with the chain, and the client (its owner's session) that starts them. */
export interface RunTarget {
  label: string;
  client: HttpClient;
  projectId: string;
}

interface Target extends RunTarget {
  /** The chain's first node's current variant (bench/run-canvases.ts adjustData): a new one each run. */
  variant: number;
}

let chainPicture: Promise<Buffer> | undefined;

/**
 * The chain a room of the editors is seeded with beside its canvas (LOAD_RUN_ROOMS): its owner uploads the picture
 * (an upload is its uploader's; one picture for every room will do, as the run cache is per project), the chain's
 * nodes and edges, and the ids the service writes. Refuses ids that the room's canvas already uses.
 */
export async function roomChain(client: HttpClient, room: number, canvas: { nodes: Array<{ id: string }>; edges: Array<{ id: string }> }) {
  chainPicture ??= picture(256);
  const imageUrl = await bounded(uploadPicture(client, await chainPicture, `load-run-room-${room}.png`), REQUEST_MS, 'POST /api/upload');
  const chain = chainCanvas(imageUrl, CHAIN_NODES, 1);
  const taken = new Set([...canvas.nodes, ...canvas.edges].map((x) => x.id));
  const clash = [...chain.nodes, ...chain.edges].find((x) => taken.has(x.id));
  if (clash) throw new Error(`room ${room}: the run's chain and the room's canvas both have an entry "${clash.id}"`);
  return { ...chain, serviceNodes: chain.nodes.map((n) => n.id) };
}

export class RunTicker {
  private readonly targets: Target[] = [];

  private constructor(
    readonly everySeconds: number,
    /** Runs go in the editors' rooms (LOAD_RUN_ROOMS > 0), not on a project of their own. */
    readonly inRooms: boolean,
  ) {}

  /** LOAD_RUN_ROOMS=0: signs the runs' user in and makes its project (the picture uploaded, the chain saved). */
  static async ownProject(t: TestApp, everySeconds: number): Promise<RunTicker> {
    const user = await bounded(t.user('load-runs@example.com', 'Load Runs'), REQUEST_MS, 'sign-in of the runs user');
    const imageUrl = await bounded(uploadPicture(user.client, await picture(256), 'load-runs.png'), REQUEST_MS, 'POST /api/upload');
    const projectId = await bounded(projectWith(user.client, user.id, 'Load runs', chainCanvas(imageUrl, CHAIN_NODES, 1)), REQUEST_MS, 'the runs project');
    const ticker = new RunTicker(everySeconds, false);
    ticker.targets.push({ label: 'the runs project', client: user.client, projectId, variant: 1 });
    return ticker;
  }

  /** LOAD_RUN_ROOMS > 0: runs in the editors' rooms, each added (addRoom) once it is seeded with the chain. */
  static inRooms(everySeconds: number): RunTicker {
    return new RunTicker(everySeconds, true);
  }

  /** A room seeded with the chain (roomChain), in room order: a step runs in the first ones its editors use. */
  addRoom(target: RunTarget): void {
    this.targets.push({ ...target, variant: 1 });
  }

  /**
   * Starts ticking now in the first `rooms` rooms that have the chain (all of them when not given; the project of
   * its own, LOAD_RUN_ROOMS=0); `stop()` (once or more) ends the ticks, waits for the last runs (bounded) and
   * answers what happened.
   */
  start(rooms = this.targets.length): { stop: () => Promise<RunsDuringStep> } {
    const targets = this.targets.slice(0, Math.max(0, rooms));
    const stats: RunsDuringStep = {
      everySeconds: this.everySeconds,
      rooms: this.inRooms ? targets.length : 0,
      started: 0,
      succeeded: 0,
      failed: 0,
      canceled: 0,
      late: 0,
      jobs: 0,
      cached: 0,
      conflicts: 0,
      durationsMs: [],
      problems: [],
    };
    const problem = (what: string) => {
      if (stats.problems.length < 5) stats.problems.push(what);
    };
    if (targets.length === 0) problem('no room of this step has the run chain');
    const everyMs = this.everySeconds * 1000;
    let stopped = false;
    const ticking = targets.map((target, k) => {
      let current: string | undefined;
      let chain: Promise<void> = Promise.resolve();
      const ended = (view: RunViewLike) => {
        stats[view.status === 'succeeded' ? 'succeeded' : view.status === 'canceled' ? 'canceled' : 'failed']++;
        if (view.finishedAt) stats.durationsMs.push(Date.parse(view.finishedAt) - Date.parse(view.createdAt));
        if (view.status === 'failed') problem(`${target.label}: run ${view.id} failed: ${view.jobs.find((j) => j.status === 'failed')?.reason ?? '?'}`);
      };
      /** The room's current run's state; when it has ended, it is counted and forgotten. */
      const look = async (): Promise<boolean> => {
        if (!current) return true;
        const got = await bounded(target.client.get(`/api/projects/${target.projectId}/runs/${current}`), REQUEST_MS, 'GET run');
        if (got.status !== 200) throw new Error(`${target.label}: GET run → ${got.status} ${got.text.slice(0, 200)}`);
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
        stats.conflicts += await changeChain(target);
        const res = await bounded(target.client.post(`/api/projects/${target.projectId}/runs`, { mode: 'downstream', nodeIds: [RUN_FROM] }), REQUEST_MS, 'POST run');
        if (res.status !== 202) throw new Error(`${target.label}: POST run → ${res.status} ${res.text.slice(0, 200)}`);
        const view = res.json as RunViewLike;
        stats.started++;
        stats.jobs += view.jobs.length;
        stats.cached += view.jobs.filter((j) => j.cached).length;
        current = view.id;
        if (runEnded(view.status)) await look();
      };
      const run = () => {
        chain = chain.then(() => (stopped ? undefined : tick().catch((err: Error) => problem(err.message))));
      };
      let interval: NodeJS.Timeout | undefined;
      const first = setTimeout(() => {
        run();
        interval = setInterval(run, everyMs);
      }, (k * everyMs) / targets.length);
      return {
        /** Ends this room's ticks, then waits (until `until`) for its last run, and cancels it if still going. */
        async stop(until: number) {
          clearTimeout(first);
          clearInterval(interval);
          await chain;
          try {
            while (current && performance.now() < until && !(await look())) await new Promise((resolve) => setTimeout(resolve, 500));
            if (current) {
              problem(`${target.label}: run ${current} still going ${STOP_WAIT_MS / 1000} s after the step: canceled`);
              await bounded(target.client.post(`/api/projects/${target.projectId}/runs/${current}/cancel`, {}), REQUEST_MS, 'cancel run');
              await look();
            }
          } catch (err) {
            problem((err as Error).message);
          }
        },
      };
    });
    let stopping: Promise<RunsDuringStep> | undefined;
    return {
      stop: () =>
        (stopping ??= (async () => {
          stopped = true;
          const until = performance.now() + STOP_WAIT_MS;
          await Promise.all(ticking.map((t) => t.stop(until)));
          return stats;
        })()),
    };
  }
}

/**
 * The chain's first node gets another brightness: a conditional REST save of the canvas as it was read, with that
 * one value changed (so every node's key changes). Answers how many saves were refused as stale (409) first.
 */
async function changeChain(target: Target): Promise<number> {
  const variant = ++target.variant;
  const brightness = chainCanvas('', 1, variant).nodes.find((n) => n.id === RUN_FROM)!.data.brightness;
  for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
    const read = await bounded(target.client.get(`/api/user/project/canvas?projectId=${target.projectId}`), REQUEST_MS, 'GET canvas');
    if (read.status !== 200) throw new Error(`${target.label}: GET canvas → ${read.status}`);
    const canvas = read.json as { nodes: Array<{ id: string; data: Record<string, unknown> }>; edges: unknown[]; version: number };
    const nodes = canvas.nodes.map((n) => (n.id === RUN_FROM ? { ...n, data: { ...n.data, brightness } } : n));
    // With `version`: a save that would carry back a value an editor has changed since the read is refused (409).
    const saved = await bounded(target.client.post('/api/user/project/canvas', { projectId: target.projectId, nodes, edges: canvas.edges, version: canvas.version }), REQUEST_MS, 'POST canvas');
    if (saved.status === 200) return attempt;
    if (saved.status !== 409) throw new Error(`${target.label}: POST canvas → ${saved.status} ${saved.text.slice(0, 200)}`);
  }
  throw new Error(`${target.label}: POST canvas: 409 ${CHANGE_ATTEMPTS} times (the document kept changing between a read and the save)`);
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
    `${r.started} runs started (${r.rooms ? `in ${r.rooms} rooms, each ` : ''}every ${r.everySeconds} s; ${r.late} ticks late: the run before still going), ${r.succeeded} succeeded, ${r.failed} failed, ${r.canceled} canceled; ` +
    `${r.jobs} jobs, ${r.cached} from the cache; a run took p50 ${ms(pct(r.durationsMs, 0.5))} ms, max ${ms(r.durationsMs.length ? Math.max(...r.durationsMs) : NaN)} ms` +
    (r.conflicts ? `; ${r.conflicts} saves of the chain's change refused as stale (409) and made again` : '') +
    (r.problems.length ? `; problems: ${r.problems.join(' | ')}` : '')
  );
}
