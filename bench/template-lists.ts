// The public template list under the hardening round's attack (issue 31): one account publishes 12 templates
// near the canvas limit, then 4 anonymous clients ask for GET /api/upload/templates at once, a few rounds. Prints
// the service's RSS (the service runs as its own process, as `npm start` runs it, on an embedded database in a
// temporary folder) before and at its peak, what each list answered, and what a revalidation (304) takes.
//   npx tsx bench/template-lists.ts            (TEMPLATES=12 MB_EACH=15 CLIENTS=4 ROUNDS=3 to change the load)
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HttpClient, signIn } from '../test/helpers/http-client.js';
import { startService } from '../test/helpers/service-process.js';

const TEMPLATES = Number(process.env.TEMPLATES ?? 12);
const MB_EACH = Number(process.env.MB_EACH ?? 15);
const CLIENTS = Number(process.env.CLIENTS ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const MB = 1024 * 1024;

async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function rss(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** A canvas of about `bytes` bytes: generation nodes with 9,000-character prompts. */
function canvasOf(bytes: number, seed: number) {
  const count = Math.floor(bytes / 9_150);
  const nodes = Array.from({ length: count }, (_, i) => ({
    id: `g${i}`,
    type: 'generation',
    position: { x: i, y: seed },
    data: { type: 'generation', prompt: String.fromCharCode(97 + ((i + seed) % 26)).repeat(9_000) },
  }));
  return { nodes, edges: [], viewport: { x: 0, y: 0, zoom: 1 } };
}

const mb = (n: number) => `${(n / MB).toFixed(0)} MB`;

async function main() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-bench-templates-'));
  await fs.chmod(dir, 0o755); // the embedded server runs as the `postgres` user when we are root
  const port = await freePort();
  const service = startService({ PORT: String(port), DATA_DIR: dir, RATE_LIMIT_TEMPLATE_PUBLISHES_PER_MINUTE: '0', RATE_LIMIT_TEMPLATES_PER_MINUTE: '0' });
  try {
    await service.waitFor('Image Canvas is serving');
    const pid = service.child.pid!;
    const base = `http://localhost:${port}`; // AUTH_URL's default host: the session cookie is set for it
    const author = new HttpClient(base);
    await signIn(author, 'bench-templates@example.com', 'Bench');
    for (let i = 0; i < TEMPLATES; i++) {
      const res = await author.post('/api/upload/templates', { templateName: `big ${i}`, canvas: canvasOf(MB_EACH * MB, i) });
      if (res.status !== 200) throw new Error(`publish ${i}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    // Settle: one list renders (the work every later request shares), then the baseline.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = await rss(pid);
    let peak = before;
    const sampler = setInterval(() => void rss(pid).then((r) => (peak = Math.max(peak, r)), () => undefined), 10);
    const answers: Array<{ status: number; bytes: number }> = [];
    const started = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          const res = await fetch(`${base}/api/upload/templates`);
          const body = Buffer.from(await res.arrayBuffer());
          answers.push({ status: res.status, bytes: body.length });
        }),
      );
    }
    const took = Date.now() - started;
    clearInterval(sampler);
    peak = Math.max(peak, await rss(pid));
    const sizes = [...new Set(answers.map((a) => `${a.status} ${(a.bytes / 1024).toFixed(0)} kB`))].join(', ');
    console.log(`${TEMPLATES} templates × ${MB_EACH} MB published; ${ROUNDS} rounds of ${CLIENTS} concurrent anonymous lists (${took} ms): each answered ${sizes}`);
    console.log(`service RSS before ${mb(before)}, peak ${mb(peak)} (+${mb(peak - before)})`);
    // What every request costs once the list is rendered: the fingerprint query (a revalidation answers 304).
    const etag = (await fetch(`${base}/api/upload/templates`, { method: 'HEAD' })).headers.get('etag')!;
    const revalidations = 500;
    const t0 = performance.now();
    for (let i = 0; i < revalidations; i++) {
      const res = await fetch(`${base}/api/upload/templates`, { headers: { 'if-none-match': etag } });
      if (res.status !== 304) throw new Error(`revalidation answered ${res.status}`);
      await res.arrayBuffer();
    }
    const each = (performance.now() - t0) / revalidations;
    const t1 = performance.now();
    for (let i = 0; i < revalidations; i++) await (await fetch(`${base}/api/health`)).arrayBuffer();
    const health = (performance.now() - t1) / revalidations;
    console.log(`${revalidations} sequential revalidations (304): ${each.toFixed(2)} ms each; GET /api/health for comparison ${health.toFixed(2)} ms`);
  } finally {
    service.child.kill('SIGTERM');
    await service.exited;
    await fs.rm(dir, { recursive: true, force: true });
  }
}

await main();
