// Redis stopped and started again under two instances sharing a live document (src/collab/redis.ts RedisRelay,
// docs/deploy.md "Redis"): the outage is loud (/api/ready degraded with 200, the metric, one JSON log line each way,
// the `relay` message to every editor of each instance, and to one connecting meanwhile) and contained (edits on
// both instances are stored and acknowledged meanwhile), and the documents converge once Redis is back. Nothing is
// printed by the Redis client itself.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import { canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { captureLogs } from '../helpers/log-capture.js';
import { describeWithRedis, startRedis, type RedisHandle } from '../helpers/redis.js';
import { createOwnDatabase, startTestApp, type TestApp } from '../helpers/test-app.js';

const METRICS_TOKEN = 'metrics-token-for-the-redis-outage';
const DOWN = 'stateless:{"type":"relay","ok":false}';
const BACK = 'stateless:{"type":"relay","ok":true}';
let redis: RedisHandle | undefined;
let database: { url: string; drop(): Promise<void> } | undefined;
const apps: TestApp[] = [];
const logs = [captureLogs(), captureLogs()];
const open: LiveClient[] = [];
const node = (id: string, x = 0) => ({ id, type: 'generation', position: { x, y: 0 }, data: { type: 'generation', prompt: 'p' } });
const dataOf = (doc: Y.Doc, id: string) => (canvasMaps(doc).nodes.get(id) as Y.Map<unknown>).get('data') as Y.Map<unknown>;
const printed = vi.spyOn(console, 'error');
const warned = vi.spyOn(console, 'warn');

async function redisMetrics(app: TestApp): Promise<{ up: number; outages: number }> {
  const res = await app.client().get('/api/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
  expect(res.status).toBe(200);
  const value = (name: string) => Number(res.text.split('\n').find((l) => l.startsWith(`${name} `))?.split(' ')[1]);
  return { up: value('image_canvas_live_redis_up'), outages: value('image_canvas_live_redis_outages_total') };
}

describeWithRedis('a Redis outage under two instances', () => {
  beforeAll(async () => {
    [redis, database] = await Promise.all([startRedis(), createOwnDatabase()]);
    const env = { DATABASE_CONNECTION_STRING: database.url, COLLAB_REDIS_URL: redis.url, LOG_LEVEL: 'info', METRICS_TOKEN };
    for (const log of logs) apps.push(await startTestApp(env, 'embedded', { logStream: log.stream }));
    await Promise.all(logs.map((log) => log.line((l) => l.redis === 'up')));
  });
  afterAll(async () => {
    for (const c of open) c.close();
    // Closing while Redis is down does not wait for it (QUIT would).
    await redis?.stop();
    for (const app of apps) await app.close();
    await database?.drop();
  });

  it('is said by readiness, the metric, one log line each way and the editors; edits made meanwhile converge after', async () => {
    const [one, two] = apps;
    const ada: { client: HttpClient; id: string; email: string } = await one.user('ada@example.com');
    const bob = await two.user('bob@example.com');
    const projectId = (await ada.client.post('/api/user/project', { userId: ada.id, name: 'Shared' })).json.id as string;
    expect((await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' })).status).toBeLessThan(300);
    expect((await ada.client.post('/api/user/project/canvas', { projectId, nodes: [node('a'), node('b', 300)], edges: [], version: 0 })).json.version).toBe(1);
    const a = await connectLive({ baseUrl: one.baseUrl, as: ada.client, projectId });
    const b = await connectLive({ baseUrl: two.baseUrl, as: bob.client, projectId });
    open.push(a, b);
    await Promise.all([a.saved(), b.saved()]);
    expect((await one.client().get('/api/ready')).json).toEqual({ status: 'ok', checks: { database: 'ok', storage: 'ok', live: 'ok' } });
    expect(await redisMetrics(one)).toEqual({ up: 1, outages: 0 });

    // Redis goes away.
    const port = redis!.port;
    await redis!.stop();
    await Promise.all([a.event(DOWN), b.event(DOWN)]);
    const ready = await one.client().get('/api/ready');
    expect(ready).toMatchObject({ status: 200, json: { status: 'degraded', checks: { database: 'ok', storage: 'ok', live: 'degraded' } } });
    expect(await redisMetrics(two)).toEqual({ up: 0, outages: 1 });
    const downLine = await logs[0].line((l) => l.redis === 'down');
    expect(downLine).toMatchObject({ level: 40, msg: expect.stringMatching(/link to Redis is down/) as string });
    // An editor connecting meanwhile is told as well.
    const late = await connectLive({ baseUrl: two.baseUrl, as: bob.client, projectId });
    open.push(late);
    await late.event(DOWN);

    // Both instances go on alone: edits are stored and acknowledged on each.
    a.doc.transact(() => dataOf(a.doc, 'a').set('prompt', 'ada-during'));
    b.doc.transact(() => dataOf(b.doc, 'b').set('prompt', 'bob-during'));
    await Promise.all([a.saved(), b.saved()]);
    // Redis comes back where it was.
    await logs[1].line((l) => l.redis === 'down');
    redis = await startRedis({ port });
    await Promise.all([a.event(BACK), b.event(BACK), late.event(BACK)]);
    await docWhere(a.doc, (d) => dataOf(d, 'b').get('prompt') === 'bob-during');
    await docWhere(b.doc, (d) => dataOf(d, 'a').get('prompt') === 'ada-during');
    await docWhere(late.doc, (d) => dataOf(d, 'a').get('prompt') === 'ada-during');
    expect(renderCanvas(a.doc)).toEqual(renderCanvas(b.doc));

    // And relay again as before.
    b.doc.transact(() => dataOf(b.doc, 'b').set('prompt', 'bob-after'));
    await b.saved();
    await docWhere(a.doc, (d) => dataOf(d, 'b').get('prompt') === 'bob-after');
    const viaOne = (await ada.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
    expect({ nodes: viaOne.nodes, edges: viaOne.edges }).toEqual(renderCanvas(a.doc));
    expect(viaOne.nodes.map((n: { data: { prompt: string } }) => n.data.prompt)).toEqual(['ada-during', 'bob-after']);

    expect((await two.client().get('/api/ready')).json).toEqual({ status: 'ok', checks: { database: 'ok', storage: 'ok', live: 'ok' } });
    expect(await redisMetrics(one)).toEqual({ up: 1, outages: 1 });
    for (const log of logs) {
      // One line down, one back, whatever the client's retries in between.
      expect(log.lines.filter((l) => l.redis === 'down')).toHaveLength(1);
      expect(log.lines.filter((l) => l.redis === 'up').map((l) => l.msg)).toEqual(['live: connected to Redis', 'live: the link to Redis is back; open documents catch up']);
    }
    // ioredis prints "[ioredis] Unhandled error event" when nobody listens; the extension prints its own failures.
    const text = [...printed.mock.calls, ...warned.mock.calls].map((c) => c.map(String).join(' ')).join('\n');
    expect(text).not.toMatch(/ioredis|Redis|unexpected error/);
  });
});
