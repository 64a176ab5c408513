// History (docs/api.md "History"): restore points taken while a document changes, named versions, a version's
// read-only preview, and restoring one as a new change that live editors see and REST reads, with the canvas as it
// was kept first; roles as on the other project routes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { addToCanvas, canvasMaps } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, docWhere, type LiveClient } from '../helpers/live-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
let t: TestApp;
let ada: Who;
let bob: Who;
let vic: Who;
let eve: Who;
const open: LiveClient[] = [];

const node = (id: string, prompt = 'p', data: Record<string, unknown> = {}) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt, ...data } });
const project = async (who: Who) => (await who.client.post('/api/user/project', { userId: who.id, name: 'History' })).json.id as string;
const save = (who: Who, projectId: string, nodes: unknown[]) => who.client.post('/api/user/project/canvas', { projectId, nodes, edges: [] });
const canvas = async (who: Who, projectId: string) => (await who.client.get(`/api/user/project/canvas?projectId=${projectId}`)).json;
const versionsOf = (projectId: string) => `/api/user/project/${projectId}/versions`;
const list = (who: Who, projectId: string) => who.client.get(versionsOf(projectId));
const name = (who: Who, projectId: string, value: unknown) => who.client.post(versionsOf(projectId), { name: value });
const preview = (who: Who, projectId: string, versionId: string) => who.client.get(`${versionsOf(projectId)}/${versionId}`);
const restore = (who: Who, projectId: string, versionId: string) => who.client.request(`${versionsOf(projectId)}/${versionId}/restore`, { method: 'POST' });
type Version = { id: string; kind: 'auto' | 'named'; name: string | null; createdAt: string; createdBy: string | null };
const named = async (who: Who, projectId: string) => ((await list(who, projectId)).json.versions as Version[]).filter((v) => v.kind === 'named');
const ids = (nodes: Array<{ id: string }>) => nodes.map((n) => n.id);
const live = async (who: Who, projectId: string) => {
  const c = await connectLive({ baseUrl: t.baseUrl, as: who.client, projectId });
  open.push(c);
  await c.saved();
  return c;
};
const liveIds = (doc: Y.Doc) => [...canvasMaps(doc).nodes.keys()].sort();
const NOT_FOUND = { status: 404, json: { error: 'Project not found' } };
const NO_VERSION = { status: 404, json: { error: 'Version not found' } };
const FORBIDDEN = { status: 403, json: { error: 'Forbidden' } };

beforeAll(async () => {
  // Compaction soon after editing pauses, never put off by a random spread (on a busy machine the store can find the
  // document still "being edited" and wait up to half of COLLAB_COMPACT_MAX_MS), and a restore point at every one.
  t = await startTestApp({ COLLAB_COMPACT_AFTER_MS: '50', COLLAB_COMPACT_SPREAD_MS: '0', COLLAB_RESTORE_POINT_MINUTES: '0' });
  [ada, bob, vic, eve] = await Promise.all([t.user('ada@example.com', 'Ada'), t.user('bob@example.com'), t.user('vic@example.com'), t.user('eve@example.com')]);
});
afterAll(async () => {
  for (const c of open) c.close();
  await t?.close();
});

/** A project of ada's with bob as editor and vic as viewer. */
async function sharedProject() {
  const projectId = await project(ada);
  await ada.client.post(`/api/user/project/${projectId}/members`, { email: bob.email, role: 'editor' });
  await ada.client.post(`/api/user/project/${projectId}/members`, { email: vic.email, role: 'viewer' });
  return projectId;
}

