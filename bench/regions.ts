// Region editing (issue 36 point 6): times and peak memory of the mask, edit and compose paths, on one instance of its
// own (the offline kinds, rate limits off, UPLOAD_MAX_BYTES 64 MiB so a 4096² picture can be uploaded), each against a
// baseline measured in the same run:
// 1. a mask save for a 2048² image, as the editor does it (./regions-client.ts, in a process of its own): encode the
//    mask PNG, POST /api/upload, set the mask node's `data.mask` in the live document, until a second client sees it
//    and has fetched the PNG; baseline: a 2048² photo (JPEG) put in an upload node's `data.image` the same way;
// 2. an offline inpaint of a 64² hole in a 1024² image: a run of upload → mask → edit (`inpaint-telea`, the image
//    workers), beside a run of upload → one adjust node on the same image;
// 3. a compose of 5 layers at 2048²: a run of 5 uploads → compose, beside one adjust node on a 2048² image;
// 4. the image workers' fairness: user B's small adjust runs (256²) alone, then while user A keeps one heavy edit
//    going (an inpaint of a 1024² hole in a 4096² image; a 5-layer compose at 4096² when inpaint is missing; a blur of
//    sigma 100 on 4096² when both are, labelled as a stand-in), B's p50/p90 and their ratio.
// Each case: BENCH_REGIONS_REPEATS (default 5) measured runs after one warm-up, each its own project (so none finds
// another's result in the cache); B's runs: BENCH_REGIONS_SMALL_RUNS (default 12) per row. Runs are followed from the
// load client's process (./load.ts). Peak memory (./peak-memory.ts): the image worker processes' and the service's
// (this process) over the case's measured runs. BENCH_REGIONS_HEAVY=inpaint|compose|blur picks A's heavy job.
// A kind this build cannot run (its task or model not there yet) is reported as missing, and the section goes on.
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../test/helpers/test-app.js';
import { SESSION_COOKIE } from '../test/helpers/live-client.js';
import type { HttpClient } from '../test/helpers/http-client.js';
import type { ApiContext } from './api.js';
import type { LoadClient, RunTimeline } from './load.js';
import { imageWorkerPids, measurePeakMemory as measureAll, type PeakMemory } from './peak-memory.js';
import type { RoundTripJob, RoundTripTimes } from './regions-client.js';
import { picture, projectWith, uploadPicture } from './run-canvases.js';
import { runEnded, type RunViewLike } from './run-view.js';
import type { Section } from './table.js';

const envInt = (name: string, fallback: number, min: number) => {
  const raw = process.env[name];
  const n = raw === undefined || raw.trim() === '' ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
};

const REPEATS = envInt('BENCH_REGIONS_REPEATS', 5, 1);
const SMALL_RUNS = envInt('BENCH_REGIONS_SMALL_RUNS', 12, 2);
const HEAVY_CHOICE = process.env.BENCH_REGIONS_HEAVY?.trim() || undefined;
if (HEAVY_CHOICE && !['inpaint', 'compose', 'blur'].includes(HEAVY_CHOICE)) throw new Error(`BENCH_REGIONS_HEAVY: one of inpaint, compose, blur, got "${HEAVY_CHOICE}"`);
const MASK_SIDE = 2048;
const INPAINT_SIDE = 1024;
const HOLE = 64;
const COMPOSE_SIDE = 2048;
const LAYERS = 5;
const HEAVY_SIDE = 4096;
const HEAVY_HOLE = 1024;
const SMALL_SIDE = 256;
const RUN_CAP_MS = 180_000;
/** A's heavy loop stops starting runs after this long, whatever B does. */
const HEAVY_CAP_MS = 600_000;
const MB = 2 ** 20;
const BLENDS = ['normal', 'multiply', 'screen', 'overlay', 'soft-light'];

/** Nearest-rank percentile. */
function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
const mb = (bytes: number) => (bytes / MB).toFixed(0);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const right = header.map((_, i) => i > 0 && i < header.length - 1);
  const line = (c: string[]) => `| ${c.map((v, i) => (right[i] ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`, ...rows.map(line)].join('\n');
}

