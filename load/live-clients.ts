// The live mode's load clients (LOAD_CLIENTS processes of live-editors.ts): the editors' work — a Yjs document
// per editor, each update decoded and applied by every peer — takes about a core at 1,000 editors, more than
// one Node thread gives without stalling its own clock. Rooms are spread over the clients (a room stays in one
// client, so one clock times each edit to its peers), every client connects its editors of a step and waits,
// all start editing together, and their results are merged from the raw figures.
import type { EditStats, FromLiveClient, LiveEditorSpec, LiveRoomSpec, LiveStepRequest, LiveStepResult, ToLiveClient } from './live-protocol.js';
import { execFileSync } from 'node:child_process';
import { LoadProcess } from './harness.js';
import { percentilesOf } from './live-plan.js';
import { processCpu } from './resources.js';
import { collectGarbage } from './stalls.js';

export type LiveClient = LoadProcess<ToLiveClient, FromLiveClient>;

export class LiveClients {
  readonly all: LiveClient[];

  /**
   * The clients' Linux scheduling policy (LOAD_CLIENT_SCHED): `batch` (the default) or `normal`. Clients, service and
   * PostgreSQL share the machine's cores; under SCHED_NORMAL, each frame the service sends wakes a client that
   * may preempt the service on its core — the service's thread then sits in `writev` while its own load
   * generator runs (session 12: 41 % of its busy samples). SCHED_BATCH tasks never preempt on wakeup; they still
   * get their share of the cores, and a client that runs late can only add to the latencies it measures.
   */
  readonly policy: 'batch' | 'normal';

  constructor(count: number, nodeOptions: string[], policy: 'batch' | 'normal') {
    this.policy = policy;
    this.all = Array.from({ length: Math.max(1, count) }, () => new LoadProcess<ToLiveClient, FromLiveClient>('./live-editors.ts', nodeOptions));
  }

  /** The client that also serves the cost and memory measurements (one process: one clock, one socket). */
  get first(): LiveClient {
    return this.all[0];
  }

  get pids(): number[] {
    return this.all.map((c) => c.pid!);
  }

  /** CPU seconds the clients have used so far. */
  cpu(): number {
    return this.all.reduce((sum, c) => sum + processCpu(c.pid!), 0);
  }

  async ready(timeoutMs: number): Promise<void> {
    await Promise.all(this.all.map((c) => c.wait('ready', timeoutMs)));
    if (this.policy === 'batch') for (const pid of this.pids) batch(pid);
  }

  /** New rooms go to the clients in turn; each editor to the client of its room. */
  async add(origin: string, editors: LiveEditorSpec[], rooms: LiveRoomSpec[], timeoutMs: number): Promise<void> {
    const clientOf = (room: number) => room % this.all.length;
    await Promise.all(
      this.all.map((c, k) => {
        const answer = c.wait('added', timeoutMs);
        c.send({ type: 'add', origin, editors: editors.filter((e) => clientOf(e.room) === k), rooms: rooms.filter((r) => clientOf(r.index) === k) });
        return answer;
      }),
    );
  }

  /**
   * One step on every client: each connects its editors and says so; then all are told to go at once
   * (`onEditing` runs just before); `onLoaded` runs when the last one has drained. Answers the merged result.
   */
  async step(step: LiveStepRequest, timeoutMs: number, hooks: { onEditing(): void; onLoaded(): void }): Promise<LiveStepResult> {
    let loaded = 0;
    const results = this.all.map((c) =>
      c.wait('result', timeoutMs, (m) => {
        if (m.type === 'loaded' && ++loaded === this.all.length) hooks.onLoaded();
      }),
    );
    const connected = this.all.map((c) => c.wait('connected', timeoutMs));
    for (const p of [...results, ...connected]) p.catch(() => undefined); // awaited below; a failure is reported once
    // The sockets opened at once are shared out, so the service sees the same connecting load whatever the count.
    const each = { ...step, connectConcurrency: Math.max(1, Math.ceil(step.connectConcurrency / this.all.length)) };
    for (const c of this.all) c.send({ type: 'step', step: each });
    await Promise.all(connected);
    collectGarbage(); // the service's process (this one), as each client did before saying 'connected'
    hooks.onEditing();
    for (const c of this.all) c.send({ type: 'go' });
    return mergeResults((await Promise.all(results)).map((r) => r.result));
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((c) => c.close().catch(() => undefined)));
  }
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const max = (xs: number[]) => xs.reduce((a, b) => (Number.isNaN(b) ? a : Math.max(a, b)), 0);

