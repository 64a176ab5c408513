// The live mode's cost section (LOAD_LIVE_COST, live-run.ts): the service CPU of one edit on a large canvas against
// a small one, and the memory of an open document.
//
// CPU of one edit. A room of LOAD_COST_EDITORS tabs (a provider each, in the first load client) is opened on a canvas
// of 10 nodes and on one of LOAD_COST_NODES, and both stay open through every round. Each round, per canvas size,
// is a pair of adjacent windows of the same length on those open rooms (cost-windows.ts): one with edits — every tab
// editing LOAD_COST_RATE times a second for LOAD_COST_SECONDS, then their drain, up to a fixed length ("edit path"),
// then LOAD_COST_TAIL_SECONDS in which the document's debounced store and compaction fall ("with the store") — and
// one without edits, read at the same offsets. Which comes first alternates from round to round. The cost per edit is
// (CPU of the window with edits − CPU of the one without) / edits acknowledged, for the service (its process, threads
// included, and its own child processes but PostgreSQL and the load clients) and PostgreSQL (postmaster and
// backends). Each pair starts once the machine is quiet and the service and PostgreSQL have been idle for 2 s
// (bounded), so little of an earlier pair spills into it; what still does shows in the spread, and a negative round
// is printed with the two windows' readings and what fell into them (compactions, garbage collection).
import { performance } from 'node:perf_hooks';
import { makeCanvas, sizedCanvas } from '../bench/api.js';
import type { TestApp } from '../test/helpers/test-app.js';
import { negativeReason, perEdit, ratioOfMedians, spent, spreadOf, spreadText, us, withEditsFirst, type CpuReading, type CpuSpent, type WindowNotes } from './cost-windows.js';
import { bounded, pool } from './harness.js';
import type { LiveClient } from './live-clients.js';
import { numbers, type EditStats } from './live-protocol.js';
import { childrenCpu, treeCpu } from './resources.js';
import { collectGarbage, watchStalls } from './stalls.js';

export interface CostSettings {
  /** LOAD_COST_SECONDS: edits per window with edits. */
  seconds: number;
  /** LOAD_COST_ROUNDS: pairs of windows per canvas size. */
  rounds: number;
  /** LOAD_COST_EDITORS: tabs of the room on each canvas. */
  editors: number;
  /** LOAD_COST_RATE: edits per second per tab. */
  rate: number;
  /** LOAD_COST_NODES: the large canvas. */
  nodes: number;
  /** LOAD_COST_DOCS: documents opened on one socket for the memory measurement. */
  docs: number;
  /** LOAD_COST_TAIL_SECONDS: after the edit path, for the document's store. */
  tailSeconds: number;
  /** Setup requests in flight at once. */
  concurrency: number;
}

export interface CostContext {
  postmasterPid: number;
  /** The load clients' processes: children of this process whose CPU is not the service's. */
  clientPids: number[];
  within: <T>(p: Promise<T>) => Promise<T>;
  /** Waits until work outside this run leaves the cores alone (bounded). */
  quiet: () => Promise<void>;
}

const SMALL_CANVAS_NODES = 10;
/** One setup request (creating or seeding a project): a service that does not answer fails the section. */
const SETUP_REQUEST_MS = 60_000;
/** After the last edit: every acknowledgement and arrival within this, or they count as errors. */
const DRAIN_MS = 15_000;
/** The edit path lasts the edits and this much more, so the drain (a few ms unless the service is overloaded) is in it and its length is known beforehand. */
const PATH_EXTRA_MS = 2_000;
/** Before each pair the service and PostgreSQL each use less than this (cores) over 2 s… */
const IDLE_CORES = 0.02;
/** …waiting at most this long for it. */
const IDLE_WAIT_MS = 60_000;

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** One window of a pair: its edit path and its whole length, with what fell into each. */
interface Window {
  path: CpuSpent & WindowNotes;
  all: CpuSpent & WindowNotes;
}

/** Per canvas size: the cost per edit of each round, and what the rounds saw. */
interface PerSize {
  path: { service: number[]; postgres: number[] };
  withStore: { service: number[]; postgres: number[] };
  /** The service's CPU rate in the windows without edits (cores): its background with the rooms open. */
  background: number[];
  rounds: EditStats[];
}

