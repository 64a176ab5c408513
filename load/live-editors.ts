// The live mode's load client: a process of its own (forked by live-run.ts, LOAD_CLIENTS of them), so its work
// never runs on the service's event loop. It holds every editor of its rooms — a room's editors must share one
// clock for the time from an edit to its arrival at the others — and runs one step at a time when asked:
//
// 1. connect: each editor of the step opens its own socket (a browser tab), signs in with its cookie on the
//    upgrade and syncs the project's document (a bounded number at once; the whole bounded in time); then it
//    says 'connected' and waits for 'go', which the orchestrator sends once every load client is connected;
// 2. edit: once a second, at its own phase, each editor makes one small edit (live-session.ts): open loop, the
//    next edit never waits for the previous one's acknowledgement;
// 3. drain: wait, event-driven and bounded, until every provider reports no unsynced changes and every edit has
//    reached the room's other editors; what is left counts as errors;
// 4. check: every editor's document, then — after everyone left, so the service reads what it stored — the
//    canvas over REST, field by field against what was acknowledged (live-plan.ts Track).
//
// It also serves the cost measurements (live-run.ts): rooms edited at a fixed rate on canvases of two sizes, and
// many documents opened on one socket.
import { performance } from 'node:perf_hooks';
import type { CostDoc, EditStats, FromLiveClient, LiveEditorSpec, LiveRoomSpec, LiveStepRequest, LiveStepResult, ToLiveClient } from './live-protocol.js';
import { percentile, percentilesOf, positionKey, promptKey, sortedOf } from './live-plan.js';
import { EditorSession, LiveRoom, openSocket, Recorder, Session, socketsClosed, type EditorState } from './live-session.js';
import { WireSession } from './live-wire.js';
import { tuneGarbageCollector } from '../src/gc.js';
import { startProfile } from './profile.js';
import { collectGarbage, watchStalls } from './stalls.js';

// The service's garbage-collector settings here too: the client's own full collections would land in the
// latencies it measures (Yjs documents of its rooms, like the service's).
tuneGarbageCollector();

const PROGRESS_EVERY_MS = 10_000;
const SOCKETS_CLOSE_MS = 15_000;

function post(message: FromLiveClient): void {
  process.send?.(message);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

let origin = '';
const editors: EditorState[] = [];
const editorRoom: number[] = [];
const rooms: LiveRoom[] = [];
/** The recorder every session reports to: one per step or cost round. */
let recorder = new Recorder();
const current = () => recorder;

// ---------------------------------------------------------------------------------------------------------
// Phases shared by steps and cost rounds

/** Opens sessions `concurrency` at a time; each gets until the overall deadline to be ready. */
async function connect<S extends EditorSession>(make: Array<() => S>, concurrency: number, timeoutMs: number): Promise<S[]> {
  const sessions: S[] = [];
  const deadline = performance.now() + timeoutMs;
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, make.length)) }, async () => {
      while (next < make.length) {
        const session = make[next++]();
        sessions.push(session);
        const problem = await session.waitReady(Math.max(1, deadline - performance.now()));
        if (problem) recorder.fail('not connected', `${session.room.projectId} (editor ${session.editor.tag}): ${problem}`);
        else if (!session.writable) recorder.fail('not writable', `${session.room.projectId} (editor ${session.editor.tag}): scope ${session.scope}`);
      }
    }),
  );
  return sessions;
}

/** After connecting: rooms learn their nodes from a ready member, members pick the nodes they write. */
function prepareRooms(sessions: EditorSession[]): void {
  for (const s of sessions) {
    if (!s.room.nodes && s.ready) {
      const problem = s.room.init(s.doc);
      if (problem) recorder.fail('room not seeded', problem);
    }
  }
  for (const s of sessions) {
    s.assign();
    s.holdUntilReady();
  }
}

