// The deploy kit as shipped (issue 33): two production-mode instances on one PostgreSQL, an S3 store (s3rver) and
// Redis, behind Debian's nginx running deploy/nginx.conf with only its deployment-specific values changed (the
// instances' addresses and the listen port: test/helpers/nginx.ts). Everything below goes through nginx: sign-in by
// the OAuth code flow (an identity provider of the test's own: production never runs the bundled one), one project's
// live sockets all on one instance (hashed by project), a live edit reaching an editor on the other instance, job
// events over SSE while the stream is open, an upload and its image, readiness, and a team of 50 tabs from one
// address getting no 429, and last (it leaves one instance dead) a `kill -9` of the instance holding a project: its
// editors move to the other instance through nginx and nothing acknowledged is lost. One start of the topology for
// all of it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import * as Y from 'yjs';
import { addToCanvas, canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import { freePort } from '../../src/net-utils.js';
import { openEventStream, type OpenStream } from '../helpers/event-stream.js';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { startIdentityProvider, type IdentityProvider } from '../helpers/identity-provider.js';
import { connectLive, docWhere, SESSION_COOKIE, upgradeStatus, type LiveClient } from '../helpers/live-client.js';
import { describeWithNginx, startNginx, type NginxHandle } from '../helpers/nginx.js';
import { describeWithRedis, startRedis, type RedisHandle } from '../helpers/redis.js';
import { startS3Server, type S3ServerHandle } from '../helpers/s3-server.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { createTestDatabase } from '../helpers/test-app.js';

const METRICS_TOKEN = 'deploy-kit-metrics-token';
let redis: RedisHandle | undefined;
let s3: S3ServerHandle | undefined;
let database: { url: string; drop(): Promise<void> } | undefined;
let idp: IdentityProvider | undefined;
let nginx: NginxHandle | undefined;
const dirs: string[] = [];
const instances: Array<{ proc: ServiceProcess; url: string }> = [];
const live: LiveClient[] = [];
const streams: OpenStream[] = [];

const png = (r: number) => sharp({ create: { width: 40, height: 30, channels: 3, background: { r, g: 100, b: 50 } } }).png().toBuffer();
const node = (id: string) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } });
const dataOf = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown> | undefined)?.get('data') as Y.Map<unknown> | undefined;

/** Live connections open on each instance now (its own metrics, read directly: nginx never serves them). */
async function liveConnections(): Promise<number[]> {
  return Promise.all(instances.map(({ url }) => connectionsOn(url)));
}

