// Whole-document work of the live canvas off the service's thread (src/collab/document-workers.ts, COLLAB_WORKERS):
// a compaction merges in a worker thread (rows merged, a restore point taken, the document the same when loaded
// again); loading a stored document merges and measures it there, so its first edit renders nothing; a document not
// open is read there; COLLAB_WORKERS=0 does the same on the service's thread; a corrupt row fails its task alone —
// the compaction is counted and retried, the load refused — and later work goes on. Real PostgreSQL, real sockets.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addToCanvas, canvasMaps, renderCanvas } from '../../src/collab/canvas-doc.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, type LiveClient } from '../helpers/live-client.js';
import { sample } from '../helpers/metrics-text.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
const TOKEN = 'metrics-token-for-live-workers-0123';
// Compaction soon after editing pauses, never put off by a random spread, with a restore point at every one.
const ENV = { METRICS_TOKEN: TOKEN, COLLAB_COMPACT_AFTER_MS: '50', COLLAB_COMPACT_SPREAD_MS: '0', COLLAB_RESTORE_POINT_MINUTES: '0' };
const GARBAGE = Buffer.from('not a yjs update');

const node = (id: string, prompt = 'p') => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt } });
const ids = (nodes: unknown[]) => nodes.map((n) => (n as { id: string }).id);
const open: LiveClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