/** Every session edits once per `intervalMs` (random phase), for `durationMs`. */
async function runEdits(sessions: EditorSession[], intervalMs: number, durationMs: number, label: string): Promise<void> {
  const timers = new Set<NodeJS.Timeout>();
  const t0 = performance.now() + 20;
  const end = t0 + durationMs;
  const schedule = (s: EditorSession, at: number) => {
    if (at >= end) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      recorder.lags.push(performance.now() - at);
      schedule(s, at + intervalMs);
      s.edit(s.room.members.length - 1);
    }, Math.max(0, at - performance.now()));
    timers.add(timer);
  };
  for (const s of sessions) schedule(s, t0 + Math.random() * intervalMs);
  let seen = 0;
  const progress = setInterval(() => {
    const sec = Math.round((performance.now() - t0) / 1000);
    // The arrivals of the last interval alone: a stall shows when it happened.
    const recent = sortedOf(recorder.latencies.slice(seen));
    seen = recorder.latencies.length;
    post({
      type: 'progress',
      line: `  ${label}, ${sec} s: ${recorder.edits} edits, ${recorder.acked} acknowledged, ${recorder.latencies.length} arrivals (last ${PROGRESS_EVERY_MS / 1000} s: p99 ${percentile(recent, 0.99).toFixed(1)} ms, max ${(recent.at(-1) ?? NaN).toFixed(0)} ms), ${recorder.errors} errors`,
    });
  }, PROGRESS_EVERY_MS);
  try {
    await sleep(end - performance.now());
  } finally {
    clearInterval(progress);
    for (const t of timers) clearTimeout(t);
  }
  post({ type: 'progress', line: `  ${label}: ${timeline(t0, durationMs)}` });
}

/** p99 / max of the arrivals by when their edit was sent, in slices of the batch: when a stall happened. */
function timeline(t0: number, durationMs: number): string {
  const sliceMs = durationMs > 20_000 ? 5_000 : 2_000;
  const slices: number[][] = Array.from({ length: Math.ceil(durationMs / sliceMs) }, () => []);
  recorder.sentAts.forEach((at, i) => slices[Math.min(slices.length - 1, Math.max(0, Math.floor((at - t0) / sliceMs)))].push(recorder.latencies[i]));
  const parts = slices.map((xs, k) => {
    const sorted = sortedOf(xs);
    return `${(k * sliceMs) / 1000}s ${percentile(sorted, 0.99).toFixed(0)}/${(sorted.at(-1) ?? NaN).toFixed(0)}`;
  });
  return `p99/max ms of arrivals by send time: ${parts.join(', ')}`;
}

/** Waits (bounded) for every acknowledgement and every arrival; what is missing then counts as errors. */
async function drain(sessions: EditorSession[], roomsOf: LiveRoom[], drainMs: number): Promise<void> {
  const deadline = performance.now() + drainMs;
  await recorder.until(() => sessions.every((s) => s.settled), drainMs);
  await recorder.until(() => roomsOf.every((r) => r.inFlight.size === 0), Math.max(1, deadline - performance.now()));
  for (const s of sessions) s.abandon();
  for (const r of roomsOf) {
    let missing = 0;
    for (const f of r.inFlight.values()) missing += f.remaining;
    if (missing) recorder.fail('not delivered to a peer', `${r.projectId}: ${r.inFlight.size} edit(s) not seen by ${missing} peer(s) in time`, missing);
    r.inFlight.clear();
  }
}

function summarize(durationMs: number): EditStats {
  return {
    durationMs,
    edits: recorder.edits,
    acked: recorder.acked,
    skipped: recorder.skipped,
    ...percentilesOf(recorder),
    errors: recorder.errors,
    errorKinds: { ...recorder.errorKinds },
    firstErrors: [...recorder.firstErrors],
    updateBytes: recorder.edits ? recorder.updateBytes / recorder.edits : NaN,
  };
}

async function leave(sessions: EditorSession[]): Promise<number> {
  const started = performance.now();
  for (const s of sessions) s.destroy();
  const open = await socketsClosed(SOCKETS_CLOSE_MS);
  if (open) recorder.fail('socket not closed', `${open} socket(s) still open ${SOCKETS_CLOSE_MS / 1000} s after leaving`, open);
  return performance.now() - started;
}

// ---------------------------------------------------------------------------------------------------------
// Checks

interface Lost {
  live: Set<string>;
  rest: Set<string>;
  diverged: number;
  shape: number;
}