export async function measureCost(t: TestApp, load: LiveClient, ctx: CostContext, settings: CostSettings): Promise<{ lines: string[]; errors: number }> {
  const { within } = ctx;
  const lines: string[] = [];
  const negatives: string[] = [];
  let errors = 0;
  const started = performance.now();
  const owner = await within(bounded(t.user('load-live-cost@example.com', 'Live Cost'), SETUP_REQUEST_MS, 'sign-in'));
  const cookie = await owner.client.jar.getCookieString(`${t.baseUrl}/api/collab`);
  const project = async (name: string, canvas: ReturnType<typeof makeCanvas>): Promise<string> => {
    const created = await bounded(owner.client.post('/api/user/project', { userId: owner.id, name }), SETUP_REQUEST_MS, 'POST /api/user/project');
    if (created.status !== 200) throw new Error(`create project → ${created.status} ${created.text.slice(0, 200)}`);
    const seeded = await bounded(owner.client.post('/api/user/project/canvas', { projectId: created.json.id, ...canvas, version: 0 }), SETUP_REQUEST_MS, `POST /api/user/project/canvas (${canvas.nodes.length} nodes)`);
    if (seeded.status !== 200) throw new Error(`seed ${canvas.nodes.length}-node canvas → ${seeded.status} ${seeded.text.slice(0, 200)}`);
    return created.json.id as string;
  };
  const sizes = [SMALL_CANVAS_NODES, settings.nodes];
  const projects: string[] = [];
  for (const n of sizes) projects.push(await within(project(`Cost ${n}`, sizedCanvas(owner.id, 50_000 + n, n))));
  const memoryProjects = new Array<string>(settings.docs);
  await within(pool(settings.docs, settings.concurrency, async (k) => void (memoryProjects[k] = await project(`Memory ${k}`, makeCanvas(owner.id, 60_000 + k)))));
  process.stderr.write(`cost: projects of ${sizes.join(' and ')} nodes and ${settings.docs} of 200 nodes seeded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

  // --- CPU of one edit
  load.send({ type: 'costOpen', origin: t.baseUrl, cookie, userId: owner.id, docs: projects.map((projectId) => ({ projectId, editors: settings.editors })), timeoutMs: 60_000 });
  const opened = await within(load.wait('costOpened', 90_000));
  if (opened.errors.length) throw new Error(`cost rooms did not open: ${opened.errors.join(' | ')}`);
  const notService = new Set([ctx.postmasterPid, ...ctx.clientPids]);
  const cpuNow = (): CpuReading => {
    const c = process.cpuUsage();
    return { at: performance.now(), service: (c.user + c.system) / 1e6 + childrenCpu(process.pid, notService), postgres: treeCpu(ctx.postmasterPid) };
  };
  /** Waits (bounded) until the service and PostgreSQL have idled for 2 s; answers the service's last rate if they did not. */
  const idle = async (): Promise<number | undefined> => {
    const since = performance.now();
    for (;;) {
      const a = cpuNow();
      await within(sleep(2_000));
      const b = cpuNow();
      const s = spent(a, b);
      if (s.service / s.wallS < IDLE_CORES && s.postgres / s.wallS < IDLE_CORES) return undefined;
      if (performance.now() - since >= IDLE_WAIT_MS) return s.service / s.wallS;
    }
  };
  /** Live documents compacted (their snapshot written) from `from` until `to` (wall clock), and until `mid`. */
  const compacted = async (from: Date, mid: Date, to: Date): Promise<{ path: number; all: number }> => {
    const { rows } = await t.pool.query<{ path: number; all: number }>(
      'SELECT count(*) FILTER (WHERE updated_at < $2)::int AS path, count(*)::int AS "all" FROM collab_snapshots WHERE updated_at >= $1 AND updated_at < $3',
      [from, mid, to],
    );
    return rows[0];
  };
  /**
   * One window: `edits` (when given) starts at its beginning; it is read at `pathMs` (or when the edits have
   * drained, if later) and `tailMs` after that. Answers what each part spent and held.
   */
  const window = async (pathMs: number, tailMs: number, edits?: () => Promise<EditStats>): Promise<Window & { stats?: EditStats }> => {
    const gcPath = watchStalls();
    const from = new Date();
    const a = cpuNow();
    const stats = edits ? await edits() : undefined;
    await within(sleep(a.at + pathMs - performance.now()));
    const b = cpuNow();
    const mid = new Date();
    const pathGc = gcPath().gcTotalMs;
    const gcTail = watchStalls();
    await within(sleep(tailMs));
    const c = cpuNow();
    const to = new Date();
    const tailGc = gcTail().gcTotalMs;
    // Read after the window (between the two of a pair), so the query's own work falls in neither.
    const n = await compacted(from, mid, to);
    return {
      path: { ...spent(a, b), compactions: n.path, gcMs: pathGc },
      all: { ...spent(a, c), compactions: n.all, gcMs: pathGc + tailGc },
      stats,
    };
  };

  const perSize = new Map<number, PerSize>(sizes.map((n) => [n, { path: { service: [], postgres: [] }, withStore: { service: [], postgres: [] }, background: [], rounds: [] }]));
  const plannedPathMs = settings.seconds * 1000 + PATH_EXTRA_MS;
  const tailMs = settings.tailSeconds * 1000;
  for (let round = 0; round < settings.rounds; round++) {
    for (let k = 0; k < sizes.length; k++) {
      await ctx.quiet();
      const busy = await idle();
      const edits = async () => {
        load.send({ type: 'costEdits', projectId: projects[k], editsPerSecond: settings.rate, durationMs: settings.seconds * 1000, drainMs: DRAIN_MS });
        return numbers((await within(load.wait('costDone', settings.seconds * 1000 + DRAIN_MS + 60_000))).stats);
      };
      let withEdits: Window & { stats?: EditStats };
      let without: Window;
      const first = withEditsFirst(round);
      if (first) {
        withEdits = await window(plannedPathMs, tailMs, edits);
        // The same lengths as the window just measured (its drain may have run past the planned edit path).
        without = await window(withEdits.path.wallS * 1000, (withEdits.all.wallS - withEdits.path.wallS) * 1000);
      } else {
        without = await window(plannedPathMs, tailMs);
        withEdits = await window(plannedPathMs, tailMs, edits);
      }
      const stats = withEdits.stats!;
      const m = perSize.get(sizes[k])!;
      m.rounds.push(stats);
      m.background.push(without.all.service / without.all.wallS);
      errors += stats.errors;
      const path = perEdit(withEdits.path, without.path, stats.acked);
      const all = perEdit(withEdits.all, without.all, stats.acked);
      if (stats.acked > 0) {
        m.path.service.push(path.service);
        m.path.postgres.push(path.postgres);
        m.withStore.service.push(all.service);
        m.withStore.postgres.push(all.postgres);
      }
      const label = `round ${round + 1}, ${sizes[k].toLocaleString('en')} nodes`;
      for (const [part, cost, w, wo] of [
        ['edit path', path, withEdits.path, without.path],
        ['with the store', all, withEdits.all, without.all],
      ] as const) {
        for (const what of ['service', 'postgres'] as const) {
          if (cost[what] < 0) negatives.push(`${label}, ${part}, ${what === 'service' ? 'service' : 'PostgreSQL'}: NEGATIVE (${us(cost[what])} µs per edit): ${negativeReason(what, w, wo)}.`);
        }
      }
      process.stderr.write(
        `  cost ${label} (${first ? 'with edits first' : 'without edits first'}${busy !== undefined ? `; the service still used ${(busy * 1000).toFixed(0)} ms/s after waiting ${IDLE_WAIT_MS / 1000} s` : ''}): ` +
          `${stats.edits} edits, ${stats.acked} acknowledged; service ${us(path.service)} µs per edit (${us(all.service)} µs with the store), PostgreSQL ${us(path.postgres)} µs (${us(all.postgres)} µs); ` +
          `windows of ${withEdits.path.wallS.toFixed(1)} + ${(withEdits.all.wallS - withEdits.path.wallS).toFixed(1)} s: service ${(withEdits.all.service * 1000).toFixed(0)} ms with edits, ${(without.all.service * 1000).toFixed(0)} ms without; ` +
          `p99 ${stats.p99Ms.toFixed(1)} ms, errors ${stats.errors}${stats.errors ? ` ${JSON.stringify(stats.errorKinds)}` : ''}\n`,
      );
      for (const e of stats.firstErrors) process.stderr.write(`    ${e}\n`);
    }
  }
  load.send({ type: 'costClose' });
  await within(load.wait('costClosed', 30_000));

  const [small, large] = sizes.map((n) => perSize.get(n)!);
  const median = (xs: number[]) => spreadOf(xs).median;
  const describe = (n: number, m: PerSize) =>
    `${n.toLocaleString('en')} nodes: service ${spreadText(spreadOf(m.path.service))} per edit, ${spreadText(spreadOf(m.withStore.service))} with the store; ` +
    `PostgreSQL ${spreadText(spreadOf(m.path.postgres))}, ${spreadText(spreadOf(m.withStore.postgres))} with the store; ` +
    `the service without edits ${(median(m.background) * 1000).toFixed(1)} ms/s; p99 ${median(m.rounds.map((r) => r.p99Ms)).toFixed(1)} ms to the other editors, ack p99 ${median(m.rounds.map((r) => r.ackP99Ms)).toFixed(1)} ms; ` +
    `update ${median(m.rounds.map((r) => r.updateBytes)).toFixed(0)} bytes`;
  const fmtRatio = (r: number) => (Number.isFinite(r) ? `${r.toFixed(2)}× (goal ≤ 1.5×: ${r <= 1.5 ? 'MET' : 'NOT MET'})` : '– (a median is not positive: see the negative rounds below)');
  lines.push(
    `Cost of one edit (a room of ${settings.editors} tabs on one canvas, each editing ${settings.rate}×/s; ${settings.rounds} rounds per canvas size, each a pair of adjacent windows of the same length on the same open rooms, one with edits and one without ` +
      `(with edits first in rounds 1, 3, …, without first in rounds 2, 4, …). "Edit path": the ${settings.seconds} s of edits and their drain (${(plannedPathMs / 1000).toFixed(0)} s); "with the store": that and ${settings.tailSeconds} s after it (the document's debounced store/compaction). ` +
      `Cost per edit = (CPU of the window with edits − CPU of the one without) / edits acknowledged; service = its process and its own child processes but PostgreSQL and the load clients. Median (lowest–highest) over the rounds):`,
    `- ${describe(SMALL_CANVAS_NODES, small)}`,
    `- ${describe(settings.nodes, large)}`,
    `- ratio of the medians, ${settings.nodes.toLocaleString('en')} / ${SMALL_CANVAS_NODES} nodes: edit path ${fmtRatio(ratioOfMedians(spreadOf(large.path.service), spreadOf(small.path.service)))}; ` +
      `with the store ${fmtRatio(ratioOfMedians(spreadOf(large.withStore.service), spreadOf(small.withStore.service)))}`,
    ...(negatives.length ? negatives.map((line) => `- ${line}`) : ['- No round came out negative.']),
  );

  // --- Memory of an open document
  await ctx.quiet();
  collectGarbage();
  const base = process.memoryUsage();
  load.send({ type: 'memoryOpen', origin: t.baseUrl, cookie, projectIds: memoryProjects, timeoutMs: 120_000 });
  const mem = await within(load.wait('memoryOpened', 150_000));
  if (mem.errors.length) {
    errors += mem.errors.length;
    lines.push(`Memory measurement: ${mem.errors.length} problem(s) opening documents: ${mem.errors.slice(0, 3).join(' | ')}`);
  }
  await within(sleep(2_000));
  collectGarbage();
  const open = process.memoryUsage();
  load.send({ type: 'memoryClose' });
  await within(load.wait('memoryClosed', 30_000));
  await within(sleep(5_000));
  collectGarbage();
  const closed = process.memoryUsage();
  const n = mem.opened || 1;
  lines.push(
    `Memory per open document (${mem.opened} of ${settings.docs} documents of 200 nodes / 300 edges opened by one tab, one socket, a provider per document, in ${(mem.ms / 1000).toFixed(1)} s; ` +
      `the service's process after a forced GC): RSS +${mib(open.rss - base.rss)} MiB = ${((open.rss - base.rss) / n / 1024).toFixed(0)} KiB per document, ` +
      `JS heap +${mib(open.heapUsed - base.heapUsed)} MiB = ${((open.heapUsed - base.heapUsed) / n / 1024).toFixed(0)} KiB, external +${mib(open.external - base.external)} MiB. ` +
      `5 s after the tab closed them: RSS ${mib(closed.rss - base.rss)} MiB and heap ${mib(closed.heapUsed - base.heapUsed)} MiB above the start.`,
  );
  lines.push(`Cost section: ${((performance.now() - started) / 1000).toFixed(0)} s, ${errors} error(s).`);
  return { lines, errors };
}
