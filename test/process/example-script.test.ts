// The example script docs/examples/generate.ts (docs/api.md "Scripts and the typed client") as a user runs it: a
// child process, `npx tsx docs/examples/generate.ts <file> "<prompt>"`, against the real app on loopback (the
// offline engine), with a personal token made over the API. It uploads the file, starts a job, follows the job's
// events (GET /api/generations/events) until it ends, and saves the PNG named after the prompt. The offline engine
// is given to the app behind a gate the test opens only once the script shows the job running: from then on only
// an event can tell the script that the job ended, so a script that did not follow the events would never finish.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalImageModel } from '../../src/models/local-image-model.js';
import type { GenerateRequest, ImageModel } from '../../src/models/index.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PNG_MAGIC = Buffer.from('89504e470d0a1a0a', 'hex');

let t: TestApp;
let ada: { client: HttpClient; id: string };
let token: string;
let work: string;

/** The offline engine, whose calls wait at a gate until the test opens it; `reached` resolves at the first call. */
function gatedOfflineEngine() {
  const engine = new LocalImageModel();
  let open = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  let called = () => {};
  const reached = new Promise<void>((resolve) => (called = resolve));
  const model: ImageModel = {
    id: engine.id,
    async generate(req: GenerateRequest) {
      called();
      await gate;
      return engine.generate(req);
    },
  };
  return { model, reached, open };
}
const gated = gatedOfflineEngine();

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000' }, undefined, { imageModel: gated.model });
  ada = await t.user('ada@example.com', 'Ada');
  const made = await ada.client.post('/api/user/tokens', { name: 'example script', scopes: ['read', 'write', 'generate'] });
  expect(made.status, made.text).toBe(201);
  token = made.json.token;
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-example-'));
});
const scripts = new Set<ChildProcess>();
afterAll(async () => {
  // A script a failed test left following a job, with its process group (npx → tsx → node).
  for (const child of scripts) process.kill(-child.pid!, 'SIGKILL');
  gated.open();
  await t?.close();
  if (work) await fs.rm(work, { recursive: true, force: true });
});

/** Starts the script; none of the runner's IMAGE_CANVAS_* settings leak in. */
function startScript(args: string[], env: Record<string, string>) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('IMAGE_CANVAS_')));
  const child = spawn('npx', ['tsx', 'docs/examples/generate.ts', ...args], { cwd: ROOT, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  scripts.add(child);
  child.once('exit', () => scripts.delete(child));
  let stdout = '';
  let stderr = '';
  const waiting: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.on('data', (c) => {
    stdout += c;
    for (const w of waiting.filter((x) => x.pattern.test(stdout))) w.resolve();
  });
  child.stderr.on('data', (c) => (stderr += c));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
  return {
    done,
    /** Resolves once the script has printed a line matching `pattern`; rejects if it ends first. */
    printed: (pattern: RegExp) =>
      pattern.test(stdout) ? Promise.resolve() : Promise.race([new Promise<void>((resolve) => waiting.push({ pattern, resolve })), done.then((r) => Promise.reject(new Error(`the script ended first:\n${r.stdout}\n${r.stderr}`)))]),
  };
}

const runScript = (args: string[], env: Record<string, string>) => startScript(args, env).done;

const jobCount = async () => (await t.pool.query('SELECT count(*)::int AS n FROM generation_jobs WHERE user_id = $1', [ada.id])).rows[0].n as number;

describe('docs/examples/generate.ts', () => {
  it('uploads a local image, follows its job to the end and saves the PNG named after the prompt', { timeout: 90_000 }, async () => {
    const input = path.join(work, 'orange.png');
    await sharp({ create: { width: 16, height: 12, channels: 3, background: '#c63' } }).png().toFile(input);
    const out = path.join(work, 'out');

    const script = startScript([input, 'Grayscale, please!', '--out', out], { IMAGE_CANVAS_URL: t.baseUrl, IMAGE_CANVAS_TOKEN: token });
    await gated.reached; // the job is running, held at the engine
    await script.printed(/^running$/m); // the script has read the job and follows its events
    gated.open(); // the job ends now, and only its events can tell the script
    const run = await script.done;
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);

    // What it printed: the upload, the job, the states it followed, where it saved.
    const uploaded = /^uploaded .*orange\.png → (\S+)$/m.exec(run.stdout)?.[1];
    const jobId = /^job (job_\S+)$/m.exec(run.stdout)?.[1];
    expect(uploaded, run.stdout).toMatch(new RegExp(`^${t.baseUrl}/files/`));
    expect(jobId, run.stdout).toBeDefined();
    expect(run.stdout).toMatch(/^succeeded$/m);
    const saved = path.join(out, 'grayscale-please.png');
    expect(run.stdout).toContain(`saved ${saved}`);

    // The job, as its user sees it: succeeded from the uploaded image, and the file is its output.
    const job = await ada.client.get(`/api/generations/${jobId}`);
    expect(job.json).toMatchObject({ status: 'succeeded', attempts: 1, output: { imageUrl: expect.any(String) } });
    const bytes = await fs.readFile(saved);
    expect(bytes.subarray(0, 8)).toEqual(PNG_MAGIC);
    const output = Buffer.from(await (await fetch(job.json.output.imageUrl)).arrayBuffer());
    expect(bytes.equals(output)).toBe(true);
    expect(Buffer.from(await (await fetch(uploaded!)).arrayBuffer()).equals(await fs.readFile(input))).toBe(true);
    // The offline engine made it grey: every pixel has equal red, green and blue, from an orange input.
    const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([16, 12, 3]);
    for (let i = 0; i < data.length; i += 3) expect([data[i + 1], data[i + 2]]).toEqual([data[i], data[i]]);
  });

  it('stops before doing anything without a token (2) or with one the service refuses (1)', { timeout: 120_000 }, async () => {
    const input = path.join(work, 'never.png');
    await sharp({ create: { width: 4, height: 4, channels: 3, background: '#36c' } }).png().toFile(input);
    const before = await jobCount();

    const missing = await runScript([input, 'sepia', '--out', work], { IMAGE_CANVAS_URL: t.baseUrl });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('IMAGE_CANVAS_TOKEN is not set');

    const bogus = await runScript([input, 'sepia', '--out', work], { IMAGE_CANVAS_URL: t.baseUrl, IMAGE_CANVAS_TOKEN: `ic_${'x'.repeat(43)}` });
    expect(bogus.code, bogus.stderr).toBe(1);
    expect(bogus.stderr).toContain('error: the token was refused');

    expect(await jobCount()).toBe(before);
    expect((await fs.readdir(work)).filter((f) => f.startsWith('sepia'))).toEqual([]);
  });
});
