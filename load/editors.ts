// The load client: a process of its own (forked by run.ts), so its work never runs on the service's event
// loop. It holds the simulated editors and runs one step at a time when asked.
//
// An editor is one signed-in browser tab: its own keep-alive connection (one undici Client), its own project
// and a 200-node / 300-edge canvas (bench/api.ts makeCanvas). Once a second, at its own phase within the
// second, it moves one node and saves the whole canvas with the version it last got back (0 before its first
// save). Open loop: ticks are fixed in time; a tick that finds the previous save still in flight is skipped
// and counted as late. At the end of a step every editor reads its canvas back and compares it with what
// the service last acknowledged.
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { makeCanvas } from '../bench/api.js';
import type { EditorSpec, FromClient, StepRequest, StepResult, ToClient } from './protocol.js';

type CanvasNode = ReturnType<typeof makeCanvas>['nodes'][number];

const CANVAS_PATH = '/api/user/project/canvas';
/** A save or a read that takes longer than this fails (counted as an error, never waited for forever). */
const REQUEST_TIMEOUT_MS = 10_000;
const PROGRESS_EVERY_MS = 10_000;

function post(message: FromClient): void {
  process.send?.(message);
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

class Editor {
  readonly client: Client;
  private readonly nodes: CanvasNode[];
  /** Each node's JSON, re-serialised only when that node changes. */
  private readonly nodeJson: string[];
  private readonly edgesJson: string;
  private readonly prefix: string;
  private changes = 0;
  canvasId: string | undefined;
  /** The version of the last save the service acknowledged (0: none yet). */
  acked = 0;
  /** Node positions (x, y per node) of the acknowledged canvas. */
  ackedPositions: Float64Array;
  inFlight = false;

  constructor(
    readonly spec: EditorSpec,
    private readonly origin: string,
  ) {
    this.client = new Client(origin, {
      pipelining: 1,
      keepAliveTimeout: 120_000,
      keepAliveMaxTimeout: 120_000,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    const { nodes, edges } = makeCanvas(spec.userId, spec.seed);
    this.nodes = nodes;
    this.nodeJson = nodes.map((n) => JSON.stringify(n));
    this.edgesJson = JSON.stringify(edges);
    this.prefix = `{"projectId":${JSON.stringify(spec.projectId)},"version":`;
    this.ackedPositions = new Float64Array(nodes.length * 2);
  }

  /** The small change of one save: one node moved by a few pixels. */
  private change(): void {
    const c = this.changes++;
    const k = (c * 37 + this.spec.seed) % this.nodes.length;
    const node = this.nodes[k];
    const d = (c % 2 === 0 ? 1 : -1) * (1 + (c % 7));
    node.position = { x: Math.round((node.position.x + d) * 100) / 100, y: node.position.y };
    this.nodeJson[k] = JSON.stringify(node);
  }

  private positions(): Float64Array {
    const out = new Float64Array(this.nodes.length * 2);
    for (let i = 0; i < this.nodes.length; i++) {
      out[2 * i] = this.nodes[i].position.x;
      out[2 * i + 1] = this.nodes[i].position.y;
    }
    return out;
  }

  body(): string {
    const id = this.canvasId ? `,"id":${JSON.stringify(this.canvasId)}` : '';
    return `${this.prefix}${this.acked}${id},"nodes":[${this.nodeJson.join(',')}],"edges":${this.edgesJson}}`;
  }

  private headers(json: boolean): Record<string, string> {
    return json ? { cookie: this.spec.cookie, origin: this.origin, 'content-type': 'application/json' } : { cookie: this.spec.cookie };
  }

  /** One save: resolves with the response size, throws SaveError on any failure. */
  async save(signal: AbortSignal): Promise<number> {
    this.change();
    const sent = this.positions();
    const res = await this.client.request({ method: 'POST', path: CANVAS_PATH, headers: this.headers(true), body: this.body(), signal });
    const buf = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode !== 200) throw new SaveError(String(res.statusCode), `${res.statusCode} ${buf.toString('utf8', 0, 200)}`);
    // The service answers with the JSON text PostgreSQL builds: {"id" : …, …, "version" : N}. Read the two
    // fields from the ends instead of parsing 80 KB per save (the client shares the machine's cores).
    const tail = /"version"\s*:\s*(\d+)\s*\}\s*$/.exec(buf.toString('latin1', Math.max(0, buf.length - 64)));
    const head = /^\{\s*"id"\s*:\s*"([^"]+)"/.exec(buf.toString('latin1', 0, 80));
    let version: number;
    let id: string | undefined;
    if (tail && head) {
      version = Number(tail[1]);
      id = head[1];
    } else {
      const parsed = JSON.parse(buf.toString('utf8')) as { id?: string; version?: number };
      version = Number(parsed.version);
      id = parsed.id;
    }
    if (version !== this.acked + 1) throw new SaveError('unexpected version', `sent version ${this.acked}, got ${version} back`);
    this.acked = version;
    this.canvasId = id;
    this.ackedPositions = sent;
    return buf.length;
  }

  /** Reads the stored canvas back and compares it with the last acknowledged save. */
  async verify(): Promise<'ok' | 'lost' | 'mismatch' | 'ahead'> {
    const res = await this.client.request({ method: 'GET', path: `${CANVAS_PATH}?projectId=${encodeURIComponent(this.spec.projectId)}`, headers: this.headers(false) });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET canvas → ${res.statusCode} ${text.slice(0, 200)}`);
    const stored = JSON.parse(text) as { version: number; nodes: CanvasNode[] } | null;
    const version = stored?.version ?? 0;
    let verdict: 'ok' | 'lost' | 'mismatch' | 'ahead' = 'ok';
    if (version < this.acked) verdict = 'lost';
    else if (version > this.acked) verdict = 'ahead';
    else if (stored) {
      const same = stored.nodes.length === this.nodes.length && stored.nodes.every((n, i) => n.position.x === this.ackedPositions[2 * i] && n.position.y === this.ackedPositions[2 * i + 1]);
      if (!same) verdict = 'mismatch';
    }
    // Continue from what is stored (after a lost answer the next save would otherwise be refused with 409).
    if (verdict !== 'ok' && stored) {
      this.acked = version;
      this.ackedPositions = new Float64Array(stored.nodes.flatMap((n) => [n.position.x, n.position.y]));
    }
    return verdict;
  }
}

class SaveError extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

const editors: Editor[] = [];

async function runStep(req: StepRequest): Promise<StepResult> {
  const active = editors.slice(0, req.editors);
  if (active.length < req.editors) throw new Error(`asked for ${req.editors} editors, only ${active.length} exist`);
  const abort = new AbortController();
  setMaxListeners(0, abort.signal); // one listener per save in flight
  const latencies: number[] = [];
  const sendLatencies: number[] = [];
  const timerLags: number[] = [];
  const errorKinds: Record<string, number> = {};
  const firstErrors: string[] = [];
  let ticks = 0;
  let saves = 0;
  let late = 0;
  let errors = 0;
  let inFlight = 0;
  let responseBytes = 0;
  const timers = new Set<NodeJS.Timeout>();
  let settleDrain: (() => void) | undefined;

  const fail = (kind: string, message: string) => {
    errors++;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
    if (firstErrors.length < 5) firstErrors.push(message);
  };

  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now() + 20;
  const end = t0 + req.durationMs;

  const schedule = (e: Editor, at: number) => {
    if (at >= end) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      tick(e, at);
    }, Math.max(0, at - performance.now()));
    timers.add(timer);
  };

  const tick = (e: Editor, at: number) => {
    ticks++;
    schedule(e, at + 1000);
    if (e.inFlight) {
      late++;
      return;
    }
    const started = performance.now();
    timerLags.push(started - at);
    e.inFlight = true;
    inFlight++;
    e.save(abort.signal).then(
      (bytes) => {
        const done = performance.now();
        latencies.push(done - at);
        sendLatencies.push(done - started);
        saves++;
        responseBytes ||= bytes;
      },
      (err: Error & { code?: string }) => {
        if (err instanceof SaveError) fail(err.kind, err.message);
        else fail(abort.signal.aborted ? 'not answered in time' : (err.code ?? err.name), `${err.code ?? err.name}: ${err.message}`);
      },
    ).finally(() => {
      e.inFlight = false;
      inFlight--;
      if (inFlight === 0) settleDrain?.();
    });
  };

  for (const e of active) schedule(e, t0 + Math.random() * 1000);

  const progress = setInterval(() => {
    const s = Math.round((performance.now() - t0) / 1000);
    post({ type: 'progress', line: `  ${req.editors} editors, ${s} s: ${saves} saves, ${late} late, ${errors} errors, ${inFlight} in flight` });
  }, PROGRESS_EVERY_MS);
  try {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - performance.now())));
    // No tick is left; wait (bounded) for the saves still in flight.
    for (const t of timers) clearTimeout(t);
    if (inFlight > 0) {
      await new Promise<void>((resolve) => {
        settleDrain = resolve;
        setTimeout(resolve, req.drainMs);
      });
    }
    if (inFlight > 0) {
      abort.abort();
      await new Promise<void>((resolve) => {
        settleDrain = resolve;
        setTimeout(resolve, 2_000);
      });
    }
  } finally {
    clearInterval(progress);
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0);
  post({ type: 'loaded' });

  // Every editor reads its canvas back: is the last acknowledged save what is stored?
  const verifyStart = performance.now();
  let lost = 0;
  let contentMismatch = 0;
  let ahead = 0;
  let verifyErrors = 0;
  let next = 0;
  const verifyDeadline = Date.now() + 120_000;
  await Promise.all(
    Array.from({ length: Math.min(req.verifyConcurrency, active.length) }, async () => {
      while (next < active.length && Date.now() < verifyDeadline) {
        const e = active[next++];
        try {
          const v = await e.verify();
          if (v === 'lost') lost++;
          else if (v === 'mismatch') {
            lost++;
            contentMismatch++;
          } else if (v === 'ahead') ahead++;
        } catch (err) {
          verifyErrors++;
          if (firstErrors.length < 5) firstErrors.push(`verify: ${(err as Error).message}`);
        }
      }
    }),
  );
  verifyErrors += active.length - Math.min(next, active.length);

  const sorted = (xs: number[]) => Float64Array.from(xs).sort();
  const lat = sorted(latencies);
  const sendLat = sorted(sendLatencies);
  const lags = sorted(timerLags);
  return {
    editors: req.editors,
    durationMs: req.durationMs,
    ticks,
    saves,
    late,
    errors,
    errorKinds,
    firstErrors,
    p50Ms: percentile(lat, 0.5),
    p90Ms: percentile(lat, 0.9),
    p99Ms: percentile(lat, 0.99),
    maxMs: lat.length ? lat[lat.length - 1] : NaN,
    sendP99Ms: percentile(sendLat, 0.99),
    timerLagP99Ms: percentile(lags, 0.99),
    timerLagMaxMs: lags.length ? lags[lags.length - 1] : NaN,
    lost,
    contentMismatch,
    ahead,
    verifyErrors,
    verifyMs: performance.now() - verifyStart,
    requestBytes: Buffer.byteLength(active[0].body()),
    responseBytes,
    clientCpu: (cpu.user + cpu.system) / 1000 / wallMs,
    clientElu: elu.utilization,
    clientRssMiB: process.memoryUsage().rss / 2 ** 20,
  };
}

let closing = false;
async function shutdown(code: number): Promise<never> {
  if (!closing) {
    closing = true;
    const timeout = new Promise((resolve) => setTimeout(resolve, 5_000).unref());
    await Promise.race([Promise.allSettled(editors.map((e) => e.client.destroy())), timeout]);
  }
  process.exit(code);
}

// The orchestrator owns this process: when it goes away, so does this one. Ctrl-C reaches the whole process
// group; the orchestrator stops everything, and this process just leaves.
process.on('disconnect', () => void shutdown(1));
process.on('SIGINT', () => void shutdown(130));
process.on('SIGTERM', () => void shutdown(143));

process.on('message', (m: ToClient) => {
  void (async () => {
    try {
      if (m.type === 'add') {
        for (const spec of m.editors) editors.push(new Editor(spec, m.origin));
        post({ type: 'added', total: editors.length });
      } else if (m.type === 'step') {
        post({ type: 'result', result: await runStep(m.step) });
      } else if (m.type === 'close') {
        await shutdown(0);
      }
    } catch (err) {
      post({ type: 'failed', error: (err as Error).stack ?? String(err) });
    }
  })();
});

post({ type: 'ready' });
