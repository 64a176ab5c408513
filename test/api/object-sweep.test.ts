// The deletion sweep (issue 33 point 6; src/services/object-sweep.ts): deleting a project deletes, after the grace
// period, the objects only it referenced — never one another project's canvas or a template still holds — on each
// of the three stores. A pass is run directly (app.objectSweep.pass()), never waited for.
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { uploadFile, type HttpClient } from '../helpers/http-client.js';
import { startStore, type StoreDriver } from '../helpers/stores.js';
import { openObjectStore, startTestApp, type TestApp } from '../helpers/test-app.js';

const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

let colour = 0;
async function upload(client: HttpClient, filename: string): Promise<string> {
  colour += 40;
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: colour % 256, g: 10, b: 200 } } }).png().toBuffer();
  const res = await uploadFile(client, png, { filename });
  expect(res.status, res.text).toBe(200);
  return res.json.url as string;
}

const imageNode = (id: string, image: string, x = 0) => ({ id, type: 'upload', position: { x, y: 0 }, data: { type: 'upload', image } });

async function project(client: HttpClient, userId: string, name: string, images: string[]): Promise<string> {
  const id = (await client.post('/api/user/project', { userId, name })).json.id as string;
  const nodes = images.map((url, i) => imageNode(`n${i}`, url, i * 300));
  const saved = await client.post('/api/user/project/canvas', { projectId: id, nodes, edges: [], version: 0 });
  expect(saved.status, saved.text).toBe(200);
  return id;
}

async function startOn(driver: StoreDriver, env: Record<string, string>): Promise<TestApp> {
  const store = await startStore(driver);
  stops.push(() => store.stop());
  return startTestApp({ OBJECT_SWEEP_INTERVAL_MINUTES: '0', ...env, ...store.env, ...(driver === 'local' && { LOG_LEVEL: 'error' }) });
}

describe.each(['local', 'azure', 's3'] as const)('the deletion sweep on the %s store', (kind) => {
  it('deletes a deleted project\'s own objects and keeps those another project, a template or a history still holds', async () => {
    const t = await startOn(kind, { OBJECT_DELETE_GRACE_HOURS: '0' });
    stops.push(() => t.close());
    const store = await openObjectStore(t);
    stops.push(() => store.close());
    const ada = await t.user('ada@example.com');
    const bob = await t.user('bob@example.com');

    const own = await upload(ada.client, 'own.png');
    const inHistory = await upload(ada.client, 'history.png');
    const sharedWithBob = await upload(ada.client, 'shared.png');
    const inTemplate = await upload(ada.client, 'template.png');
    const inOtherVersion = await upload(ada.client, 'other-version.png');
    const names = Object.fromEntries(Object.entries({ own, inHistory, sharedWithBob, inTemplate, inOtherVersion }).map(([k, url]) => [k, store.nameFromUrl(url)!]));

    // Ada's project holds all of them; `inHistory` only in a named version (taken away from the canvas after).
    const doomed = await project(ada.client, ada.id, 'Doomed', [own, inHistory, sharedWithBob, inTemplate, inOtherVersion]);
    expect((await ada.client.post(`/api/user/project/${doomed}/versions`, { name: "with history" })).status).toBe(201);
    const now = await ada.client.get(`/api/user/project/canvas?projectId=${doomed}`);
    const kept = await ada.client.post('/api/user/project/canvas', { projectId: doomed, nodes: [imageNode('n0', own), imageNode('n2', sharedWithBob, 600), imageNode('n3', inTemplate, 900), imageNode('n4', inOtherVersion, 1200)], edges: [], version: now.json.version });
    expect(kept.status, kept.text).toBe(200);
    // Bob's canvas has a copy of one URL; a template has another; Ada's other project has the last only in its history.
    await project(bob.client, bob.id, 'Copy', [sharedWithBob]);
    const published = await ada.client.post('/api/upload/templates', { templateName: 'T', canvas: { nodes: [imageNode('t', inTemplate)], edges: [], viewport: { x: 0, y: 0, zoom: 1 } } });
    expect(published.status, published.text).toBe(200);
    const other = await project(ada.client, ada.id, 'Other', [inOtherVersion]);
    expect((await ada.client.post(`/api/user/project/${other}/versions`, { name: "v" })).status).toBe(201);
    const cleared = await ada.client.get(`/api/user/project/canvas?projectId=${other}`);
    expect((await ada.client.post('/api/user/project/canvas', { projectId: other, nodes: [], edges: [], version: cleared.json.version })).status).toBe(200);

    const removed = await ada.client.request(`/api/user/project/${doomed}`, { method: "DELETE" });
    expect(removed.status, removed.text).toBe(204);
    const pass = await t.app.objectSweep.pass();

    expect(pass.ran).toBe(true);
    expect(pass.deleted.sort()).toEqual([names.own, names.inHistory].sort());
    expect(await store.head(names.own)).toBeNull();
    expect(await store.head(names.inHistory)).toBeNull();
    for (const name of [names.sharedWithBob, names.inTemplate, names.inOtherVersion]) expect(await store.head(name), name).not.toBeNull();
    // Looked at once: a second pass finds nothing due.
    expect(await t.app.objectSweep.pass()).toEqual({ ran: true, deleted: [], kept: [] });
  });
});

describe('the grace period', () => {
  it('deletes nothing before it has passed', async () => {
    const t = await startOn('local', { OBJECT_DELETE_GRACE_HOURS: '1' });
    stops.push(() => t.close());
    const store = await openObjectStore(t);
    stops.push(() => store.close());
    const ada = await t.user('ada@example.com');
    const own = await upload(ada.client, 'own.png');
    const doomed = await project(ada.client, ada.id, 'Doomed', [own]);
    const removed = await ada.client.request(`/api/user/project/${doomed}`, { method: "DELETE" });
    expect(removed.status, removed.text).toBe(204);

    expect(await t.app.objectSweep.pass()).toEqual({ ran: true, deleted: [], kept: [] });
    expect(await store.head(store.nameFromUrl(own)!)).not.toBeNull();
    const queued = await t.pool.query('SELECT name FROM object_deletions');
    expect(queued.rows).toEqual([{ name: store.nameFromUrl(own) }]);
  });
});
