// Starvation: one user's abusive generation beside a stream of other users' normal work, on the offline image
// engine (IMAGE_MODEL=local). The abusive request is ten 4096×4096 flat PNGs with a prompt of "blur 100" thirty
// times; the stream is small generations of other users (a 512×512 JPEG each, "grayscale") and public reads of a
// stored file (GET /files/<name>), run by the load client at the same time as two loops of their own. Rows: the
// stream alone, then with one and with two abusive requests kept in flight (sent from this process, each re-sent
// as soon as it is answered, stopped when the stream ends), and with three accounts keeping one each. Twice: on a service with the default limits, and on
// one that admits the abusive request (GENERATION_MAX_PIXELS 200 MP, no per-user in-flight limit), so that it
// really runs in the engine. Each instance is a service of its own, closed at the end. Then the accounts rows
// (./starvation-accounts.ts): three accounts within every limit against a fourth user, through the model-call and
// job slots. BENCH_STARVATION=engine or =accounts runs only one of the two parts.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { loadConfig } from '../src/config.js';
import { openObjectStore, startTestApp, type TestApp } from '../test/helpers/test-app.js';
import type { ApiContext } from './api.js';
import { accountsRows } from './starvation-accounts.js';
import { toRow, type HttpRequest, type LoadClient, type LoadResult } from './load.js';
import type { Row, Section } from './table.js';

const NORMAL_USERS = 4;
/** The stream: both loops run at once (4 in flight together); a loop that reaches STREAM_CAP_MS ends with what it did. */
const GENERATIONS = { requests: 200, concurrency: 2 };
const FILE_READS = { requests: 400, concurrency: 2 };
const STREAM_CAP_MS = 40_000; // + the load client's 30 s request timeout: within its answer deadline (cap + 30 s)
const ABUSIVE_IMAGES = 10;
const ABUSIVE_SIDE = 4096;
const ABUSIVE_PROMPT = 'blur 100 '.repeat(30).trim();
/** How long the abusive requests run before the stream starts (inputs read, the engine decoding). */
const ABUSE_LEAD_MS = 3_000;
/**
 * The model timeout of both instances: the default 120 s would let one abusive request outlive a row by minutes.
 * The offline engine only stops at its next step after a timeout, so rows are also separated by a wait for quiet.
 */
const MODEL_TIMEOUT_MS = 30_000;
const QUIET_CAP_MS = 90_000;
/** How long the abusive requests in flight when the stream ends are awaited before they are aborted. */
const ABUSE_DRAIN_MS = 30_000;
const MB = 1024 * 1024;

const BASE_ENV = {
  IMAGE_MODEL: 'local',
  IMAGE_MODEL_TIMEOUT_MS: String(MODEL_TIMEOUT_MS),
  RATE_LIMIT_GENERATIONS_PER_MINUTE: '0',
  RATE_LIMIT_UPLOADS_PER_MINUTE: '0',
};
const INSTANCES: Array<{ label: string; env: Record<string, string> }> = [
  { label: 'defaults', env: {} },
  { label: 'admitted', env: { GENERATION_MAX_PIXELS: '200000000', GENERATIONS_IN_FLIGHT_PER_USER: '0' } },
];