/** Counts add up, percentiles come from every client's raw figures, and the worst stall is the one reported. */
export function mergeResults(parts: LiveStepResult[]): LiveStepResult {
  if (parts.length === 1) return parts[0];
  const samples = {
    latencies: parts.flatMap((p) => p.samples.latencies),
    acks: parts.flatMap((p) => p.samples.acks),
    lags: parts.flatMap((p) => p.samples.lags),
  };
  const edits = sum(parts.map((p) => p.edits));
  const errorKinds: Record<string, number> = {};
  for (const p of parts) for (const [k, n] of Object.entries(p.errorKinds)) errorKinds[k] = (errorKinds[k] ?? 0) + n;
  const stats: EditStats = {
    durationMs: parts[0].durationMs,
    edits,
    acked: sum(parts.map((p) => p.acked)),
    skipped: sum(parts.map((p) => p.skipped)),
    ...percentilesOf(samples),
    errors: sum(parts.map((p) => p.errors)),
    errorKinds,
    firstErrors: parts.flatMap((p) => p.firstErrors).slice(0, 8),
    // Weighted by each client's edits (a client without editors in this step reports NaN).
    updateBytes: edits ? sum(parts.map((p) => (p.edits ? p.updateBytes * p.edits : 0))) / edits : NaN,
  };
  return {
    ...stats,
    editors: parts[0].editors,
    rooms: sum(parts.map((p) => p.rooms)),
    connectMs: max(parts.map((p) => p.connectMs)),
    lost: sum(parts.map((p) => p.lost)),
    lostLive: sum(parts.map((p) => p.lostLive)),
    lostRest: sum(parts.map((p) => p.lostRest)),
    diverged: sum(parts.map((p) => p.diverged)),
    restErrors: sum(parts.map((p) => p.restErrors)),
    shapeErrors: sum(parts.map((p) => p.shapeErrors)),
    serviceUpdates: sum(parts.map((p) => p.serviceUpdates)),
    disconnectMs: max(parts.map((p) => p.disconnectMs)),
    verifyMs: max(parts.map((p) => p.verifyMs)),
    clientCpu: sum(parts.map((p) => p.clientCpu)),
    // The busiest client's thread: the one whose clock a latency spike would come from.
    clientElu: max(parts.map((p) => p.clientElu)),
    clientRssMiB: sum(parts.map((p) => p.clientRssMiB)),
    clientStalls: {
      loopDelayP99Ms: max(parts.map((p) => p.clientStalls.loopDelayP99Ms)),
      loopDelayMaxMs: max(parts.map((p) => p.clientStalls.loopDelayMaxMs)),
      gcCount: sum(parts.map((p) => p.clientStalls.gcCount)),
      gcTotalMs: sum(parts.map((p) => p.clientStalls.gcTotalMs)),
      gcMaxMs: max(parts.map((p) => p.clientStalls.gcMaxMs)),
      stalls: parts.flatMap((p, client) => p.clientStalls.stalls.map((s) => ({ ...s, client }))),
      startedAt: Math.min(...parts.map((p) => p.clientStalls.startedAt)),
    },
    samples,
  };
}

/**
 * Puts every thread of a process under SCHED_BATCH. chrt walks the process's threads and fails when one ends while it
 * does (a worker thread of the client finishing its start-up): tried again a few times, as the next walk sees it gone.
 */
function batch(pid: number, attempts = 5): void {
  for (let attempt = 1; ; attempt++) {
    try {
      execFileSync('chrt', ['--all-tasks', '--batch', '--pid', '0', String(pid)], { stdio: 'ignore' });
      return;
    } catch (err) {
      if (attempt >= attempts) throw err;
    }
  }
}
