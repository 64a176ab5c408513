// `npm run load:live` (LOAD_MODE=live): how many editors of the live canvas one instance holds with p99 < 100 ms
// from an edit to its arrival at the other editors of its room.
//
// The same frame as the REST mode (run.ts): the whole service on its embedded PostgreSQL (startTestApp, temp
// DATA_DIR, loopback port), users signed in through the real OAuth flow, a load client in a process of its own
// (live-editors.ts), steps of more and more editors until one misses the goal, a quiet-core wait before each
// step, the service's / PostgreSQL's / the client's CPU and PostgreSQL's own view over each step, a wall-time
// cap, and everything stopped on every way out. What differs:
//
// - Rooms: editors come in rooms of LOAD_ROOM_SIZE (default 5; a list such as "1,3,5" is cycled; "mix" = 1…5)
//   per project. A room's first editor owns the project, seeds it with a 200-node / 300-edge canvas through
//   REST (POST /api/user/project/canvas) and invites the others as editors (POST …/members).
// - Editors: one socket each (a browser tab) to /api/collab with the session cookie and our Origin, a
//   HocuspocusProvider on the project's document; once a second each makes one small edit (alternately a move
//   and a prompt edit of nodes no one else in the room writes).
// - Measured per step: edits/s, p50/p99 from an edit sent to its arrival at the room's other editors, the
//   acknowledgement time, errors, lost edits (every editor's document, and after everyone left the canvas over
//   REST, against what was acknowledged), the service's CPU and RSS, PostgreSQL's CPU and WAL/s.
// - The cost section (LOAD_LIVE_COST, default on; `only` runs nothing else; live-cost.ts): the service CPU of one
//   edit on a 5,000-node canvas against a 10-node one — each round a window with edits against an adjacent window of
//   the same length without them, the median and spread over the rounds — and the memory of an open document.
//
// Settings (environment), besides those of run.ts (LOAD_SECONDS, LOAD_WARMUP_SECONDS, LOAD_REFINE,
// LOAD_SIGNIN_CONCURRENCY, LOAD_P99_MS, LOAD_DATABASE_POOL_SIZE, LOAD_PROFILE (LOAD_CLIENT_PROFILE=1: the load client too), LOAD_QUIET_CORES,
// LOAD_QUIET_WAIT_SECONDS, LOAD_BUSY_RERUNS, which mean the same here): LOAD_STEPS (default
// 50,100,250,500,1000,1500,2000), LOAD_MAX_MINUTES (default 30), LOAD_ROOM_SIZE, LOAD_CONNECT_CONCURRENCY
// (sockets opened at once, default 32), LOAD_CLIENTS (load client processes, default 2; rooms are spread over them), LOAD_LIVE_EDITOR (wire, the default, or provider: how an editor is simulated, live-wire.ts), LOAD_CLIENT_SCHED (batch, the default, or normal: the load clients' scheduling policy, live-clients.ts), LOAD_AWARENESS_PHASE (spread, the default, or connect: when a wire editor's awareness renewals fall, live-wire.ts), LOAD_LIVE_COST (1, 0 or only), LOAD_COST_SECONDS (the edits of a window with edits, default 15),
// LOAD_COST_ROUNDS (pairs of windows, with and without edits, per canvas size; default 3), LOAD_COST_EDITORS (room size of the cost rounds, default 5),
// LOAD_COST_RATE (edits per second per editor in those rounds, default 10), LOAD_COST_NODES (default 5000),
// LOAD_INSTANCES (1, or 2: two instances sharing documents through Redis behind Debian's nginx with deploy/nginx.conf,
// load/instances.ts, with Redis's PUBLISH calls and bytes per edit in the notes), LOAD_COLLAB_URL (project, the default:
// each socket on /api/collab/<projectId>; shared: /api/collab, as older clients; load/live-session.ts),
// COLLAB_* settings in the environment are passed to the service (they show in the header). LOAD_COST_TAIL_SECONDS (each window goes on this long after its edit path, so the document's debounced store falls
// in the window of its edits, default 10), LOAD_COST_DOCS (documents opened on one socket for the memory measurement, default 100),
// LOAD_RUNS (1: each step is measured twice, first as it is, then with 50-node graph runs: p99 edit-to-peer with and
// without runs, live-runs.ts), LOAD_RUN_ROOMS (with LOAD_RUNS=1: the first this many rooms, default 20, have the run
// chain in their canvas and each of them in a step starts a run every LOAD_RUN_EVERY_SECONDS, default 10, its owner
// asking; 0: one run every LOAD_RUN_EVERY_SECONDS on a project of its own), LOAD_STEP_REPEATS (each step measured this many times in a row, default 1), LOAD_GO_ON (1: go on after a step misses the goal, so the table has every step; no bisecting).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { inspect } from 'node:util';
import { makeCanvas } from '../bench/api.js';
import { startTestApp, type TestApp } from '../test/helpers/test-app.js';
import { bounded, CapReached, envNumber, envSteps, pool, startCap, startWindow, waitForQuiet, type Watchers, type WindowResult } from './harness.js';
import { measureCost } from './live-cost.js';
import { numbers, type LiveEditorSpec, type LiveRoomSpec, type LiveStepRequest, type LiveStepResult, type EditStats } from './live-protocol.js';
import { LiveClients } from './live-clients.js';
import { startInstances, type Instances } from './instances.js';
import { collabUrlSetting } from './live-session.js';
import { awarenessPhase } from './live-wire.js';
import { parseRoomSizes, RoomLayout } from './live-plan.js';
import { liveResourcesTable, liveResultsTable, type LiveMeasured } from './live-report.js';
import { PgWatch } from './postgres.js';
import { loadAverage, machineInfo, parentPid, treeCpu } from './resources.js';
import { collectGarbage, STALL_MS, stallsLine } from './stalls.js';
import { roomChain, RunTicker, runsHeld, runsLine, type RunsDuringStep } from './live-runs.js';
import { CHAIN_NODES } from '../bench/run-canvases.js';