/** A photo-like JPEG (a gradient with noise), as in the generation section. */
async function photo(width: number, height: number, seed: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  const row = width * 3;
  for (let p = 0; p < pixels.length; p++) pixels[p] = (((p % row) / row) * 200 + ((p * 7919 + seed * 31) % 41)) & 0xff;
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

interface Fixtures {
  normalInputs: Buffer[];
  publicFile: Buffer;
  abusive: Buffer[];
}

async function makeFixtures(): Promise<Fixtures> {
  const normalInputs = await Promise.all(Array.from({ length: NORMAL_USERS }, (_, i) => photo(512, 512, i)));
  const publicFile = await photo(1024, 1024, 99);
  const abusive: Buffer[] = [];
  for (let i = 0; i < ABUSIVE_IMAGES; i++) {
    const background = { r: (40 + i * 20) % 256, g: (200 - i * 15) % 256, b: (90 + i * 13) % 256 };
    abusive.push(await sharp({ create: { width: ABUSIVE_SIDE, height: ABUSIVE_SIDE, channels: 3, background } }).png().toBuffer());
  }
  return { normalInputs, publicFile, abusive };
}

// ---------------------------------------------------------------------------------------------------------
// Other processes of this one (image workers, once image work moves there): their RSS and CPU, from /proc.

interface ChildSample {
  pid: number;
  comm: string;
  rssBytes: number;
  cpuMs: number;
}

/** Descendants of this process (Linux /proc), except the load client's tree, PostgreSQL's and tsx's esbuild. */
function otherChildren(loadClientPid: number | undefined): ChildSample[] {
  const found: ChildSample[] = [];
  const visit = (pid: number) => {
    let tasks: string[];
    try {
      tasks = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      return;
    }
    for (const tid of tasks) {
      let children: string[];
      try {
        children = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      } catch {
        continue;
      }
      for (const child of children.map(Number)) {
        if (child === loadClientPid) continue;
        try {
          const comm = fs.readFileSync(`/proc/${child}/comm`, 'utf8').trim();
          if (comm.startsWith('postgres') || comm === 'esbuild') continue;
          const status = fs.readFileSync(`/proc/${child}/status`, 'utf8');
          const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
          const stat = fs.readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1].split(' ');
          found.push({ pid: child, comm, rssBytes: rssKb * 1024, cpuMs: (Number(stat[11]) + Number(stat[12])) * 10 });
        } catch {
          continue; // it ended meanwhile
        }
        visit(child);
      }
    }
  };
  if (process.platform === 'linux') visit(process.pid);
  return found;
}

/** Peak RSS of this process (the service runs in it) and of its other child processes together, sampled every 100 ms. */
function sampleMemory(loadClientPid: number | undefined) {
  const start = process.memoryUsage.rss();
  let servicePeak = start;
  let childrenPeak = 0;
  const names = new Set<string>();
  const tick = () => {
    servicePeak = Math.max(servicePeak, process.memoryUsage.rss());
    const children = otherChildren(loadClientPid);
    for (const c of children) names.add(c.comm);
    childrenPeak = Math.max(childrenPeak, children.reduce((n, c) => n + c.rssBytes, 0));
  };
  const timer = setInterval(tick, 100);
  tick();
  return {
    stop() {
      clearInterval(timer);
      tick();
      return { start, servicePeak, childrenPeak, childNames: [...names] };
    },
  };
}

/**
 * Waits until this process and its other children use under 10 % of one core over half a second (the engine's
 * leftover work has ended); returns the time waited, or undefined if it was not quiet within QUIET_CAP_MS.
 */