/** Every editor's document against what was acknowledged, and the editors of a room against each other. */
function checkLive(roomsOf: LiveRoom[], lost: Lost): void {
  for (const room of roomsOf) {
    if (!room.nodes) continue;
    // Wire editors share their room's document: each distinct document is read once.
    const docs = [...new Set(room.members.map((s) => s.doc))];
    for (const doc of docs) {
      if (doc.getMap('nodes').size !== room.nodeCount || doc.getMap('edges').size !== room.edgeCount) {
        lost.shape++;
        recorder.fail('canvas shape changed', `${room.projectId}: an editor holds ${doc.getMap('nodes').size} nodes / ${doc.getMap('edges').size} edges, expected ${room.nodeCount} / ${room.edgeCount}`);
      }
    }
    for (const node of room.nodes) {
      const seen = { position: new Set<string>(), prompt: new Set<string>() };
      for (const doc of docs) {
        const map = doc.getMap('nodes').get(node.id) as { get(k: string): unknown } | undefined;
        const position = positionKey(map?.get('position'));
        seen.position.add(position);
        if (!node.position.accepts(position)) lost.live.add(`${room.index}:${node.id}:position`);
        if (node.prompt) {
          const data = map?.get('data') as { get(k: string): unknown } | undefined;
          const prompt = promptKey(data?.get('prompt'));
          seen.prompt.add(prompt);
          if (!node.prompt.accepts(prompt)) lost.live.add(`${room.index}:${node.id}:prompt`);
        }
      }
      if (seen.position.size > 1) lost.diverged++;
      if (seen.prompt.size > 1) lost.diverged++;
    }
  }
}

interface RestCanvas {
  nodes: Array<{ id: string; position?: unknown; data?: { prompt?: unknown } }>;
  edges: unknown[];
}