// ---------------------------------------------------------------------------------------------------------
// Settings

const costSetting = (process.env.LOAD_LIVE_COST ?? '1').trim();
if (!['0', '1', 'only'].includes(costSetting)) throw new Error(`LOAD_LIVE_COST must be 1, 0 or only, got "${costSetting}"`);

const settings = {
  seconds: Math.round(envNumber('LOAD_SECONDS', 60, 1)),
  steps: envSteps([50, 100, 250, 500, 1000, 1500, 2000]),
  /** LOAD_STEP_REPEATS: each step measured this many times in a row (default 1). */
  repeats: Math.round(envNumber('LOAD_STEP_REPEATS', 1, 1)),
  /** LOAD_GO_ON=1: every step is measured even after one missed the goal (a table of all of them); no bisecting then. */
  goOn: process.env.LOAD_GO_ON === '1',
  warmupSeconds: Math.round(envNumber('LOAD_WARMUP_SECONDS', 10, 0)),
  refine: Math.round(envNumber('LOAD_REFINE', 2, 0)),
  capMs: envNumber('LOAD_MAX_MINUTES', 30, 1) * 60_000,
  signInConcurrency: Math.round(envNumber('LOAD_SIGNIN_CONCURRENCY', 16, 1)),
  p99LimitMs: envNumber('LOAD_P99_MS', 100, 1),
  quietCores: envNumber('LOAD_QUIET_CORES', 0.25, 0),
  quietWaitMs: envNumber('LOAD_QUIET_WAIT_SECONDS', 60, 0) * 1000,
  busyReruns: Math.round(envNumber('LOAD_BUSY_RERUNS', 1, 0)),
  profile: ['1', 'heap', 'alloc'].includes(process.env.LOAD_PROFILE ?? ''),
  poolSize: process.env.LOAD_DATABASE_POOL_SIZE ? String(Math.round(envNumber('LOAD_DATABASE_POOL_SIZE', 10, 1))) : undefined,
  roomSizes: parseRoomSizes(process.env.LOAD_ROOM_SIZE),
  connectConcurrency: Math.round(envNumber('LOAD_CONNECT_CONCURRENCY', 32, 1)),
  clients: Math.round(envNumber('LOAD_CLIENTS', 2, 1)),
  editor: liveEditor(process.env.LOAD_LIVE_EDITOR),
  clientSched: clientSched(process.env.LOAD_CLIENT_SCHED),
  awarenessPhase: awarenessPhase(),
  cost: costSetting as '0' | '1' | 'only',
  costSeconds: envNumber('LOAD_COST_SECONDS', 15, 1),
  costRounds: Math.round(envNumber('LOAD_COST_ROUNDS', 3, 1)),
  costEditors: Math.round(envNumber('LOAD_COST_EDITORS', 5, 1)),
  costRate: envNumber('LOAD_COST_RATE', 10, 0.1),
  costNodes: Math.round(envNumber('LOAD_COST_NODES', 5_000, 11)),
  costDocs: Math.round(envNumber('LOAD_COST_DOCS', 100, 1)),
  costTailSeconds: envNumber('LOAD_COST_TAIL_SECONDS', 10, 0),
  instances: Math.round(envNumber('LOAD_INSTANCES', 1, 1)),
  collabUrl: collabUrlSetting(),
  runs: onOff('LOAD_RUNS'),
  runEverySeconds: envNumber('LOAD_RUN_EVERY_SECONDS', 10, 1),
  /** LOAD_RUN_ROOMS: the editors' rooms (the first ones) seeded with the run chain, where the runs go; 0: a project of its own. */
  runRooms: Math.round(envNumber('LOAD_RUN_ROOMS', 20, 0)),
};

/** A setting that is 0 (the default) or 1. */
function onOff(name: string): boolean {
  const value = (process.env[name] ?? '').trim() || '0';
  if (value !== '0' && value !== '1') throw new Error(`${name} must be 0 or 1, got "${process.env[name]}"`);
  return value === '1';
}

/** LOAD_LIVE_EDITOR: wire (default; live-wire.ts) or provider (a HocuspocusProvider and a Y.Doc per editor). */
function liveEditor(raw: string | undefined): 'wire' | 'provider' {
  const value = (raw ?? '').trim() || 'wire';
  if (value !== 'wire' && value !== 'provider') throw new Error(`LOAD_LIVE_EDITOR must be wire or provider, got "${raw}"`);
  return value;
}

/** LOAD_CLIENT_SCHED: batch (default: the load clients never preempt the service on wakeup; live-clients.ts) or normal. */
function clientSched(raw: string | undefined): 'batch' | 'normal' {
  const value = (raw ?? '').trim() || 'batch';
  if (value !== 'batch' && value !== 'normal') throw new Error(`LOAD_CLIENT_SCHED must be batch or normal, got "${raw}"`);
  return value;
}