async function waitForQuiet(loadClientPid: number | undefined): Promise<number | undefined> {
  const started = Date.now();
  const childCpu = () => otherChildren(loadClientPid).reduce((n, c) => n + c.cpuMs, 0);
  while (Date.now() - started < QUIET_CAP_MS) {
    const cpu = process.cpuUsage();
    const children = childCpu();
    const t0 = performance.now();
    await sleep(500);
    const used = process.cpuUsage(cpu);
    const busyMs = (used.user + used.system) / 1000 + Math.max(0, childCpu() - children);
    if (busyMs / (performance.now() - t0) < 0.1) return Date.now() - started;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// The abuser: n loops, each keeping one abusive request in flight until stopped.

interface AbusiveAnswer {
  status: number | 'aborted' | 'error';
  ms: number;
  detail?: string;
}

function startAbuse(n: number, url: string, headers: Record<string, string>[], body: string) {
  const answers: AbusiveAnswer[] = [];
  const controller = new AbortController();
  let stopping = false;
  const loop = async (headers: Record<string, string>) => {
    while (!stopping) {
      const started = performance.now();
      try {
        const res = await fetch(url, { method: 'POST', headers, body, signal: controller.signal });
        const text = await res.text();
        let detail: string | undefined;
        if (!res.ok) {
          try {
            const parsed = JSON.parse(text) as { error?: string; details?: unknown };
            detail = [parsed.error, typeof parsed.details === 'string' ? parsed.details : undefined].filter(Boolean).join(': ');
          } catch {
            detail = text.slice(0, 120);
          }
        }
        answers.push({ status: res.status, ms: performance.now() - started, detail });
      } catch (err) {
        const aborted = controller.signal.aborted;
        answers.push({ status: aborted ? 'aborted' : 'error', ms: performance.now() - started, detail: aborted ? undefined : (err as Error).message });
        if (!aborted) await sleep(200); // a broken connection is not a reason to spin
      }
    }
  };
  // Loop i sends as account i (the last account when there are fewer accounts than loops).
  const loops = Array.from({ length: n }, (_, i) => loop(headers[Math.min(i, headers.length - 1)]));
  return {
    /** Stops re-sending; awaits the requests in flight, aborted after ABUSE_DRAIN_MS (the server's work goes on: see waitForQuiet). */
    async stop(): Promise<{ answers: AbusiveAnswer[]; waitedMs: number }> {
      stopping = true;
      const started = performance.now();
      const timer = setTimeout(() => controller.abort(), ABUSE_DRAIN_MS);
      await Promise.all(loops);
      clearTimeout(timer);
      return { answers, waitedMs: performance.now() - started };
    },
  };
}

function describeAnswers(answers: AbusiveAnswer[]): string {
  if (answers.length === 0) return 'no answers';
  const byStatus = new Map<string, { count: number; detail?: string }>();
  for (const a of answers) {
    const key = String(a.status);
    const entry = byStatus.get(key) ?? { count: 0, detail: a.detail };
    entry.count++;
    byStatus.set(key, entry);
  }
  const statuses = [...byStatus].map(([status, e]) => `${e.count}× ${status}${e.detail ? ` (${e.detail.slice(0, 160)})` : ''}`).join(', ');
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
  const s = (v: number) => `${(v / 1000).toFixed(v < 1000 ? 2 : 1)} s`;
  const durations = ms.length <= 8 ? ms.map(s).join(', ') : `min ${s(ms[0])}, median ${s(ms[Math.floor(ms.length / 2)])}, max ${s(ms[ms.length - 1])}`;
  return `${answers.length} answered: ${statuses}; durations ${durations}`;
}

// ---------------------------------------------------------------------------------------------------------

interface Setup {
  generationSlots: HttpRequest[][];
  fileRead: HttpRequest;
  fileBytes: number;
  /** `headers[i]`: abusive account i's. */
  abuse: { url: string; headers: Record<string, string>[]; body: string };
}

async function setUp(t: TestApp, fixtures: Fixtures): Promise<Setup> {
  const store = await openObjectStore(t);
  const put = async (name: string, data: Buffer, contentType: string) => (await store.put(name, Readable.from([data]), { contentType, maxBytes: 50 * MB })).url;
  const requests: HttpRequest[] = [];
  let fileUrl: string;
  let abusiveUrls: string[];
  try {
    for (let u = 0; u < NORMAL_USERS; u++) {
      const user = await t.user(`bench-normal-${u}@example.com`, `Bench Normal ${u}`);
      const cookie = await user.client.jar.getCookieString(`${t.baseUrl}/api/image`);
      const input = await put(`bench-normal-input-${u}.jpg`, fixtures.normalInputs[u], 'image/jpeg');
      const body = new TextEncoder().encode(JSON.stringify({ images: [input], prompt: 'grayscale' }));
      requests.push({ method: 'POST', path: '/api/image', headers: { cookie, 'content-type': 'application/json' }, body });
    }
    fileUrl = await put('bench-public-photo.jpg', fixtures.publicFile, 'image/jpeg');
    abusiveUrls = await Promise.all(fixtures.abusive.map((png, i) => put(`bench-abusive-${i}.png`, png, 'image/png')));
  } finally {
    await store.close();
  }
  const abuserHeaders: Record<string, string>[] = [];
  for (const email of ['bench-abuser@example.com', 'bench-abuser-2@example.com', 'bench-abuser-3@example.com']) {
    const abuser = await t.user(email, 'Bench Abuser');
    abuserHeaders.push({ cookie: await abuser.client.jar.getCookieString(`${t.baseUrl}/api/image`), 'content-type': 'application/json' });
  }
  // Slot w of the generation loop sends for users w, w + C, …: each normal user has at most one generation in flight.
  const generationSlots = Array.from({ length: GENERATIONS.concurrency }, (_, w) => requests.filter((_, u) => u % GENERATIONS.concurrency === w));
  const fileRead: HttpRequest = { path: new URL(fileUrl).pathname };
  return {
    generationSlots,
    fileRead,
    fileBytes: fixtures.publicFile.length,
    abuse: {
      url: `${t.baseUrl}/api/image`,
      headers: abuserHeaders,
      body: JSON.stringify({ images: abusiveUrls, prompt: ABUSIVE_PROMPT }),
    },
  };
}

/** The stream: the generation loop and the file-read loop at the same time (two jobs of the load client). */
async function stream(load: LoadClient, t: TestApp, s: Setup): Promise<[PromiseSettledResult<LoadResult>, PromiseSettledResult<LoadResult>]> {
  const shape = { warmup: 0, capMs: STREAM_CAP_MS, lenient: true };
  return Promise.allSettled([
    load.http(t.baseUrl, { name: 'normal generations', ...GENERATIONS, ...shape }, s.generationSlots, [200]),
    load.http(t.baseUrl, { name: 'file reads', ...FILE_READS, ...shape }, [[s.fileRead]], [200]),
  ]);
}

/**
 * One row: the abusive loops (if any) start, the stream runs after ABUSE_LEAD_MS, the loops stop (their last requests
 * awaited), then the wait for quiet. Memory is sampled throughout. Nothing outlives the row, also on failure.
 */
async function measureRow(load: LoadClient, t: TestApp, s: Setup, abusers: number, accounts: number) {
  const memory = sampleMemory(load.pid);
  const abuse = abusers > 0 ? startAbuse(abusers, s.abuse.url, s.abuse.headers.slice(0, accounts), s.abuse.body) : undefined;
  let stopped = false;
  const stop = async () => {
    stopped = true;
    const abused = await abuse?.stop();
    const quietMs = await waitForQuiet(load.pid);
    return { abused, quietMs, mem: memory.stop() };
  };
  try {
    if (abuse) await sleep(ABUSE_LEAD_MS);
    const started = performance.now();
    const [generations, files] = await stream(load, t, s);
    const streamMs = performance.now() - started;
    return { generations, files, streamMs, ...(await stop()) };
  } finally {
    if (!stopped) await stop();
  }
}

const mb = (bytes: number) => `${Math.round(bytes / MB)} MB`;

/** The rows: abusive requests kept in flight, by how many accounts (one each when several). */
const ABUSE_ROWS = [
  { abusers: 0, accounts: 1 },
  { abusers: 1, accounts: 1 },
  { abusers: 2, accounts: 1 },
  { abusers: 3, accounts: 3 },
];

export const starvationSection: Section<ApiContext> = async ({ load, notes }, rows) => {
  const part = process.env.BENCH_STARVATION;
  if (part !== undefined && part !== 'engine' && part !== 'accounts') throw new Error('BENCH_STARVATION: engine or accounts');
  if (part !== 'accounts') await engineRows({ load, notes }, rows);
  if (part !== 'engine') await accountsRows({ load, notes }, rows);
};

async function engineRows({ load, notes }: Pick<ApiContext, 'load' | 'notes'>, rows: Row[]): Promise<void> {
  const fixtures = await makeFixtures();
  notes.push(
    `Starvation: the stream is ${GENERATIONS.requests} POST /api/image of ${NORMAL_USERS} other users (${GENERATIONS.concurrency} in flight; one 512×512 JPEG of ~${Math.round(fixtures.normalInputs[0].length / 1024)} KB from the store, prompt "grayscale") ` +
      `and, at the same time, ${FILE_READS.requests} GET /files/<name> of a ${Math.round(fixtures.publicFile.length / 1024)} KB JPEG (${FILE_READS.concurrency} in flight); a loop reaching ${STREAM_CAP_MS / 1000} s ends with what it did (fewer requests); failed requests are counted and timed, and the load client gives up on a request after 30 s (a "Headers Timeout Error" is timed at ~30 s, so such p50/p99 are lower bounds). ` +
      `Abusive request: ${ABUSIVE_IMAGES} × ${ABUSIVE_SIDE}×${ABUSIVE_SIDE} flat PNGs (${Math.round(fixtures.abusive[0].length / 1024)} KB each, ${((ABUSIVE_IMAGES * ABUSIVE_SIDE ** 2) / 1e6).toFixed(0)} MP together), prompt "blur 100" × 30, one user, sent ${ABUSE_LEAD_MS / 1000} s before the stream and re-sent as soon as answered; those in flight when the stream ends are awaited up to ${ABUSE_DRAIN_MS / 1000} s, then aborted. ` +
      `Offline engine (IMAGE_MODEL=local), generation rate limits off, IMAGE_MODEL_TIMEOUT_MS=${MODEL_TIMEOUT_MS} on both instances (the default 120 s would keep each abusive request running for minutes past its row); after each row the section waits for the process to go quiet (< 10 % of a core).`,
  );
  notes.push(
    'Starvation RSS: the service runs in the bench process (so do the abusive requests\' fetch calls), so "service RSS" is process.memoryUsage().rss of this process (PostgreSQL and the load client are other processes and not counted); ' +
      '"child processes" sums the RSS of this process\'s other descendants (image workers, once image work moves there), sampled from /proc every 100 ms.',
  );
  // A build without these settings (before the fixes) would run the second instance exactly like the first.
  const defaults = loadConfig({}).config;
  const knowsLimits = 'generationPixels' in defaults.limits && 'inFlightPerUser' in defaults.model;
  if (!knowsLimits) notes.push('Starvation: this build has no GENERATION_MAX_PIXELS / GENERATIONS_IN_FLIGHT_PER_USER, so only the first instance runs (the second would be the same).');
  for (const instance of knowsLimits ? INSTANCES : INSTANCES.slice(0, 1)) {
    const t = await startTestApp({ ...BASE_ENV, ...instance.env }, 'embedded');
    try {
      const s = await setUp(t, fixtures);
      const label = `starvation ${instance.label}`;
      // Warm the path (JIT, connections, sessions) once, not measured.
      await load.http(t.baseUrl, { name: 'warm-up generations', requests: 20, warmup: 0, concurrency: GENERATIONS.concurrency }, s.generationSlots, [200]);
      await load.http(t.baseUrl, { name: 'warm-up file reads', requests: 100, warmup: 0, concurrency: FILE_READS.concurrency }, [[s.fileRead]], [200]);
      if ((await waitForQuiet(load.pid)) === undefined) notes.push(`starvation ${instance.label}: NOT quiet within ${QUIET_CAP_MS / 1000} s before the stream alone (leftover image work of an earlier row still ran).`);
      const envText = Object.entries(instance.env).map(([k, v]) => `${k}=${v}`).join(', ') || 'default limits';
      let baseline: { generation?: Row; files?: Row } = {};
      const p99Ratios: string[] = [];
      for (const { abusers, accounts } of ABUSE_ROWS) {
        const { generations, files, streamMs, abused, quietMs, mem } = await measureRow(load, t, s, abusers, accounts);

        const what = abusers === 0 ? 'alone' : accounts > 1 ? `+${abusers} abusive of ${accounts} accounts` : `+${abusers} abusive`;
        const rowOf = (r: PromiseSettledResult<LoadResult>, name: string, base: Row | undefined): Row | undefined => {
          if (r.status === 'rejected') {
            notes.push(`${label}, ${what}, ${name}: FAILED: ${(r.reason as Error).message}`);
            return undefined;
          }
          const row = toRow(`${label}, ${what}: ${name}`, r.value, base);
          rows.push(row);
          if (r.value.errors) notes.push(`${label}, ${what}, ${name}: ${r.value.errors} of ${r.value.requests} failed (timed with the rest); first: ${r.value.errorSamples?.[0]?.slice(0, 200)}`);
          if (base) p99Ratios.push(`${name} ${what.slice(1)} ${(row.p99Ms / base.p99Ms).toFixed(1)}× (p50 ${(row.p50Ms / base.p50Ms).toFixed(1)}×)`);
          return row;
        };
        const generationRow = rowOf(generations, 'POST /api/image', baseline.generation);
        const filesRow = rowOf(files, 'GET /files/<name>', baseline.files);
        if (abusers === 0) baseline = { generation: generationRow, files: filesRow };

        const shortfall = [generations, files].some((r) => r.status === 'fulfilled' && r.value.requests < (r === generations ? GENERATIONS : FILE_READS).requests);
        notes.push(
          `${label}, ${what} (${envText}): stream ${(streamMs / 1000).toFixed(1)} s${shortfall ? ` (cap of ${STREAM_CAP_MS / 1000} s reached: fewer requests than asked)` : ''}` +
            (abused ? `; abusive requests ${describeAnswers(abused.answers)}; the last ${abusers === 1 ? 'one' : 'ones'} awaited ${(abused.waitedMs / 1000).toFixed(1)} s after the stream` : '') +
            `; quiet ${quietMs === undefined ? `NOT within ${QUIET_CAP_MS / 1000} s` : `after ${(quietMs / 1000).toFixed(1)} s more`}` +
            `; peak service RSS ${mb(mem.servicePeak)} (${mb(mem.start)} at the row's start), child processes ${mem.childNames.length ? `${mb(mem.childrenPeak)} (${mem.childNames.join(', ')})` : 'none'}.`,
        );
      }
      if (p99Ratios.length) notes.push(`${label}: p99 of each row ÷ p99 of the stream alone: ${p99Ratios.join('; ')}.`);
    } finally {
      await t.close();
    }
  }
}