/** The service under test, its metrics and its database, for one describe. */
function service(env: Record<string, string>) {
  const s = {} as { t: TestApp; ada: Who };
  beforeAll(async () => {
    s.t = await startTestApp({ ...ENV, ...env });
    s.ada = await s.t.user('ada@example.com', 'Ada');
  });
  afterAll(() => s.t?.close());
  const scrape = async () => {
    const res = await s.t.client().get('/api/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    return res.text;
  };
  return {
    get t() {
      return s.t;
    },
    get ada() {
      return s.ada;
    },
    scrape,
    /** Tasks of a kind run (or failed) so far, in a worker thread or on the service's. */
    tasks: (text: string, task: 'merge' | 'render', where: 'worker' | 'thread', result: 'ok' | 'failed' = 'ok') =>
      sample(text, 'image_canvas_live_document_tasks_total', { task, where, result }) ?? 0,
    /** Whole canvases rendered on the service's thread to measure them. */
    measures: (text: string) => sample(text, 'image_canvas_live_canvas_measures_total') ?? 0,
    /** Waits until no document is open here: each one stored, compacted and unloaded. */
    allUnloaded: () => expect.poll(async () => sample(await scrape(), 'image_canvas_live_open_documents'), { timeout: 30_000 }).toBe(0),
    project: async () => (await s.ada.client.post('/api/user/project', { userId: s.ada.id, name: 'Workers' })).json.id as string,
    save: (projectId: string, nodes: unknown[]) => s.ada.client.post('/api/user/project/canvas', { projectId, nodes, edges: [] }),
    canvas: (projectId: string) => s.ada.client.get(`/api/user/project/canvas?projectId=${projectId}`),
    async live(projectId: string) {
      const c = await connectLive({ baseUrl: s.t.baseUrl, as: s.ada.client, projectId });
      open.push(c);
      await c.saved();
      return c;
    },
    /** Rows in the project's log, and whether it has a snapshot. */
    async stored(projectId: string) {
      const rows = await s.t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM collab_updates WHERE project_id = $1', [projectId]);
      const snapshots = await s.t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM collab_snapshots WHERE project_id = $1', [projectId]);
      return { log: rows.rows[0].n, snapshot: snapshots.rows[0].n === 1 };
    },
    async restorePoints(projectId: string) {
      return (await s.t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM collab_versions WHERE project_id = $1 AND kind = 'auto'`, [projectId])).rows[0].n;
    },
  };
}

/** Edits, leaves, and checks what is stored and what loads again; what each step ran where. */
async function editCompactAndLoad(s: ReturnType<typeof service>) {
  const projectId = await s.project();
  const editor = await s.live(projectId);
  addToCanvas(editor.doc, { nodes: [node('a'), node('b', 'x'.repeat(9_000))] });
  await editor.saved();
  canvasMaps(editor.doc).nodes.delete('b');
  addToCanvas(editor.doc, { nodes: [node('c')] });
  await editor.saved();
  const canvas = renderCanvas(editor.doc);
  expect(ids(canvas.nodes)).toEqual(['a', 'c']);
  editor.close();
  // The last editor leaving compacts the document, then it is unloaded.
  await s.allUnloaded();
  expect(await s.stored(projectId)).toEqual({ log: 0, snapshot: true });
  expect(await s.restorePoints(projectId)).toBeGreaterThan(0);
  const { rows } = await s.t.pool.query<{ state: Buffer }>('SELECT state FROM collab_snapshots WHERE project_id = $1', [projectId]);
  expect(rows[0].state.byteLength).toBeLessThan(5_000); // the deleted node's 9 KB prompt was dropped

  // Read while nobody has it open (rendered from the stored rows), then loaded by an editor: the same canvas.
  const read = await s.canvas(projectId);
  expect(read.status).toBe(200);
  expect({ nodes: read.json.nodes, edges: read.json.edges }).toEqual(canvas);
  const before = await s.scrape();
  const again = await s.live(projectId);
  expect(renderCanvas(again.doc)).toEqual(canvas);
  // Its first edit (content added) needs no measure of the whole canvas: the load measured it.
  addToCanvas(again.doc, { nodes: [node('d')] });
  await again.saved();
  const after = await s.scrape();
  expect(s.measures(after)).toBe(s.measures(before));
  again.close();
  await s.allUnloaded();
  return { projectId, text: await s.scrape() };
}

describe('live documents with a worker thread (COLLAB_WORKERS default 1)', () => {
  const s = service({});

  it('compacts, reads and loads a stored document in the worker thread; nothing of it on the service thread', async () => {
    const { text } = await editCompactAndLoad(s);
    // Compactions (two: each editor leaving) and a load are merges; the read is a render.
    expect(s.tasks(text, 'merge', 'worker')).toBeGreaterThanOrEqual(3);
    expect(s.tasks(text, 'render', 'worker')).toBeGreaterThanOrEqual(1);
    expect(s.tasks(text, 'merge', 'thread') + s.tasks(text, 'render', 'thread')).toBe(0);
    expect(s.tasks(text, 'merge', 'worker', 'failed') + s.tasks(text, 'render', 'worker', 'failed')).toBe(0);
  });

  it("a document loaded from the database is not rendered by its first edit; one that had nothing stored is", async () => {
    const stored = await s.project();
    expect((await s.save(stored, [node('a'), node('b')])).status).toBe(200);
    await s.allUnloaded();
    const before = await s.scrape();
    const editor = await s.live(stored);
    expect(ids(renderCanvas(editor.doc).nodes)).toEqual(['a', 'b']);
    expect(s.tasks(await s.scrape(), 'merge', 'worker')).toBe(s.tasks(before, 'merge', 'worker') + 1); // the load
    addToCanvas(editor.doc, { nodes: [node('c')] });
    await editor.saved();
    const loaded = await s.scrape();
    expect(s.measures(loaded)).toBe(s.measures(before));

    // A new project's document loads empty (nothing to merge or measure): its first edit measures it here.
    const fresh = await s.live(await s.project());
    addToCanvas(fresh.doc, { nodes: [node('n')] });
    await fresh.saved();
    expect(s.measures(await s.scrape())).toBe(s.measures(loaded) + 1);
  });

  it('a corrupt row in the log fails the compaction (counted, nothing deleted); once it is gone the next one merges it all', async () => {
    const projectId = await s.project();
    const editor = await s.live(projectId);
    addToCanvas(editor.doc, { nodes: [node('a')] });
    await editor.saved();
    const before = await s.scrape();
    // A row no merge can read, appended behind the service's back.
    await s.t.pool.query('INSERT INTO collab_updates (project_id, update) VALUES ($1, $2)', [projectId, GARBAGE]);
    addToCanvas(editor.doc, { nodes: [node('b')] });
    await editor.saved();
    await expect.poll(async () => s.tasks(await s.scrape(), 'merge', 'worker', 'failed'), { timeout: 30_000 }).toBeGreaterThan(s.tasks(before, 'merge', 'worker', 'failed'));
    const failed = await s.scrape();
    expect(sample(failed, 'image_canvas_live_compactions_total', { result: 'failed' })).toBeGreaterThan(sample(before, 'image_canvas_live_compactions_total', { result: 'failed' }) ?? 0);
    // Nothing was deleted: the unreadable row and the edit after it are still in the log.
    const garbage = await s.t.pool.query('SELECT 1 FROM collab_updates WHERE project_id = $1 AND update = $2', [projectId, GARBAGE]);
    expect(garbage.rows).toHaveLength(1);
    expect((await s.stored(projectId)).log).toBeGreaterThanOrEqual(2);

    await s.t.pool.query('DELETE FROM collab_updates WHERE project_id = $1 AND update = $2', [projectId, GARBAGE]);
    addToCanvas(editor.doc, { nodes: [node('c')] });
    await editor.saved();
    editor.close();
    await s.allUnloaded();
    expect(await s.stored(projectId)).toEqual({ log: 0, snapshot: true });
    expect(ids((await s.canvas(projectId)).json.nodes)).toEqual(['a', 'b', 'c']);
  });

  it('a corrupt snapshot refuses the editor and fails the read, without harm to the service; other documents go on', async () => {
    const bad = await s.project();
    expect((await s.save(bad, [node('a')])).status).toBe(200);
    await s.allUnloaded();
    expect((await s.stored(bad)).snapshot).toBe(true);
    await s.t.pool.query('UPDATE collab_snapshots SET state = $2 WHERE project_id = $1', [bad, GARBAGE]);
    const before = await s.scrape();

    const refused = await connectLive({ baseUrl: s.t.baseUrl, as: s.ada.client, projectId: bad });
    open.push(refused);
    expect(await refused.event('authenticationFailed')).toBe('authenticationFailed:permission-denied');
    expect(refused.events).not.toContain('synced');
    refused.close();
    expect((await s.canvas(bad)).status).toBe(500);
    const after = await s.scrape();
    expect(s.tasks(after, 'merge', 'worker', 'failed')).toBeGreaterThan(s.tasks(before, 'merge', 'worker', 'failed'));
    expect(s.tasks(after, 'render', 'worker', 'failed')).toBe(s.tasks(before, 'render', 'worker', 'failed') + 1);
    await s.allUnloaded();

    expect((await s.t.client().get('/api/health')).status).toBe(200);
    await editCompactAndLoad(s);
  });
});

describe('live documents on the service thread (COLLAB_WORKERS=0)', () => {
  const s = service({ COLLAB_WORKERS: '0' });

  it('compacts, reads and loads the same, every task on the service thread', async () => {
    const { text } = await editCompactAndLoad(s);
    expect(s.tasks(text, 'merge', 'thread')).toBeGreaterThanOrEqual(3);
    expect(s.tasks(text, 'render', 'thread')).toBeGreaterThanOrEqual(1);
    expect(s.tasks(text, 'merge', 'worker') + s.tasks(text, 'render', 'worker')).toBe(0);
  });
});