/** After the last edit: every acknowledgement and arrival within this, or they count as errors. */
const DRAIN_MS = 15_000;
const SETTLE_MS = 3_000;
/** One setup request (a sign-in, creating, seeding or sharing a project): a service that does not answer fails the run. */
const SETUP_REQUEST_MS = 60_000;
const VERIFY_CONCURRENCY = 16;
const GOAL_EDITORS = 1_000;

/** The step's latency against the goal: to the other editors, or (rooms of one editor only) to the acknowledgement. */
const goalP99 = (r: EditStats) => (r.arrivals > 0 ? r.p99Ms : r.ackP99Ms);
type Within = <T>(p: Promise<T>) => Promise<T>;

// ---------------------------------------------------------------------------------------------------------
// Editors and rooms: users signed in through the real OAuth flow; each room's owner seeds and shares it

interface SignedIn {
  id: string;
  cookie: string;
  client: Awaited<ReturnType<TestApp['user']>>['client'];
}

const editorEmail = (i: number) => `load-live-${i}@example.com`;

class Rooms {
  readonly layout = new RoomLayout(settings.roomSizes);
  private readonly users: SignedIn[] = [];
  private readonly specs: LiveRoomSpec[] = [];
  editors = 0;
  signInMs = 0;

  constructor(
    private readonly t: TestApp,
    private readonly load: LiveClients,
    private readonly within: Within,
    /** LOAD_RUN_ROOMS: the ticker whose runs go in the first `rooms` rooms, which are seeded with its chain. */
    private readonly runs?: { ticker: RunTicker; rooms: number },
  ) {}

  private async signIn(i: number): Promise<SignedIn> {
    const started = performance.now();
    const { client, id } = await bounded(this.t.user(editorEmail(i), `Live Editor ${i}`), SETUP_REQUEST_MS, `sign-in of ${editorEmail(i)}`);
    const cookie = await client.jar.getCookieString(`${this.t.baseUrl}/api/collab`);
    this.signInMs += performance.now() - started;
    return { client, id, cookie };
  }