const HEADER = ['case', 'n', 'p50 ms', 'p90 ms', 'max ms', 'workers peak MB', 'service peak MB', 'ratio'];
/** A table row: the times, the peaks (one worker's largest, and all workers' peaks added, / the service's). */
function row(name: string, ms: number[], mem: PeakMemory | undefined, ratio: string): string[] {
  if (mem && !mem.reset) notReset = true;
  const workers = !mem ? '' : mem.workers === 0 ? 'none ran' : `${mb(mem.workerBytes)}${mem.workers > 1 ? ` (${mem.workers}: Σ ${mb(mem.workersSumBytes)})` : ''}`;
  const service = mem ? `${mb(mem.serviceBytes)} (+${mb(Math.max(0, mem.serviceBytes - mem.serviceStartBytes))})` : '';
  return [name, String(ms.length), f1(pct(ms, 0.5)), f1(pct(ms, 0.9)), f1(Math.max(...ms)), workers, service, ratio];
}
const ratioOf = (ms: number[], base: number[], baseName: string) => `${(pct(ms, 0.5) / pct(base, 0.5)).toFixed(2)}× p50 of ${baseName}`;

// ---------------------------------------------------------------------------------------------------------
// Pictures and canvases

/** A photo-like JPEG (gradient and noise), `size` a side. */
async function photo(size: number, seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(size * size * 3);
  const rowBytes = size * 3;
  for (let p = 0; p < raw.length; p++) raw[p] = (((p % rowBytes) / rowBytes) * 200 + ((p * 7919 + seed * 31) % 41)) & 0xff;
  return sharp(raw, { raw: { width: size, height: size, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

/** A black PNG `size` a side with a white square of `hole` in its middle: the region to inpaint. */
async function holeMask(size: number, hole: number): Promise<Buffer> {
  const at = Math.floor((size - hole) / 2);
  const white = await sharp({ create: { width: hole, height: hole, channels: 3, background: '#ffffff' } }).png().toBuffer();
  return sharp({ create: { width: size, height: size, channels: 3, background: '#000000' } }).composite([{ input: white, left: at, top: at }]).png().toBuffer();
}

const node = (id: string, type: string, data: Record<string, unknown>, x = 0, y = 0) => ({ id, type, position: { x, y }, data: { type, ...data } });

/** upload → mask (its data.mask) → edit (inpaint; image from the upload, mask from the mask node). */
function inpaintCanvas(imageUrl: string, maskUrl: string, seed: number) {
  return {
    nodes: [node('src', 'upload', { image: imageUrl }), node('m', 'mask', { mask: maskUrl }, 300, 0), node('e', 'edit', { mode: 'inpaint', prompt: '', seed }, 600, 0)],
    edges: [
      { id: 'e-src-m', source: 'src', target: 'm' },
      { id: 'e-src-e', source: 'src', target: 'e' },
      { id: 'e-m-e', source: 'm', target: 'e', sourceHandle: 'mask', targetHandle: 'mask' },
    ],
  };
}

/** upload → one adjust node (`variant` changes its brightness: a new key). */
function adjustCanvas(imageUrl: string, variant: number, extra: Record<string, unknown> = {}) {
  return {
    nodes: [node('src', 'upload', { image: imageUrl }), node('a', 'adjust', { brightness: 1 + (variant % 1000) / 2000, ...extra }, 300, 0)],
    edges: [{ id: 'e-src-a', source: 'src', target: 'a' }],
  };
}

/** `urls.length` uploads → compose (`side`², layers offset, at 0.8 opacity, in five blend modes; `variant` moves the bottom one). */
function composeCanvas(urls: string[], side: number, variant: number) {
  const layers = urls.map((_, i) => ({ x: i === 0 ? variant : i * 64, y: i * 48, scale: 1, opacity: i === 0 ? 1 : 0.8, blend: BLENDS[i % BLENDS.length], name: `layer ${i + 1}` }));
  return {
    nodes: [...urls.map((url, i) => node(`l${i}`, 'upload', { image: url }, 0, i * 300)), node('c', 'compose', { width: side, height: side, layers }, 400, 0)],
    edges: urls.map((_, i) => ({ id: `e-l${i}`, source: `l${i}`, target: 'c' })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Runs

interface Case {
  ms: number[];
  inTask: number[];
  mem: PeakMemory;
}

/** The jobs' own times from their rows: started → finished (the task: inputs, image workers, store, commit). */
async function inTaskMs(t: TestApp, view: RunViewLike): Promise<number[]> {
  const { rows } = await t.pool.query<{ ms: number }>(
    'SELECT EXTRACT(EPOCH FROM (finished_at - started_at)) * 1000 AS ms FROM generation_jobs WHERE id = ANY($1) AND started_at IS NOT NULL AND finished_at IS NOT NULL',
    [view.jobs.map((j) => j.jobId)],
  );
  return rows.map((r) => Number(r.ms));
}

const describeFailure = (tl: RunTimeline) => {
  const bad = tl.view.jobs.find((j) => j.status !== 'succeeded');
  return `run ended ${tl.status}${bad ? ` (node ${bad.nodeId}: ${bad.status}${bad.reason ? `, ${bad.reason}` : ''})` : ''}`;
};

/**
 * Runs each project's canvas (mode all), one after another: the first is a warm-up; the others are measured (time from
 * the request to the run's end at the client, and the jobs' time in their task), peak memory over them. Throws with the
 * reason when a run is refused or does not succeed, or when a job came from the cache.
 */
async function measureRuns(t: TestApp, load: LoadClient, headers: Record<string, string>, projects: string[]): Promise<Case> {
  const follow = async (projectId: string) => {
    const tl = await load.followRun(t.baseUrl, headers, projectId, { mode: 'all' }, RUN_CAP_MS);
    if (tl.status !== 'succeeded') throw new Error(describeFailure(tl));
    if (tl.view.jobs.some((j) => j.cached)) throw new Error(`run ${tl.runId}: a job came from the cache`);
    return tl;
  };
  await follow(projects[0]);
  const ms: number[] = [];
  const inTask: number[] = [];
  const memory = measurePeakMemory();
  let mem: PeakMemory | undefined;
  try {
    for (const projectId of projects.slice(1)) {
      const tl = await follow(projectId);
      ms.push(tl.endedMs);
      inTask.push(...(await inTaskMs(t, tl.view)));
    }
    mem = memory.stop();
  } finally {
    mem ??= memory.stop();
  }
  return { ms, inTask, mem };
}

/** A run of the project started from this process and polled to its end (A's heavy loop): its status and time. */
async function runHere(t: TestApp, client: HttpClient, projectId: string): Promise<{ status: string; ms: number; reason?: string }> {
  const started = performance.now();
  const res = await client.post(`/api/projects/${projectId}/runs`, { mode: 'all' });
  if (res.status !== 202) return { status: `refused ${res.status}`, ms: performance.now() - started, reason: String(res.json?.error ?? res.text).slice(0, 160) };
  const runId = (res.json as RunViewLike).id;
  while (performance.now() - started < RUN_CAP_MS) {
    await sleep(250);
    const got = await client.get(`/api/projects/${projectId}/runs/${runId}`);
    const view = got.json as RunViewLike;
    if (got.status === 200 && runEnded(view.status)) {
      const bad = view.jobs.find((j) => j.status !== 'succeeded');
      return { status: view.status, ms: performance.now() - started, reason: bad?.reason ?? undefined };
    }
  }
  return { status: 'not ended', ms: performance.now() - started };
}

// ---------------------------------------------------------------------------------------------------------
// The editor's side of a mask save, in its own process (./regions-client.ts)

function roundTripsInChild(job: RoundTripJob): Promise<RoundTripTimes[]> {
  const child = fork(new URL('./regions-client.ts', import.meta.url), [], { execArgv: ['--import', 'tsx'], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let timer: NodeJS.Timeout | undefined;
  return new Promise<RoundTripTimes[]>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error('the mask-save client did not answer within 5 minutes')), 300_000);
    child.once('message', (m: { result?: RoundTripTimes[]; error?: string }) => (m.error !== undefined ? reject(new Error(m.error)) : resolve(m.result!)));
    child.once('exit', (code, signal) => reject(new Error(`the mask-save client exited (${code ?? signal})`)));
    child.once('error', reject);
    child.send({ id: 0, job });
  }).finally(async () => {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  });
}

// ---------------------------------------------------------------------------------------------------------

/** Image workers that are not this section's instance's (the main bench instance's, started before it). */
let othersWorkers: ReadonlySet<number> = new Set();
const measurePeakMemory = () => measureAll(othersWorkers);
/** Whether some peak could not be reset at its case's start (then it is the process's whole life's). */
let notReset = false;

export const regionsSection: Section<ApiContext> = async ({ load, notes }) => {
  othersWorkers = new Set(imageWorkerPids());
  const out: string[][] = [];
  const lines: string[] = [];
  const missing: string[] = [];
  const t = await startTestApp(
    { IMAGE_MODEL: 'local', RATE_LIMIT_GENERATIONS_PER_MINUTE: '0', RATE_LIMIT_UPLOADS_PER_MINUTE: '0', UPLOAD_MAX_BYTES: String(64 * MB) },
    'embedded',
  );
  try {
    const user = await t.user('bench-regions@example.com', 'Bench Regions');
    const headers = { cookie: await user.client.jar.getCookieString(t.baseUrl) };
    const projects = async (n: number, name: string, canvas: (k: number) => { nodes: unknown[]; edges: unknown[] }) => {
      const ids: string[] = [];
      for (let k = 0; k < n; k++) ids.push(await projectWith(user.client, user.id, `${name} ${k}`, canvas(k)));
      return ids;
    };

    // --- 1. Mask save round trip, 2048².
    {
      const base = await uploadPicture(user.client, await photo(MASK_SIDE, 1), 'bench-mask-base.jpg');
      const projectId = await projectWith(user.client, user.id, 'Bench mask save', {
        nodes: [node('src', 'upload', { image: base }), node('m', 'mask', {}, 300, 0), node('p', 'upload', {}, 0, 300)],
        edges: [{ id: 'e-src-m', source: 'src', target: 'm' }],
      });
      const token = (await user.client.cookie(SESSION_COOKIE))!;
      const job = (what: 'mask' | 'photo', nodeId: string): RoundTripJob => ({ baseUrl: t.baseUrl, token, projectId, nodeId, what, size: MASK_SIDE, repeats: REPEATS });
      const measured = async (what: 'mask' | 'photo', nodeId: string) => {
        const memory = measurePeakMemory();
        try {
          const times = await roundTripsInChild(job(what, nodeId));
          return { times, mem: memory.stop() };
        } catch (err) {
          memory.stop();
          throw err;
        }
      };
      const photoSave = await measured('photo', 'p');
      const maskSave = await measured('mask', 'm');
      const totals = (x: RoundTripTimes[]) => x.map((r) => r.totalMs);
      const baseName = `the photo save`;
      out.push(row(`photo save ${MASK_SIDE}² (JPEG q90): encode → POST /api/upload → upload node's data.image → seen and fetched by another client`, totals(photoSave.times), photoSave.mem, 'baseline'));
      out.push(row(`mask save ${MASK_SIDE}² (RGBA PNG): encode → POST /api/upload → mask node's data.mask → seen and fetched by another client`, totals(maskSave.times), maskSave.mem, ratioOf(totals(maskSave.times), totals(photoSave.times), baseName)));
      const stages = (x: RoundTripTimes[]) =>
        `encode ${f1(pct(x.map((r) => r.encodeMs), 0.5))}, upload ${f1(pct(x.map((r) => r.uploadMs), 0.5))}, set → acknowledged ${f1(pct(x.map((r) => r.savedMs), 0.5))}, ` +
        `set → seen by the other client ${f1(pct(x.map((r) => r.seenMs), 0.5))}, its GET of the file ${f1(pct(x.map((r) => r.fetchMs), 0.5))} ms; ${(x[0].bytes / MB).toFixed(2)} MB`;
      lines.push(`Mask save, p50 by stage: mask ${stages(maskSave.times)}; photo ${stages(photoSave.times)}. The editor's side (encoding, the two live clients) runs in a process of its own; the service's peak is this process's.`);
    }

    // --- 2. Offline inpaint of a 64² hole in a 1024² image, as a run, beside one adjust node.
    const inpaintInput = await uploadPicture(user.client, await picture(INPAINT_SIDE, 2), 'bench-inpaint.png');
    const inpaintMask = await uploadPicture(user.client, await holeMask(INPAINT_SIDE, HOLE), 'bench-inpaint-mask.png');
    let inpaintWorks = false;
    {
      const adjust = await measureRuns(t, load, headers, await projects(REPEATS + 1, 'Bench adjust 1024', (k) => adjustCanvas(inpaintInput, k + 1)));
      out.push(row(`run: upload ${INPAINT_SIDE}² → 1 adjust node (request → run ended)`, adjust.ms, adjust.mem, 'baseline'));
      try {
        const inpaint = await measureRuns(t, load, headers, await projects(REPEATS + 1, 'Bench inpaint', (k) => inpaintCanvas(inpaintInput, inpaintMask, k + 1)));
        inpaintWorks = true;
        out.push(row(`run: upload ${INPAINT_SIDE}² → mask (${HOLE}² hole) → edit inpaint-telea (request → run ended)`, inpaint.ms, inpaint.mem, ratioOf(inpaint.ms, adjust.ms, 'the adjust run')));
        lines.push(`Inpaint ${HOLE}² in ${INPAINT_SIDE}²: the edit job's own time (its row: started → finished) p50 ${f1(pct(inpaint.inTask, 0.5))} ms, p90 ${f1(pct(inpaint.inTask, 0.9))} ms; the adjust job's p50 ${f1(pct(adjust.inTask, 0.5))} ms.`);
      } catch (err) {
        missing.push(`inpaint (edit with inpaint-telea): ${(err as Error).message}`);
      }
    }

    // --- 3. Compose of 5 layers at 2048², as a run, beside one adjust node at 2048².
    const layerUrls: string[] = [];
    for (let i = 0; i < LAYERS; i++) layerUrls.push(await uploadPicture(user.client, await photo(COMPOSE_SIDE, 10 + i), `bench-layer-${i}.jpg`));
    let composeWorks = false;
    {
      const adjust = await measureRuns(t, load, headers, await projects(REPEATS + 1, 'Bench adjust 2048', (k) => adjustCanvas(layerUrls[0], k + 1)));
      out.push(row(`run: upload ${COMPOSE_SIDE}² → 1 adjust node (request → run ended)`, adjust.ms, adjust.mem, 'baseline'));
      try {
        const composed = await measureRuns(t, load, headers, await projects(REPEATS + 1, 'Bench compose', (k) => composeCanvas(layerUrls, COMPOSE_SIDE, k + 1)));
        composeWorks = true;
        out.push(row(`run: ${LAYERS} uploads ${COMPOSE_SIDE}² → compose ${COMPOSE_SIDE}² (request → run ended)`, composed.ms, composed.mem, ratioOf(composed.ms, adjust.ms, 'the adjust run')));
        lines.push(`Compose ${LAYERS} × ${COMPOSE_SIDE}²: the compose job's own time p50 ${f1(pct(composed.inTask, 0.5))} ms, p90 ${f1(pct(composed.inTask, 0.9))} ms; the adjust job's p50 ${f1(pct(adjust.inTask, 0.5))} ms.`);
      } catch (err) {
        missing.push(`compose: ${(err as Error).message}`);
      }
    }

    // --- 4. Fairness: B's small adjust runs, alone and beside A's heavy edit kept going.
    {
      const heavy = HEAVY_CHOICE ?? (inpaintWorks ? 'inpaint' : composeWorks ? 'compose' : 'blur');
      const b = await t.user('bench-regions-b@example.com', 'Bench Regions B');
      const bHeaders = { cookie: await b.client.jar.getCookieString(t.baseUrl) };
      const small = await uploadPicture(b.client, await picture(SMALL_SIDE, 3), 'bench-small.png');
      const bProjects = async (name: string, offset: number) => {
        const ids: string[] = [];
        for (let k = 0; k <= SMALL_RUNS; k++) ids.push(await projectWith(b.client, b.id, `${name} ${k}`, adjustCanvas(small, offset + k)));
        return ids;
      };
      const aloneProjects = await bProjects('Bench small alone', 1);
      const besideProjects = await bProjects('Bench small beside', 1 + SMALL_RUNS + 1);

      const a = await t.user('bench-regions-a@example.com', 'Bench Regions A');
      let heavyCanvas: (k: number) => { nodes: unknown[]; edges: unknown[] };
      let heavyWhat: string;
      if (heavy === 'inpaint') {
        const big = await uploadPicture(a.client, await photo(HEAVY_SIDE, 5), 'bench-heavy.jpg');
        const hole = await uploadPicture(a.client, await holeMask(HEAVY_SIDE, HEAVY_HOLE), 'bench-heavy-mask.png');
        heavyCanvas = (k) => inpaintCanvas(big, hole, 1000 + k);
        heavyWhat = `inpaint-telea of a ${HEAVY_HOLE}² hole in a ${HEAVY_SIDE}² image`;
      } else if (heavy === 'compose') {
        const urls: string[] = [];
        for (let i = 0; i < LAYERS; i++) urls.push(await uploadPicture(a.client, await photo(HEAVY_SIDE, 20 + i), `bench-heavy-layer-${i}.jpg`));
        heavyCanvas = (k) => composeCanvas(urls, HEAVY_SIDE, 1000 + k);
        heavyWhat = `compose of ${LAYERS} layers at ${HEAVY_SIDE}²`;
      } else {
        const big = await uploadPicture(a.client, await photo(HEAVY_SIDE, 5), 'bench-heavy.jpg');
        heavyCanvas = (k) => adjustCanvas(big, 1000 + k, { blur: 100 });
        heavyWhat = `STAND-IN (no edit or compose in this build): adjust blur σ 100 on ${HEAVY_SIDE}²`;
      }

      const follow = async (projectId: string) => {
        const tl = await load.followRun(t.baseUrl, bHeaders, projectId, { mode: 'all' }, RUN_CAP_MS);
        if (tl.status !== 'succeeded' || tl.view.jobs.some((j) => j.cached)) throw new Error(`B's small run: ${describeFailure(tl)}${tl.view.jobs.some((j) => j.cached) ? ', cached' : ''}`);
        return tl;
      };
      /** B's job rows: created → started (waiting for a job slot) and started → finished (the task, image worker included). */
      const parts = { alone: { wait: [] as number[], task: [] as number[] }, beside: { wait: [] as number[], task: [] as number[] } };
      const bRow = async (ids: string[], into: { wait: number[]; task: number[] }) => {
        await follow(ids[0]); // warm-up
        const ms: number[] = [];
        for (const id of ids.slice(1)) {
          const tl = await follow(id);
          ms.push(tl.endedMs);
          const { rows } = await t.pool.query<{ wait: number; task: number }>(
            'SELECT EXTRACT(EPOCH FROM (started_at - created_at)) * 1000 AS wait, EXTRACT(EPOCH FROM (finished_at - started_at)) * 1000 AS task FROM generation_jobs WHERE id = ANY($1)',
            [tl.view.jobs.map((j) => j.jobId)],
          );
          for (const r of rows) {
            into.wait.push(Number(r.wait));
            into.task.push(Number(r.task));
          }
        }
        return ms;
      };

      const aloneMem = measurePeakMemory();
      const alone = await bRow(aloneProjects, parts.alone);
      const aloneStats = aloneMem.stop();

      // A keeps one heavy run going (a new project each time: a new key) until B's row ends.
      let stopping = false;
      const aRuns: Array<{ status: string; ms: number; reason?: string }> = [];
      let firstStarted: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (firstStarted = resolve));
      const aLoop = (async () => {
        const begun = performance.now();
        for (let k = 0; !stopping && performance.now() - begun < HEAVY_CAP_MS; k++) {
          const projectId = await projectWith(a.client, a.id, `Bench heavy ${k}`, heavyCanvas(k));
          const run = runHere(t, a.client, projectId);
          if (k === 0) {
            // B starts once A's first job is running (its row says so), or after 10 s at most.
            const until = performance.now() + 10_000;
            while (performance.now() < until) {
              const { rows } = await t.pool.query("SELECT 1 FROM generation_jobs WHERE user_id = $1 AND status = 'running' LIMIT 1", [a.id]);
              if (rows.length > 0) break;
              await sleep(100);
            }
            firstStarted();
          }
          aRuns.push(await run);
        }
        firstStarted();
      })();
      let beside: number[] = [];
      const besideMem = measurePeakMemory();
      let besideStats: PeakMemory;
      try {
        await started;
        beside = await bRow(besideProjects, parts.beside);
      } finally {
        besideStats = besideMem.stop();
        stopping = true;
        await aLoop;
      }

      out.push(row(`B: run of 1 adjust node on ${SMALL_SIDE}², alone`, alone, aloneStats, 'baseline'));
      out.push(row(`B: the same, while A keeps one heavy edit going`, beside, besideStats, `p50 ${(pct(beside, 0.5) / pct(alone, 0.5)).toFixed(2)}×, p90 ${(pct(beside, 0.9) / pct(alone, 0.9)).toFixed(2)}× of alone`));
      const byStatus = new Map<string, number>();
      for (const r of aRuns) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
      const reasons = [...new Set(aRuns.map((r) => r.reason).filter(Boolean))];
      lines.push(
        `Fairness: A's heavy job: ${heavyWhat}; A ran ${aRuns.length} (${[...byStatus].map(([s, n]) => `${n} ${s}`).join(', ')}${reasons.length ? `; reasons: ${reasons.join(' | ').slice(0, 300)}` : ''}), ` +
          `each request → end p50 ${f1(pct(aRuns.map((r) => r.ms), 0.5))} ms. B's p50 ${f1(pct(beside, 0.5))} ms beside it vs ${f1(pct(alone, 0.5))} ms alone ` +
          `(ratio ${(pct(beside, 0.5) / pct(alone, 0.5)).toFixed(2)}), p90 ${f1(pct(beside, 0.9))} vs ${f1(pct(alone, 0.9))} ms (ratio ${(pct(beside, 0.9) / pct(alone, 0.9)).toFixed(2)}). ` +
          `B's job rows, p50 (p90) beside A vs alone: created → started ${f1(pct(parts.beside.wait, 0.5))} (${f1(pct(parts.beside.wait, 0.9))}) vs ${f1(pct(parts.alone.wait, 0.5))} (${f1(pct(parts.alone.wait, 0.9))}) ms, ` +
          `started → finished (the task, its image worker's turn included) ${f1(pct(parts.beside.task, 0.5))} (${f1(pct(parts.beside.task, 0.9))}) vs ${f1(pct(parts.alone.task, 0.5))} (${f1(pct(parts.alone.task, 0.9))}) ms. ` +
          `The image workers' CPU over B's row beside A, each worker's CPU time ÷ the row's ${f1(besideStats.wallMs / 1000)} s: ${besideStats.workerCpuMs.map((c) => (c / besideStats.wallMs).toFixed(2)).join(' + ') || 'none'} cores ` +
          `(alone: ${aloneStats.workerCpuMs.map((c) => (c / aloneStats.wallMs).toFixed(2)).join(' + ') || 'none'}). ` +
          `Limits: IMAGE_WORKERS ${t.config.model.imageWorkers} (one user holds at most IMAGE_WORKERS − 1), JOBS_CONCURRENCY ${t.config.jobs.concurrency}, JOBS_RUNNING_PER_USER ${t.config.jobs.runningPerUser}.`,
      );
    }
  } finally {
    await t.close();
    if (out.length > 0) {
      notes.push(
        `\nRegion editing (issue 36 point 6; one instance, offline kinds; ${REPEATS} measured runs per case after a warm-up, B's rows ${SMALL_RUNS}; times at the client; ` +
          'peaks: the largest image worker process (and all of them added), and the service process (its growth over its size at the case\'s start), over the case):\n\n' +
          table(HEADER, out),
        ...lines,
      );
    }
    if (notReset) notes.push('Region editing: some peaks could not be reset at their case\'s start (/proc/<pid>/clear_refs refused): those are since their process started.');
    if (missing.length > 0) notes.push(...missing.map((m) => `Region editing: MISSING in this build — ${m}`));
  }
};