describe('named versions', () => {
  it('a new project has no history; naming keeps the current state; the list is newest first', async () => {
    const projectId = await project(ada);
    expect(await list(ada, projectId)).toMatchObject({ status: 200, json: { versions: [] } });

    const first = await name(ada, projectId, '  First  ');
    expect(first.status).toBe(201);
    expect(first.json).toEqual({ version: { id: expect.any(String), kind: 'named', name: 'First', createdAt: expect.any(String), createdBy: ada.id } });
    expect(new Date(first.json.version.createdAt).toISOString()).toBe(first.json.version.createdAt);
    expect((await list(ada, projectId)).json).toEqual({ versions: [first.json.version] });

    await save(ada, projectId, [node('a')]);
    const second = await name(ada, projectId, 'Second');
    expect(second.status).toBe(201);
    expect(await named(ada, projectId)).toEqual([second.json.version, first.json.version]);
    // Restore points (taken by compaction) are listed too, never with a name; saved over REST, with no author.
    for (const v of (await list(ada, projectId)).json.versions) if (v.kind === 'auto') expect(v).toMatchObject({ name: null, createdBy: null });
  });

  it('the preview renders the named state (nothing generating), whatever the canvas became since', async () => {
    const projectId = await project(ada);
    await save(ada, projectId, [node('a', 'old', { isGenerating: true }), node('b')]);
    const kept = (await name(ada, projectId, 'Two nodes')).json.version;
    await save(ada, projectId, [node('c')]);

    const shown = await preview(ada, projectId, kept.id);
    expect(shown.status).toBe(200);
    expect(shown.json).toEqual({ version: kept, canvas: { nodes: [node('a', 'old', { isGenerating: false }), node('b')], edges: [] } });
    expect(ids((await canvas(ada, projectId)).nodes)).toEqual(['c']);
  });

  it('refuses a missing, empty, too long or unstorable name with 400 naming the problem, and stores nothing', async () => {
    const projectId = await project(ada);
    const bad: Array<[unknown, string]> = [
      [undefined, 'Version name is required'],
      [null, 'Version name is required'],
      ['', 'Version name is required'],
      ['   ', 'Version name is required'],
      ['x'.repeat(201), 'Version name is too long (at most 200 characters)'],
      [42, 'Invalid version name'],
      [['a'], 'Invalid version name'],
      ['a\u0000b', 'Invalid version name'],
      ['\ud800', 'Invalid version name'],
    ];
    for (const [value, error] of bad) expect(await name(ada, projectId, value), JSON.stringify(value)).toMatchObject({ status: 400, json: { error } });
    expect((await ada.client.post(versionsOf(projectId), [])).status).toBe(400);
    expect((await list(ada, projectId)).json.versions).toEqual([]);
    // 200 characters once trimmed is fine.
    expect(await name(ada, projectId, ` ${'x'.repeat(200)} `)).toMatchObject({ status: 201, json: { version: { name: 'x'.repeat(200) } } });
  });
});

describe('restoring', () => {
  it('brings the old content back as a new change: a live editor sees it, REST reads it with a grown version, and the canvas as it was is kept', async () => {
    const projectId = await sharedProject();
    await save(ada, projectId, [node('a', 'old')]);
    const old = (await name(ada, projectId, 'Old')).json.version;
    await save(ada, projectId, [node('b', 'new'), node('c')]);
    const editor = await live(bob, projectId);
    expect(liveIds(editor.doc)).toEqual(['b', 'c']);
    const before = (await canvas(ada, projectId)).version;

    const restored = await restore(bob, projectId, old.id);
    expect(restored.status).toBe(200);
    expect(restored.json.canvas).toMatchObject({ projectId, nodes: [node('a', 'old')], edges: [] });
    expect(restored.json.canvas.version).toBeGreaterThan(before);
    await docWhere(editor.doc, (d) => liveIds(d).join() === 'a');
    const read = await canvas(vic, projectId);
    expect(read).toEqual(restored.json.canvas);

    // The canvas as it was before the restore is a named version by the person who restored: restoring it undoes the restore.
    const [kept] = await named(ada, projectId);
    expect(kept).toMatchObject({ kind: 'named', name: 'Before restoring “Old”', createdBy: bob.id });
    expect((await preview(vic, projectId, kept.id)).json.canvas.nodes).toEqual([node('b', 'new'), node('c')]);
    const undone = await restore(ada, projectId, kept.id);
    expect(undone).toMatchObject({ status: 200, json: { canvas: { nodes: [node('b', 'new'), node('c')] } } });
    expect(undone.json.canvas.version).toBeGreaterThan(read.version);
    await docWhere(editor.doc, (d) => liveIds(d).join() === 'b,c');
    // The live editor keeps editing on top of it.
    addToCanvas(editor.doc, { nodes: [node('d')] });
    await editor.saved();
    expect(ids((await canvas(ada, projectId)).nodes)).toEqual(['b', 'c', 'd']);
  });

  it('a version of another project, an unknown one or an id that is no uuid is 404 Version not found; nothing changes', async () => {
    const projectId = await project(ada);
    await save(ada, projectId, [node('a')]);
    const other = await project(ada);
    const foreign = (await name(ada, other, 'Elsewhere')).json.version.id;
    const version = (await canvas(ada, projectId)).version;
    for (const versionId of [foreign, randomUUID(), 'not-a-uuid', encodeURIComponent("1' OR '1'='1")]) {
      expect(await preview(ada, projectId, versionId), versionId).toMatchObject(NO_VERSION);
      expect(await restore(ada, projectId, versionId), versionId).toMatchObject(NO_VERSION);
    }
    expect(await canvas(ada, projectId)).toMatchObject({ version, nodes: [node('a')] });
    expect(await named(ada, projectId)).toEqual([]);
    for (const p of ['not-a-uuid', randomUUID()]) expect(await list(ada, p), p).toMatchObject(NOT_FOUND);
  });
});