  /** Makes sure editors 0…count-1 exist, with their rooms, here and in the load client. */
  async ensure(count: number): Promise<void> {
    const from = this.editors;
    if (count <= from) return;
    const wall = performance.now();
    const newRooms = this.layout.extend(count);
    await this.within(pool(count - from, settings.signInConcurrency, async (k) => void (this.users[from + k] = await this.signIn(from + k))));
    const added: LiveRoomSpec[] = new Array<LiveRoomSpec>(newRooms.length);
    const chained: Array<{ client: SignedIn['client']; projectId: string } | undefined> = new Array(newRooms.length);
    await this.within(
      pool(newRooms.length, settings.signInConcurrency, async (k) => {
        const room = newRooms[k];
        const owner = this.users[room.first];
        const created = await bounded(owner.client.post('/api/user/project', { userId: owner.id, name: `Live room ${room.index}` }), SETUP_REQUEST_MS, 'POST /api/user/project');
        if (created.status !== 200) throw new Error(`create project → ${created.status} ${created.text.slice(0, 200)}`);
        const projectId = created.json.id as string;
        const canvas = makeCanvas(owner.id, 9_000 + room.index);
        const chain = this.runs && room.index < this.runs.rooms ? await roomChain(owner.client, room.index, canvas) : undefined;
        const nodes = chain ? [...canvas.nodes, ...chain.nodes] : canvas.nodes;
        const edges = chain ? [...canvas.edges, ...chain.edges] : canvas.edges;
        const seeded = await bounded(owner.client.post('/api/user/project/canvas', { projectId, nodes, edges, version: 0 }), SETUP_REQUEST_MS, 'POST /api/user/project/canvas (seed)');
        if (seeded.status !== 200) throw new Error(`seed canvas → ${seeded.status} ${seeded.text.slice(0, 200)}`);
        for (let slot = 1; slot < room.capacity; slot++) {
          const invited = await bounded(
            owner.client.post(`/api/user/project/${projectId}/members`, { email: editorEmail(room.first + slot), role: 'editor' }),
            SETUP_REQUEST_MS,
            `POST /api/user/project/${projectId}/members`,
          );
          if (invited.status !== 201 && invited.status !== 200) throw new Error(`invite → ${invited.status} ${invited.text.slice(0, 200)}`);
        }
        added[k] = { index: room.index, projectId, capacity: room.capacity, ownerCookie: owner.cookie, ...(chain ? { serviceNodes: chain.serviceNodes } : {}) };
        if (chain) chained[k] = { client: owner.client, projectId };
      }),
    );
    this.specs.push(...added);
    // In room order: a step's runs go in the first rooms its editors use.
    chained.forEach((c, k) => c && this.runs!.ticker.addRoom({ label: `room ${newRooms[k].index}`, ...c }));
    const editors: LiveEditorSpec[] = [];
    for (let i = from; i < count; i++) {
      const { room, slot } = this.layout.place(i);
      editors.push({ index: i, room, slot, userId: this.users[i].id, name: `Live Editor ${i}`, cookie: this.users[i].cookie });
    }
    this.editors = count;
    await this.within(this.load.add(this.t.baseUrl, editors, added, 60_000));
    const withChain = chained.filter(Boolean).length;
    process.stderr.write(
      `  ${count - from} editors signed in through OAuth and ${newRooms.length} rooms created, seeded (200 nodes${withChain ? `; ${withChain} of them also an upload and a ${CHAIN_NODES}-node run chain` : ''}) and shared in ${((performance.now() - wall) / 1000).toFixed(1)} s\n`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------------
// One step: the load client connects, edits, drains and checks; the resource window covers the editing and drain

async function runStep(
  clients: LiveClients,
  watch: Watchers,
  step: LiveStepRequest,
  within: Within,
  startRuns?: () => ReturnType<RunTicker['start']>,
): Promise<{ result: LiveStepResult; runs?: RunsDuringStep } & WindowResult> {
  let window: Promise<() => Promise<WindowResult>> | undefined;
  let ended: Promise<WindowResult> | undefined;
  // LOAD_RUNS: graph runs tick from the moment the editors start editing until the step's result is in.
  let ticking: ReturnType<RunTicker['start']> | undefined;
  const hooks = {
    onEditing() {
      ticking ??= startRuns?.();
      window = startWindow(watch, () => clients.cpu());
      window.catch(() => undefined);
    },
    onLoaded() {
      if (!window || ended) return;
      // Ends the window as soon as it is open (at once, unless the drain ended within milliseconds of the start).
      ended = window.then((stop) => stop());
      ended.catch(() => undefined);
    },
  };
  try {
    const result = await within(clients.step(step, step.connectTimeoutMs + step.settleMs + step.durationMs + step.drainMs + 240_000, hooks));
    if (!window || !ended) throw new Error('the load clients answered without editing');
    const resources = await ended;
    return { result: numbers(result), ...resources, ...(ticking ? { runs: await within(ticking.stop()) } : {}) };
  } finally {
    if (window && !ended) await window.then((stop) => stop()).catch(() => undefined);
    if (ticking) await ticking.stop().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------------------

export async function main(): Promise<number> {
  const wallStart = performance.now();
  const elapsedMs = () => performance.now() - wallStart;
  console.log('# Image Canvas load test: editors on the live canvas\n');

  let t: TestApp | undefined;
  let instances: Instances | undefined;
  let load: LiveClients | undefined;
  let rooms: Rooms | undefined;
  let ticker: RunTicker | undefined;
  let pgWatch: PgWatch | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await load?.close().catch(() => undefined);
      await pgWatch?.close();
      if (instances) {
        await bounded(instances.close(), 120_000, 'stopping the instances, nginx and Redis').catch((err: Error) => console.error(`${err.message}: some may be left behind`));
      } else if (t) {
        // A request the service never answered must not hold its shutdown (Fastify waits for in-flight requests).
        t.app.server.closeAllConnections();
        const dataDir = t.dataDir;
        await bounded(t.close(), 120_000, 'stopping the service').catch((err: Error) =>
          console.error(`${err.message}: its PostgreSQL and ${dataDir} may be left behind`),
        );
      }
    })());

  const measured: LiveMeasured[] = [];
  const header: string[] = [];
  const notes: string[] = [];
  let costLines: string[] = [];
  let printed = false;
  const printReport = (ending: string) => {
    if (printed) return;
    printed = true;
    measured.sort((a, b) => a.result.editors - b.result.editors);
    notes.push(
      `Latency is from the moment an edit leaves its editor (the Yjs transaction that sends it) to its arrival at each other editor of its room (${settings.editor === 'wire' ? 'the frame carrying its Yjs id' : 'its value in their document, seen by observeDeep'}; same process and clock); ` +
        `percentiles are nearest-rank over every arrival of the step (rooms of one editor have none). "ack" is from the edit to the server's SyncStatus for it (sent once the update is stored in PostgreSQL). ` +
        `Errors: editors that could not connect or were refused, dropped connections, edits refused, not acknowledged within ${DRAIN_MS / 1000} s of the last edit, or not seen by every other editor of the room by then, failed REST reads. ` +
        `Lost edits: fields (a node's position or prompt; each has one writer in its room) whose value — in ${settings.editor === 'wire' ? "the room's document in the load client" : "any editor's document"} at the end, or over REST after everyone left — is neither the last acknowledged one nor one sent after it. ` +
        `✓ needs p99 < ${settings.p99LimitMs} ms, no errors, no lost edits, every edit acknowledged and a room's editors agreeing on every field at the end.`,
    );
    notes.push(
      `Resource columns cover each step's editing and drain (not connecting or the checks): "server thread busy" is the event-loop utilisation of the service's thread; CPU columns are from /proc ` +
        `(service = its whole process, PostgreSQL = postmaster and backends, other = the rest of the machine); RSS is the service's process (it runs in the orchestrator, which adds little) at the end of the window and its peak; ` +
        `"service writes/s" its write system calls (syscw of /proc/self/io: each socket write, to an editor or to PostgreSQL, is one); ` +
        `WAL is PostgreSQL's pg_stat_wal over the window. "Loop delay" is how late a 10 ms timer fired on the service's and on the load client's event loop (beyond 10 ms), "GC max" the longest garbage-collection pause: ` +
        `a p99 spike that matches one of them is that process stalling, not the work of an edit.`,
    );
    if (rooms && rooms.editors > 0) notes.push(`Signed in ${rooms.editors} users through the OAuth flow (${settings.signInConcurrency} at a time), ${(rooms.signInMs / rooms.editors).toFixed(0)} ms each on average.`);
    for (const line of header) console.log(line);
    console.log('');
    if (measured.length > 0) {
      console.log(liveResultsTable(measured, settings.p99LimitMs));
      console.log(`\nWhere the time and memory went during each step (CPU in cores = CPU seconds per second; the machine has ${os.cpus().length} cores):\n`);
      console.log(liveResourcesTable(measured));
    } else if (settings.cost !== 'only') console.log('(no step was measured)');
    console.log('');
    for (const line of costLines) console.log(line);
    if (costLines.length) console.log('');
    for (const note of notes) console.log(note);
    console.log(ending);
    console.log(`Wall time ${(elapsedMs() / 1000).toFixed(0)} s; load average ${loadAverage()} at the end.`);
  };

  const verdict = (): string => {
    if (settings.cost === 'only') return costLines.length ? 'Cost section only (LOAD_LIVE_COST=only).' : 'Nothing was measured.';
    const counted = measured.filter((m) => !m.rerun && !m.baseline); // LOAD_RUNS: the steps with runs decide
    const failing = counted.filter((m) => !m.pass).map((m) => m.result.editors);
    const limit = failing.length ? Math.min(...failing) : Infinity;
    const held = counted.filter((m) => m.pass && m.result.editors < limit).map((m) => m.result.editors);
    const n = held.length ? Math.max(...held) : 0;
    const goal = `goal ≥ ${GOAL_EDITORS.toLocaleString('en')} live editors with p99 < ${settings.p99LimitMs} ms, 0 errors, 0 lost edits: ${n >= GOAL_EDITORS ? 'MET' : 'NOT MET'}`;
    if (measured.length === 0) return 'No step was measured.';
    if (n === 0) return `One instance holds fewer than ${limit} live editors with p99 < ${settings.p99LimitMs} ms (no step passed; ${goal}).`;
    const bound = Number.isFinite(limit) ? ` (${limit} failed)` : ' (the largest step run; the limit was not reached)';
    return `One instance holds ${n} live editors with p99 < ${settings.p99LimitMs} ms${bound}; ${goal}.`;
  };

  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping the load client and the service…`);
    notes.push(`Interrupted by ${signal}: the table shows the steps finished before it.`);
    void close().finally(() => {
      printReport(verdict());
      process.exit(130);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const cap = startCap(settings.capMs);
  const within = cap.within;

  let failure: unknown;
  try {
    const env: Record<string, string> = settings.poolSize ? { DATABASE_POOL_SIZE: settings.poolSize } : {};
    // The live documents' settings (COLLAB_*) reach the service from this run's environment, to measure a tuning.
    for (const [k, v] of Object.entries(process.env)) if (k.startsWith('COLLAB_') && v !== undefined) env[k] = v;
    if (settings.instances > 1) {
      instances = await within(startInstances(settings.instances, env));
      t = instances.front;
    } else t = await within(startTestApp(env, 'embedded'));
    const { rows } = await t.pool.query<{ v: string; pid: number }>("SELECT current_setting('server_version') AS v, pg_backend_pid() AS pid");
    const postmasterPid = parentPid(rows[0].pid);
    if (!postmasterPid) throw new Error('cannot find the PostgreSQL server process');
    pgWatch = await PgWatch.connect(t.databaseUrl);
    // Every editor's document lives in the client: room beyond Node's default heap, and a young generation large
    // enough that the editors' short-lived garbage is not promoted (fewer and shorter pauses of the client's clock).
    load = new LiveClients(settings.clients, ['--max-old-space-size=8192', '--max-semi-space-size=64'], settings.clientSched);
    await within(load.ready(60_000));

    const collab = (t.config as unknown as Record<string, unknown>).collab;
    header.push(
      machineInfo() + ' at start.',
      `PostgreSQL ${rows[0].v} (embedded, started by the service, postmaster pid ${postmasterPid}); service at ${t.baseUrl} (loopback only), live documents at ${t.baseUrl.replace(/^http/, 'ws')}` +
        (settings.collabUrl === 'project' ? '/api/collab/<projectId> (LOAD_COLLAB_URL=project), ' : '/api/collab (LOAD_COLLAB_URL=shared), ') +
        (instances ? `${instances.describe()}, ` : '') +
        `database pool ${t.config.database.poolSize} connections (${settings.poolSize ? 'DATABASE_POOL_SIZE set by LOAD_DATABASE_POOL_SIZE' : 'service default'})` +
        (collab ? `, collab settings ${JSON.stringify(collab)}` : '') +
        ', other settings default.',
      `Load clients: ${load.all.length} Node process(es) of their own (pid ${load.pids.join(', ')}; LOAD_CLIENTS), the rooms spread over them, each holding every editor of its rooms (so one clock times each edit to the other editors of its room), all starting each step's edits together; clients, service and PostgreSQL share the machine's ${os.cpus().length} cores over loopback; ${load.policy === 'batch' ? 'the clients run under SCHED_BATCH (LOAD_CLIENT_SCHED), so a frame the service sends never makes its client preempt the service' : 'the clients run under SCHED_NORMAL (LOAD_CLIENT_SCHED=normal), so a frame the service sends may make its client preempt the service'}. Client columns add up the clients (CPU) or show the busiest (thread busy, loop delay, GC).`,
      `Rooms of ${settings.roomSizes.length === 1 ? settings.roomSizes[0] : settings.roomSizes.join(', ') + ' (cycled)'} editors per project, each editor its own user signed in once through the real OAuth flow (the room's first owns the project, the others are invited as editors); ` +
        `each project seeded with a 200-node / 300-edge canvas over REST. ` +
        (settings.editor === 'wire'
          ? `An editor is one socket (the ws package, with the session cookie and our Origin on the upgrade) speaking the Hocuspocus protocol frame by frame, as a provider does (LOAD_LIVE_EDITOR=wire, load/live-wire.ts): the room's editors make their edits in one Y.Doc per room in the load client, each under its own Yjs client id, and an edit arrives at a peer when the frame carrying its Yjs id does (not applied there); awareness renewed every 15 s, ${settings.awarenessPhase === 'spread' ? 'the first renewal at a random point of the first 15 s, as tabs opened at any time (LOAD_AWARENESS_PHASE)' : "15 s after connecting, so a step's renewals bunch as its connections did (LOAD_AWARENESS_PHASE=connect)"}; `
          : `An editor is one socket (the ws package, with the session cookie and our Origin on the upgrade) and a HocuspocusProvider 4.8 on a Y.Doc of its own (LOAD_LIVE_EDITOR=provider); an edit arrives at a peer when its value shows in the peer's document; `) +
        `once a second (random phase) it makes one small edit: alternately a move (position on the node's Y.Map) and a prompt edit (prompt in its data Y.Map), on nodes no one else in the room writes. Open loop: an edit never waits for the previous one's acknowledgement.`,
      ...(settings.runs
        ? [
            `LOAD_RUNS=1: every step is measured twice, first without graph runs (the baseline row), then with ${CHAIN_NODES}-node runs (one upload → ${CHAIN_NODES} adjust nodes in a chain, run downstream from the first; ` +
              `its first node changed over REST before each run so all ${CHAIN_NODES} jobs run, none cached; a tick that finds the run before still going starts none and counts as late) ` +
              (settings.runRooms > 0
                ? `in the editors' rooms: the first ${settings.runRooms} rooms (LOAD_RUN_ROOMS) have the chain beside their 200-node canvas, and each of them that the step uses starts a run every ${settings.runEverySeconds} s (LOAD_RUN_EVERY_SECONDS; the rooms' ticks spread over the interval), ` +
                  `asked by the room's owner over REST, so the runner's writes land in the documents being edited and reach the editors (no editor writes the chain's nodes, and the checks read only the editors' fields); `
                : `started every ${settings.runEverySeconds} s (LOAD_RUN_EVERY_SECONDS) by a user of its own on a project of its own (LOAD_RUN_ROOMS=0); `) +
              `the step with runs decides the verdict.`,
          ]
        : []),
      `Steps of ${settings.seconds} s (${settings.steps.join(', ')}), each after connecting its editors (${settings.connectConcurrency} sockets at a time) and a ${SETTLE_MS / 1000} s pause` +
        `${settings.warmupSeconds ? `, after a ${settings.warmupSeconds} s warm-up that is not reported` : ''}; editors leave after each step` +
        (settings.repeats > 1 ? `; each step measured ${settings.repeats} times in a row (LOAD_STEP_REPEATS), each a row of its own` : '') +
        (settings.goOn
          ? `; every step is measured whatever the one before did (LOAD_GO_ON=1: a step with p99 ≥ ${settings.p99LimitMs} ms, errors or lost edits is marked ✗ and the series goes on; no bisecting)`
          : `; the series stops at the first step with p99 ≥ ${settings.p99LimitMs} ms, errors or lost edits (LOAD_GO_ON=1 would go on through every step instead)`) +
        (settings.busyReruns ? ` (a step that fails while other work used ≥ ${settings.quietCores} cores is run again, ${settings.busyReruns}×; the rerun counts)` : '') +
        (settings.refine && !settings.goOn ? `, then ${settings.refine} step(s) bisect between the last passing and the first failing count.` : '.'),
    );
    for (const line of header) process.stderr.write(`${line}\n`);

    const ownCpu = () => {
      const c = process.cpuUsage();
      return (c.user + c.system) / 1e6 + treeCpu(postmasterPid) + load!.cpu();
    };
    const quiet = () => waitForQuiet(ownCpu, within, settings.quietCores, settings.quietWaitMs);

    if (settings.cost !== '0') {
      process.stderr.write('cost section: one edit on a large and a small canvas, and the memory of an open document…\n');
      try {
        const cost = await measureCost(
          t,
          load.first,
          { postmasterPid, clientPids: load.pids, within, quiet: async () => void (await quiet()) },
          {
            seconds: settings.costSeconds,
            rounds: settings.costRounds,
            editors: settings.costEditors,
            rate: settings.costRate,
            nodes: settings.costNodes,
            docs: settings.costDocs,
            tailSeconds: settings.costTailSeconds,
            concurrency: settings.signInConcurrency,
          },
        );
        costLines = cost.lines;
      } catch (err) {
        if (err instanceof CapReached) throw err;
        costLines = [`Cost section FAILED: ${err instanceof Error ? err.message : inspect(err)}`];
        process.stderr.write(`${costLines[0]}\n`);
        if (settings.cost === 'only') throw err;
      }
      for (const line of costLines) process.stderr.write(`${line}\n`);
    }

    if (settings.cost !== 'only') {
      if (settings.runs) ticker = settings.runRooms > 0 ? RunTicker.inRooms(settings.runEverySeconds) : await within(RunTicker.ownProject(t, settings.runEverySeconds));
      rooms = new Rooms(t, load, within, ticker?.inRooms ? { ticker, rooms: settings.runRooms } : undefined);
      const r = rooms;
      const budgetLeft = (editorsNeeded: number) => {
        // Rough: the step, its connecting, drain and checks, and signing in the new editors (~ 40 ms each at 16 at a time).
        const needMs = (settings.seconds * 1000 + 45_000 + editorsNeeded * 15) * (settings.runs ? 2 : 1) + Math.max(0, editorsNeeded - r.editors) * 40;
        return settings.capMs - elapsedMs() > needMs;
      };

      const step = async (count: number, seconds: number, report: boolean, withRuns = false): Promise<LiveMeasured> => {
        await r.ensure(count);
        const q = await quiet();
        const busyNote = q.otherCores >= settings.quietCores ? `; other work still used ${q.otherCores.toFixed(2)} cores after waiting ${(q.waitedMs / 1000).toFixed(0)} s` : '';
        if (settings.capMs - elapsedMs() < seconds * 1000 + 30_000) throw new CapReached(`the ${count}-editor step would not finish within the ${settings.capMs / 60_000}-minute cap`);
        process.stderr.write(`${report ? 'step' : 'warm-up'}: ${count} live editors for ${seconds} s${busyNote}…\n`);
        const watch: Watchers = { postmasterPid, pg: pgWatch!, profile: settings.profile && report ? `live-${count}-editors` : undefined };
        const request: LiveStepRequest = {
          editors: count,
          durationMs: seconds * 1000,
          connectConcurrency: settings.connectConcurrency,
          connectTimeoutMs: 60_000 + count * 30,
          settleMs: SETTLE_MS,
          drainMs: DRAIN_MS,
          verifyConcurrency: VERIFY_CONCURRENCY,
          editor: settings.editor,
        };
        const redisBefore = await instances?.counters();
        // Memory per open document: the service's memory while the step's documents are open, less before they opened.
        collectGarbage();
        const before = process.memoryUsage();
        const liveBefore = before.heapUsed + before.external;
        // LOAD_RUN_ROOMS: the runs go in the step's rooms that have the chain (the first ones).
        const startRuns = withRuns && ticker ? () => ticker!.start(ticker!.inRooms ? r.layout.roomsFor(count) : undefined) : undefined;
        const { result, resources, profile, runs } = await runStep(load!, watch, request, within, startRuns);
        if (instances && redisBefore) {
          // Redis's own counters over the whole step (connecting, editing, leaving), per edit made.
          const after = await instances.counters();
          const routes = await instances.routes();
          const per = (n: number) => (result.edits ? (n / result.edits).toFixed(2) : '–');
          const line =
            `${count} editors, sockets on ${settings.collabUrl === 'project' ? '/api/collab/<projectId>' : '/api/collab'}: Redis ${after.publishes - redisBefore.publishes} PUBLISH = ${per(after.publishes - redisBefore.publishes)} per edit, ` +
            `${after.bytesOut - redisBefore.bytesOut} bytes out = ${per(after.bytesOut - redisBefore.bytesOut)} per edit (${result.edits} edits); ` +
            (settings.collabUrl === 'project' ? `so far ${routes.split} of ${routes.projects} projects had live sockets on both instances (nginx's log)` : 'nginx spreads /api/collab round robin');
          process.stderr.write(`  ${line}\n`);
          if (report) notes.push(line);
        }
        const pass = goalP99(result) < settings.p99LimitMs && result.errors === 0 && result.lost === 0 && result.diverged === 0 && result.acked === result.edits &&
          (!runs || runsHeld(runs)); // LOAD_RUNS: and its runs started, none failed
        const perDocument = result.rooms
          ? { rssKiB: (resources.serverRssMiB * 2 ** 20 - before.rss) / result.rooms / 1024, heapKiB: (resources.serverHeapMiB * 2 ** 20 - liveBefore) / result.rooms / 1024 }
          : undefined;
        const m: LiveMeasured = { result, resources, pass, ...(perDocument ? { perDocument } : {}), ...(runs ? { runs } : {}) };
        if (runs) process.stderr.write(`  runs: ${runsLine(runs)}\n`);
        process.stderr.write(
          `  → ${result.edits} edits (${(result.edits / seconds).toFixed(0)}/s), ${result.acked} acknowledged, ${result.arrivals} arrivals, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, max ${result.maxMs.toFixed(0)} ms, ack p99 ${result.ackP99Ms.toFixed(1)} ms, ` +
            `errors ${result.errors}${result.errors ? ` ${JSON.stringify(result.errorKinds)}` : ''}, lost ${result.lost} (live ${result.lostLive}, REST ${result.lostRest}), diverged ${result.diverged}${result.serviceUpdates ? `, ${result.serviceUpdates} deliveries to the editors of updates the service wrote` : ''}; ` +
            `server thread ${(resources.serverElu * 100).toFixed(0)} % busy, service ${resources.serverCpu.toFixed(2)} cores / ${resources.serverWritesPerS.toFixed(0)} writes/s / RSS ${resources.serverRssMiB.toFixed(0)} MiB, PostgreSQL ${resources.postgresCpu.toFixed(2)} cores / WAL ${resources.walMiBPerS.toFixed(2)} MiB/s, ` +
            `client ${resources.clientCpu.toFixed(2)} (its thread ${(result.clientElu * 100).toFixed(0)} % busy) / other ${resources.otherCpu.toFixed(2)} cores; loop delay max service ${resources.serverStalls.loopDelayMaxMs.toFixed(0)} ms (GC max ${resources.serverStalls.gcMaxMs.toFixed(0)}) / client ${result.clientStalls.loopDelayMaxMs.toFixed(0)} ms (GC max ${result.clientStalls.gcMaxMs.toFixed(0)}); connect ${(result.connectMs / 1000).toFixed(1)} s, leave ${(result.disconnectMs / 1000).toFixed(1)} s, checks ${(result.verifyMs / 1000).toFixed(1)} s ${pass ? '✓' : '✗'}\n`,
        );
        for (const e of result.firstErrors) process.stderr.write(`    ${e}\n`);
        // When each process's event loop was held up (the service's window is the clock): a spike that starts in one
        // process and shows in the others a moment later started in that process.
        const t0 = resources.serverStalls.startedAt;
        process.stderr.write(`  event loop held up ≥ ${STALL_MS} ms, in s from the step's start: service ${stallsLine(resources.serverStalls.stalls, t0)}; clients ${stallsLine(result.clientStalls.stalls, t0)}\n`);
        for (const line of profile ?? []) process.stderr.write(`  ${line}\n`);
        if (report) {
          measured.push(m);
          if (profile) notes.push(...profile);
          if (resources.otherCpu >= settings.quietCores) {
            notes.push(`${count} editors: work outside this run used ${resources.otherCpu.toFixed(2)} cores during the step (the machine was shared; this row is pessimistic).`);
          }
          if (result.errors) notes.push(`${count} editors: errors ${JSON.stringify(result.errorKinds)}; first: ${result.firstErrors.join(' | ')}`);
          if (result.lost || result.diverged) notes.push(`${count} editors: ${result.lost} lost fields (${result.lostLive} in editors' documents, ${result.lostRest} over REST), ${result.diverged} fields on which a room's editors disagree.`);
          if (result.acked !== result.edits) notes.push(`${count} editors: ${result.edits - result.acked} of ${result.edits} edits were not acknowledged.`);
          if (result.arrivals === 0) notes.push(`${count} editors: every room has one editor, so no edit arrives anywhere; the verdict uses the acknowledgement's p99 (${result.ackP99Ms.toFixed(1)} ms).`);
          if (result.skipped) notes.push(`${count} editors: ${result.skipped} ticks found their editor disconnected (no edit made).`);
        } else {
          notes.push(`Warm-up: ${count} editors for ${seconds} s, ${result.edits} edits, p99 ${result.p99Ms.toFixed(1)} ms, ${result.errors} errors, ${result.lost} lost (not in the table).`);
        }
        return m;
      };

      const counted = async (count: number): Promise<LiveMeasured> => {
        // LOAD_RUNS: the step without runs first (the baseline, in the table and the notes), then with them (it counts).
        if (ticker) {
          const baseline = await step(count, settings.seconds, true);
          baseline.baseline = true;
          let m = await step(count, settings.seconds, true, true);
          for (let rerun = 0; rerun < settings.busyReruns && !m.pass && m.resources.otherCpu >= settings.quietCores; rerun++) {
            if (!budgetLeft(count)) break;
            m.rerun = true;
            process.stderr.write(`  other work used ${m.resources.otherCpu.toFixed(2)} cores during that step: running it again\n`);
            m = await step(count, settings.seconds, true, true);
          }
          const line = `${count} editors: p99 edit-to-peer ${goalP99(baseline.result).toFixed(1)} ms without runs, ${goalP99(m.result).toFixed(1)} ms with ${CHAIN_NODES}-node runs (${runsLine(m.runs!)}; ${m.result.serviceUpdates} deliveries to the editors of updates the service wrote).`;
          process.stderr.write(`  ${line}\n`);
          notes.push(line);
          return m;
        }
        let m = await step(count, settings.seconds, true);
        for (let rerun = 0; rerun < settings.busyReruns && !m.pass && m.resources.otherCpu >= settings.quietCores; rerun++) {
          if (!budgetLeft(count)) break;
          m.rerun = true;
          process.stderr.write(`  other work used ${m.resources.otherCpu.toFixed(2)} cores during that step: running it again\n`);
          m = await step(count, settings.seconds, true);
        }
        return m;
      };

      if (settings.warmupSeconds > 0) await step(settings.steps[0], settings.warmupSeconds, false);

      let lastPass: number | undefined;
      let firstFail: number | undefined;
      steps: for (const count of settings.steps) {
        for (let repeat = 0; repeat < settings.repeats; repeat++) {
          if (!budgetLeft(count)) {
            notes.push(`Stopped before the ${count}-editor step: it would not finish within the ${settings.capMs / 60_000}-minute cap.`);
            break steps;
          }
          const m = await counted(count);
          if (m.pass) lastPass = Math.max(lastPass ?? 0, count);
          else {
            firstFail = Math.min(firstFail ?? Infinity, count);
            if (!settings.goOn) break steps;
          }
        }
      }
      for (let k = 0; k < settings.refine && !settings.goOn && lastPass !== undefined && firstFail !== undefined; k++) {
        const mid = Math.round((lastPass + firstFail) / 2 / 5) * 5;
        if (mid <= lastPass || mid >= firstFail) break;
        if (!budgetLeft(mid)) {
          notes.push(`Skipped the bisecting ${mid}-editor step: it would not finish within the ${settings.capMs / 60_000}-minute cap.`);
          break;
        }
        const m = await counted(mid);
        if (m.pass) lastPass = mid;
        else firstFail = mid;
      }
    }
  } catch (err) {
    if (err instanceof CapReached) notes.push(`Stopped: ${err.message}; the table shows the steps finished before it.`);
    else failure = err;
  } finally {
    cap.clear();
    process.stderr.write('stopping the load client and the service…\n');
    await close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  printReport(verdict());
  if (failure) {
    console.error(`\nLOAD TEST FAILED: ${failure instanceof Error ? (failure.stack ?? failure.message) : inspect(failure)}`);
    return 1;
  }
  return 0;
}