async function connectionsOn(url: string): Promise<number> {
  const text = await (await fetch(`${url}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(/^image_canvas_live_connections (\d+)/m.exec(text)?.[1]);
}

const nodeIds = (nodes: unknown[]) => nodes.map((n) => (n as { id: string }).id).sort();

describeWithNginx('the deploy kit as shipped', () => {
  describeWithRedis('two production instances behind deploy/nginx.conf', () => {
    beforeAll(async () => {
      [redis, s3, database] = await Promise.all([startRedis(), startS3Server(), createTestDatabase()]);
      const port = await freePort();
      const publicUrl = `http://127.0.0.1:${port}`; // nginx: the only address people use (AUTH_URL)
      idp = await startIdentityProvider(publicUrl);
      for (let i = 0; i < 2; i++) {
        const own = await freePort();
        const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-kit-'));
        dirs.push(dataDir);
        const proc = startService({
          NODE_ENV: 'production',
          HOST: '127.0.0.1',
          PORT: String(own),
          AUTH_URL: publicUrl,
          AUTH_SECRET: 'deploy-kit-test-secret-0123456789abcdef',
          ...idp.env,
          DATA_DIR: dataDir,
          DATABASE_CONNECTION_STRING: database.url,
          OBJECT_STORAGE_CONNECTION_STRING: s3.connectionString,
          OBJECT_STORAGE_PUBLIC_URL: s3.publicUrl,
          IMAGE_MODEL: 'local',
          COLLAB_REDIS_URL: redis.url,
          RATE_LIMIT_STORE: 'postgres',
          METRICS_TOKEN,
        });
        instances.push({ proc, url: `http://127.0.0.1:${own}` });
      }
      await Promise.all(instances.map((i) => i.proc.waitFor('Image Canvas is serving')));
      nginx = await startNginx(
        instances.map((i) => new URL(i.url).host),
        { port },
      );
    });

    afterAll(async () => {
      for (const s of streams) s.close();
      for (const c of live) c.close();
      await nginx?.stop();
      for (const i of instances) i.proc.kill();
      await Promise.all(instances.map((i) => i.proc.exited));
      await idp?.stop();
      await redis?.stop();
      await s3?.stop();
      await database?.drop();
      await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
    });

    it('signs in, relays live edits between instances, streams job events, uploads and serves images, is ready', async () => {
      const base = nginx!.url;
      expect((await fetch(`${base}/api/ready`)).status).toBe(200);
      // The metrics stay off the public entry point.
      expect((await fetch(`${base}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(404);

      // Sign-in: /login, the provider's form, the code flow's callback on nginx's address, the session after it.
      const ada = new HttpClient(base);
      const landed = await signIn(ada, 'ada@example.com', 'Ada');
      expect(landed.url).toBe(`${base}/projects`);
      const me = await ada.get('/api/user');
      expect(me.status).toBe(200);
      expect(me.json.email).toBe('ada@example.com');

      // An upload, and its image served by the store.
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await png(200))], { type: 'image/png' }), 'x.png');
      const uploaded = await ada.request('/api/upload', { method: 'POST', body: form });
      expect(uploaded.status).toBe(200);
      const image = await fetch(uploaded.json.url);
      expect(image.status).toBe(200);
      expect((await sharp(Buffer.from(await image.arrayBuffer())).metadata()).width).toBe(40);

      const project = (await ada.post('/api/user/project', { userId: me.json.id, name: 'Kit' })).json.id as string;
      expect((await ada.post('/api/user/project/canvas', { projectId: project, nodes: [node('a')], edges: [], version: 0 })).status).toBe(200);
      // The upgrade itself (the kit before this test answered 404: nginx dropped the Upgrade header).
      expect(await upgradeStatus(base, { origin: base, cookie: `${SESSION_COOKIE}=${await ada.cookie(SESSION_COOKIE)}` })).toBe(101);
      // Live, routed by project: every editor of the project (/api/collab/<projectId>) lands on one instance, as nginx
      // hashes on the id (the instances' own connection counts say where each landed).
      const routedBefore = await liveConnections();
      for (let k = 0; k < 3; k++) {
        const editor = await connectLive({ baseUrl: base, as: ada, projectId: project });
        live.push(editor);
        expect(await editor.event('authenticated')).toBe('authenticated:read-write');
        await editor.saved();
      }
      const routedAfter = await liveConnections();
      expect(routedAfter.map((n, i) => n - routedBefore[i]).sort((x, y) => x - y)).toEqual([0, 3]);
      // Older clients (/api/collab, no id: round robin over the instances): sockets are opened until one editor is on
      // each instance, and edits cross between them through Redis.
      const on: Array<LiveClient | undefined> = [undefined, undefined];
      let before = routedAfter;
      while (!on[0] || !on[1]) {
        expect(live.length).toBeLessThan(11);
        const editor = await connectLive({ baseUrl: base, as: ada, projectId: project, url: 'shared' });
        live.push(editor);
        expect(await editor.event('authenticated')).toBe('authenticated:read-write');
        await editor.saved();
        const after = await liveConnections();
        const landedOn = after.findIndex((n, i) => n > before[i]);
        expect(landedOn).toBeGreaterThanOrEqual(0);
        on[landedOn] ??= editor;
        before = after;
      }
      const [one, two] = on as [LiveClient, LiveClient];
      one.doc.transact(() => dataOf(one.doc, 'a')!.set('prompt', 'from one'));
      await one.saved();
      await docWhere(two.doc, (d) => dataOf(d, 'a')?.get('prompt') === 'from one');
      two.doc.transact(() => dataOf(two.doc, 'a')!.set('prompt', 'from two'));
      await two.saved();
      await docWhere(one.doc, (d) => dataOf(d, 'a')?.get('prompt') === 'from two');
      expect(renderCanvas(one.doc)).toEqual(renderCanvas(two.doc));

      // A generation job's body over nginx's default 1 MB (images inline) reaches the service, which judges it
      // itself (here: no prompt), not nginx's 413.
      const big = await ada.post('/api/generations', { images: [`data:image/png;base64,${'A'.repeat(2_000_000)}`] });
      expect(big.status).toBe(400);
      expect(big.json.error).toEqual(expect.any(String));

      // Job events: each arrives while the stream stays open (nginx passes them on unbuffered).
      const stream = await openEventStream(base, { client: ada });
      streams.push(stream);
      expect(stream.status).toBe(200);
      const job = await ada.post('/api/generations', { images: [uploaded.json.url], prompt: 'grayscale' });
      expect(job.status).toBe(202);
      await expect
        .poll(() => stream.events.filter((e) => e.event === 'job').map((e) => (JSON.parse(e.data) as { id: string; status: string })).filter((j) => j.id === job.json.id).map((j) => j.status), { timeout: 60_000 })
        .toContain('succeeded');
      expect(stream.done()).toBe(false);
    });

    it('lets a team of 50 tabs (10 people, 5 tabs each) from one address use the service without a 429', async () => {
      const base = nginx!.url;
      const people = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const client = new HttpClient(base);
          await signIn(client, `member${i}@example.com`, `Member ${i}`);
          const id = (await client.get('/api/user')).json.id as string;
          const project = (await client.post('/api/user/project', { userId: id, name: `Team ${i}` })).json.id as string;
          const saved = await client.post('/api/user/project/canvas', { projectId: project, nodes: [node('a')], edges: [], version: 0 });
          expect(saved.status).toBe(200);
          return { client, id, project };
        }),
      );
      const statuses: number[] = [];
      const get = async (client: HttpClient, url: string) => {
        const res = await client.get(url);
        statuses.push(res.status);
        return res;
      };
      // Each tab: the project list and its thumbnails, the templates row, the canvas and its live socket, then
      // polling the jobs. All 50 at once, the sockets left open (as tabs keep them).
      await Promise.all(
        people.flatMap(({ client, id, project }) =>
          Array.from({ length: 5 }, async () => {
            await get(client, '/api/user');
            await get(client, `/api/user/project?userId=${id}`);
            await Promise.all([get(client, `/api/user/project/${project}/thumbnail`), get(client, '/api/templates')]);
            await get(client, `/api/user/project/canvas?projectId=${project}`);
            // One attempt: a refused upgrade is a close here, not a reconnection loop.
            const editor = await connectLive({ baseUrl: base, as: client, projectId: project, maxAttempts: 1 });
            live.push(editor);
            const outcome = await Promise.race([editor.event('authenticated'), editor.event('close')]);
            statuses.push(outcome === 'authenticated:read-write' ? 101 : 0);
            for (let poll = 0; poll < 3; poll++) await get(client, '/api/generations');
          }),
        ),
      );
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      expect(statuses.filter((s) => s >= 400 || s === 0)).toEqual([]);
      expect(statuses.length).toBe(50 * 9);
    });
    // Last: it leaves one instance dead (afterAll's kill() passes over a process already gone).
    it('loses nothing acknowledged when the instance holding a project is killed (kill -9): nginx moves its editors to the other', async () => {
      const base = nginx!.url;
      const grace = new HttpClient(base);
      await signIn(grace, 'grace@example.com', 'Grace');
      const id = (await grace.get('/api/user')).json.id as string;
      const project = (await grace.post('/api/user/project', { userId: id, name: 'Failover' })).json.id as string;
      expect((await grace.post('/api/user/project/canvas', { projectId: project, nodes: [node('a')], edges: [], version: 0 })).status).toBe(200);

      // An editor, and the instance it landed on (the one holding the project: nginx hashes on its id).
      const before = await liveConnections();
      const editor = await connectLive({ baseUrl: base, as: grace, projectId: project });
      live.push(editor);
      expect(await editor.event('authenticated')).toBe('authenticated:read-write');
      await editor.saved();
      const after = await liveConnections();
      expect(after.map((n, i) => n - before[i]).sort((x, y) => x - y)).toEqual([0, 1]);
      const holder = after.findIndex((n, i) => n > before[i]);
      const [dead, survivor] = [instances[holder], instances[1 - holder]];

      // Several edits, each acknowledged (the server's SyncStatus, sent once the change is in PostgreSQL).
      const edits = ['e1', 'e2', 'e3', 'e4', 'e5'];
      for (const e of edits) {
        addToCanvas(editor.doc, { nodes: [node(e)] });
        await editor.saved();
      }

      // kill -9 of that instance. The editor goes with it (closed in the same tick, before its provider could
      // reconnect: it would reconnect by itself, and send back from its own memory what the server should have kept),
      // so what the editors below read is what the server stored.
      dead.proc.child.kill('SIGKILL');
      editor.close();
      live.splice(live.indexOf(editor), 1);
      expect(await dead.proc.exited).toEqual({ code: null, signal: 'SIGKILL' });

      // A fresh editor (an empty document) through nginx, with one attempt: the project's hash names the dead instance,
      // whose refused connection nginx passes on to the survivor (proxy_next_upstream), so the first upgrade succeeds.
      const fresh = await connectLive({ baseUrl: base, as: grace, projectId: project, maxAttempts: 1 });
      live.push(fresh);
      expect(await Promise.race([fresh.event('authenticated'), fresh.event('close')])).toBe('authenticated:read-write');
      await fresh.saved();
      expect(nodeIds(renderCanvas(fresh.doc).nodes)).toEqual(['a', ...edits]);
      // The REST canvas through nginx says the same (read from PostgreSQL, on the survivor).
      const stored = await grace.get(`/api/user/project/canvas?projectId=${project}`);
      expect(stored.status).toBe(200);
      expect(nodeIds(stored.json.nodes as unknown[])).toEqual(['a', ...edits]);

      // After the failover: a second editor, an edit acknowledged on the survivor, seen by the second editor live.
      const second = await connectLive({ baseUrl: base, as: grace, projectId: project, maxAttempts: 1 });
      live.push(second);
      expect(await Promise.race([second.event('authenticated'), second.event('close')])).toBe('authenticated:read-write');
      await second.saved();
      addToCanvas(fresh.doc, { nodes: [node('after')] });
      await fresh.saved();
      await docWhere(second.doc, (d) => canvasMaps(d).nodes.has('after'));
      expect(renderCanvas(second.doc)).toEqual(renderCanvas(fresh.doc));
      // Both on the survivor, the one instance left (its own metrics answer; the dead one's port refuses).
      expect(await connectionsOn(survivor.url)).toBeGreaterThanOrEqual(2);
      await expect(fetch(`${dead.url}/api/ready`)).rejects.toThrow();
      expect(nodeIds((await grace.get(`/api/user/project/canvas?projectId=${project}`)).json.nodes as unknown[])).toEqual(['a', ...edits, 'after'].sort());
    }, 120_000);
  });
});