/** The canvas over REST (the owner's GET) against what was acknowledged; then the stored values are the new start. */
async function checkRest(roomsOf: LiveRoom[], lost: Lost, concurrency: number): Promise<number> {
  let errors = 0;
  let next = 0;
  const deadline = Date.now() + 120_000;
  const one = async (room: LiveRoom) => {
    const res = await fetch(`${origin}/api/user/project/canvas?projectId=${encodeURIComponent(room.projectId)}`, {
      headers: { cookie: room.ownerCookie },
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET canvas ${room.projectId} → ${res.status} ${text.slice(0, 200)}`);
    const canvas = JSON.parse(text) as RestCanvas | null;
    const byId = new Map((canvas?.nodes ?? []).map((n) => [n.id, n]));
    if (byId.size !== room.nodeCount || (canvas?.edges.length ?? 0) !== room.edgeCount) {
      lost.shape++;
      recorder.fail('canvas shape changed', `${room.projectId}: REST has ${byId.size} nodes / ${canvas?.edges.length ?? 0} edges, expected ${room.nodeCount} / ${room.edgeCount}`);
    }
    for (const node of room.nodes ?? []) {
      const stored = byId.get(node.id);
      const position = positionKey(stored?.position);
      if (!node.position.accepts(position)) lost.rest.add(`${room.index}:${node.id}:position`);
      node.position.rebase(position);
      if (node.prompt) {
        const prompt = promptKey(stored?.data?.prompt);
        if (!node.prompt.accepts(prompt)) lost.rest.add(`${room.index}:${node.id}:prompt`);
        node.prompt.rebase(prompt);
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(concurrency, roomsOf.length)) }, async () => {
      while (next < roomsOf.length && Date.now() < deadline) {
        const room = roomsOf[next++];
        if (!room.nodes) continue;
        try {
          await one(room);
        } catch (err) {
          errors++;
          recorder.fail('REST read failed', (err as Error).message);
        }
      }
    }),
  );
  const unread = roomsOf.length - Math.min(next, roomsOf.length);
  if (unread) recorder.fail('REST read failed', `${unread} room(s) not read within 120 s`, unread);
  return errors + unread;
}

// ---------------------------------------------------------------------------------------------------------
// A step

async function runStep(req: LiveStepRequest): Promise<LiveStepResult> {
  recorder = new Recorder();
  // This client's editors among the step's 0…editors-1 (the arrays are sparse: other clients hold the rest).
  const mine = editors.flatMap((_, i) => (i < req.editors ? [i] : []));
  const roomsOf = [...new Set(mine.map((i) => editorRoom[i]))].map((r) => rooms[r]);
  for (const r of roomsOf) {
    r.members = [];
    r.forgetDoc(); // a step's tabs are new: the room's shared document starts from the first sync too
  }

  const connectStart = performance.now();
  const make = mine.map((i) => () => {
    const room = rooms[editorRoom[i]];
    const s = req.editor === 'provider' ? new Session(room, editors[i], current, origin) : new WireSession(room, editors[i], current, origin);
    room.members.push(s);
    return s;
  });
  const sessions = await connect(make, req.connectConcurrency, req.connectTimeoutMs);
  prepareRooms(sessions);
  const connectMs = performance.now() - connectStart;
  post({ type: 'progress', line: `  ${sessions.length} editors in ${roomsOf.length} rooms connected and synced in ${(connectMs / 1000).toFixed(1)} s${recorder.errors ? ` (${recorder.errors} errors)` : ''}` });
  await sleep(req.settleMs);
  collectGarbage();
  const go = new Promise<void>((resolve) => (startEditing = resolve));
  post({ type: 'connected' });
  await go;

  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const stopStalls = watchStalls();
  const stopProfile = process.env.LOAD_CLIENT_PROFILE === '1' ? await startProfile(`live-client-${process.pid}-${req.editors}-editors`, `Load client ${process.pid}`) : undefined;
  post({ type: 'editing' });
  try {
    await runEdits(sessions, 1000, req.durationMs, `${req.editors} editors`);
    await drain(sessions, roomsOf, req.drainMs);
  } catch (err) {
    stopStalls();
    await leave(sessions);
    throw err;
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0);
  const clientStalls = stopStalls();
  for (const line of (await stopProfile?.()) ?? []) post({ type: 'progress', line: `  ${line}` });
  post({ type: 'loaded' });
  const stats = summarize(req.durationMs);

  const verifyStart = performance.now();
  const lost: Lost = { live: new Set(), rest: new Set(), diverged: 0, shape: 0 };
  checkLive(roomsOf, lost);
  const disconnectMs = await leave(sessions);
  const restErrors = await checkRest(roomsOf, lost, req.verifyConcurrency);
  for (const r of roomsOf) r.members = [];
  const all = new Set([...lost.live, ...lost.rest]);
  const final = summarize(req.durationMs);
  return {
    ...stats,
    // Errors found after the editing (sockets that would not close, REST reads, shapes) count too.
    errors: final.errors,
    errorKinds: final.errorKinds,
    firstErrors: final.firstErrors,
    editors: req.editors,
    rooms: roomsOf.length,
    connectMs,
    lost: all.size,
    lostLive: lost.live.size,
    lostRest: lost.rest.size,
    diverged: lost.diverged,
    restErrors,
    shapeErrors: lost.shape,
    serviceUpdates: recorder.serviceUpdates,
    disconnectMs,
    verifyMs: performance.now() - verifyStart,
    clientCpu: (cpu.user + cpu.system) / 1000 / wallMs,
    clientElu: elu.utilization,
    clientRssMiB: process.memoryUsage().rss / 2 ** 20,
    clientStalls,
    samples: { latencies: recorder.latencies, acks: recorder.acks, lags: recorder.lags },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Cost measurements

let costSessions: Session[] = [];
const costRooms = new Map<string, LiveRoom>();

async function costOpen(m: Extract<ToLiveClient, { type: 'costOpen' }>): Promise<FromLiveClient> {
  origin = m.origin;
  recorder = new Recorder();
  const started = performance.now();
  const make: Array<() => Session> = [];
  m.docs.forEach((d: CostDoc, k) => {
    const room = new LiveRoom(-1 - k, d.projectId, d.editors, m.cookie);
    costRooms.set(d.projectId, room);
    for (let i = 0; i < d.editors; i++) {
      const editor: EditorState = { tag: `c${k}-${i}`, userId: m.userId, name: 'Load cost', cookie: m.cookie, slot: i, seq: 0 };
      make.push(() => {
        const s = new Session(room, editor, current, origin);
        room.members.push(s);
        return s;
      });
    }
  });
  costSessions = await connect(make, 8, m.timeoutMs);
  prepareRooms(costSessions);
  return { type: 'costOpened', ms: performance.now() - started, errors: [...recorder.firstErrors] };
}

async function costEdits(m: Extract<ToLiveClient, { type: 'costEdits' }>): Promise<FromLiveClient> {
  const room = costRooms.get(m.projectId);
  if (!room) throw new Error(`no cost room for ${m.projectId}`);
  recorder = new Recorder();
  await runEdits(room.members, 1000 / m.editsPerSecond, m.durationMs, `cost round on ${room.nodeCount} nodes`);
  await drain(room.members, [room], m.drainMs);
  return { type: 'costDone', stats: summarize(m.durationMs) };
}

async function costClose(): Promise<FromLiveClient> {
  await leave(costSessions);
  costSessions = [];
  costRooms.clear();
  return { type: 'costClosed' };
}

let memorySessions: Session[] = [];
let memorySocket: ReturnType<typeof openSocket> | undefined;

async function memoryOpen(m: Extract<ToLiveClient, { type: 'memoryOpen' }>): Promise<FromLiveClient> {
  recorder = new Recorder();
  const started = performance.now();
  const socket = (memorySocket = openSocket(m.origin, m.cookie, null, (message) => recorder.fail('socket error', message)));
  const editor: EditorState = { tag: 'memory', userId: '', name: 'Load memory', cookie: m.cookie, slot: 0, seq: 0 };
  // One tab with many documents: every provider shares the one socket (attach()).
  const make = m.projectIds.map((id, k) => () => new Session(new LiveRoom(-1000 - k, id, 1, m.cookie), editor, current, m.origin, { socket, awareness: false }));
  // A bounded number of documents waiting for their sign-in at once (the server limits pending documents per socket).
  memorySessions = await connect(make, 16, m.timeoutMs);
  return { type: 'memoryOpened', ms: performance.now() - started, opened: memorySessions.filter((s) => s.ready).length, errors: [...recorder.firstErrors] };
}

async function memoryClose(): Promise<FromLiveClient> {
  for (const s of memorySessions) s.destroy();
  memorySocket?.destroy();
  memorySocket = undefined;
  memorySessions = [];
  await socketsClosed(SOCKETS_CLOSE_MS);
  return { type: 'memoryClosed' };
}

// ---------------------------------------------------------------------------------------------------------
// The process

function add(m: { origin: string; editors: LiveEditorSpec[]; rooms: LiveRoomSpec[] }): void {
  origin = m.origin;
  for (const r of m.rooms) rooms[r.index] = new LiveRoom(r.index, r.projectId, r.capacity, r.ownerCookie, new Set(r.serviceNodes));
  for (const e of m.editors) {
    editors[e.index] = { tag: String(e.index), userId: e.userId, name: e.name, cookie: e.cookie, slot: e.slot, seq: 0 };
    editorRoom[e.index] = e.room;
  }
}

/** Set while a step waits for the orchestrator's 'go' (every load client connected). */
let startEditing: (() => void) | undefined;

let closing = false;
async function shutdown(code: number): Promise<never> {
  if (!closing) {
    closing = true;
    for (const room of [...rooms, ...costRooms.values()]) for (const s of room?.members ?? []) s.destroy();
    for (const s of memorySessions) s.destroy();
    memorySocket?.destroy();
    await socketsClosed(5_000);
  }
  process.exit(code);
}

// The orchestrator owns this process: when it goes away, so does this one.
process.on('disconnect', () => void shutdown(1));
process.on('SIGINT', () => void shutdown(130));
process.on('SIGTERM', () => void shutdown(143));

process.on('message', (m: ToLiveClient) => {
  void (async () => {
    try {
      switch (m.type) {
        case 'add':
          add(m);
          post({ type: 'added', editors: editors.length, rooms: rooms.length });
          break;
        case 'step':
          post({ type: 'result', result: await runStep(m.step) });
          break;
        case 'go':
          startEditing?.();
          startEditing = undefined;
          break;
        case 'costOpen':
          post(await costOpen(m));
          break;
        case 'costEdits':
          post(await costEdits(m));
          break;
        case 'costClose':
          post(await costClose());
          break;
        case 'memoryOpen':
          post(await memoryOpen(m));
          break;
        case 'memoryClose':
          post(await memoryClose());
          break;
        case 'close':
          await shutdown(0);
          break;
      }
    } catch (err) {
      post({ type: 'failed', error: (err as Error).stack ?? String(err) });
    }
  })();
});

post({ type: 'ready' });