describe('roles', () => {
  it('a viewer lists and previews but may not name or restore (403); an editor may; a stranger gets 404 as for no project', async () => {
    const projectId = await sharedProject();
    await save(ada, projectId, [node('a')]);
    const v = (await name(bob, projectId, 'By the editor')).json.version;
    expect(v).toMatchObject({ kind: 'named', createdBy: bob.id });
    await save(ada, projectId, [node('b')]);
    const version = (await canvas(ada, projectId)).version;

    expect((await list(vic, projectId)).json.versions).toContainEqual(v);
    expect(await preview(vic, projectId, v.id)).toMatchObject({ status: 200, json: { canvas: { nodes: [node('a')] } } });
    expect(await name(vic, projectId, 'Mine')).toMatchObject(FORBIDDEN);
    expect(await restore(vic, projectId, v.id)).toMatchObject(FORBIDDEN);
    expect(await restore(vic, projectId, randomUUID())).toMatchObject(FORBIDDEN);

    const missing = randomUUID();
    const calls: Array<[string, (p: string) => Promise<{ status: number; json: unknown }>]> = [
      ['list', (p) => list(eve, p)],
      ['name', (p) => name(eve, p, 'Mine')],
      ['preview', (p) => preview(eve, p, v.id)],
      ['restore', (p) => restore(eve, p, v.id)],
    ];
    for (const [what, call] of calls) {
      const [real, none] = [await call(projectId), await call(missing)];
      expect(real, what).toMatchObject(NOT_FOUND);
      expect({ status: none.status, json: none.json }, what).toEqual({ status: real.status, json: real.json });
    }
    expect(await canvas(ada, projectId)).toMatchObject({ version, nodes: [node('b')] });
    expect((await named(ada, projectId)).map((x) => x.name)).toEqual(['By the editor']);
  });
});

describe('restore points', () => {
  it('compaction takes one while a live editor changes the document (COLLAB_RESTORE_POINT_MINUTES=0: at every compaction), by that editor', async () => {
    const projectId = await project(ada);
    const editor = await live(ada, projectId);
    addToCanvas(editor.doc, { nodes: [node('live')] });
    await editor.saved();
    const autos = async () => ((await list(ada, projectId)).json.versions as Version[]).filter((v) => v.kind === 'auto');
    await expect.poll(async () => (await autos()).length, { timeout: 45_000 }).toBeGreaterThan(0);
    const [point] = await autos();
    expect(point).toMatchObject({ name: null, createdBy: ada.id });
    expect((await preview(ada, projectId, point.id)).json.canvas.nodes).toEqual([node('live')]);
  });
});
