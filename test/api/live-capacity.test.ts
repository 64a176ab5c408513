// LIVE_MAX_OPEN_DOCUMENTS (src/collab/extensions/capacity.ts; docs/api.md "Live canvas"): at the limit a person's
// connection to a document not open on the instance is refused (`4503 too-many-documents`) before anything of it is
// loaded, and its provider gets in by itself once another document unloads; documents already open take new
// connections; the service's own changes (a REST save) still work, past the limit; and a document nobody is
// connected to is compacted and unloaded, even when its compaction fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { addToCanvas } from '../../src/collab/canvas-doc.js';
import { CLOSE } from '../../src/collab/protocol.js';
import type { HttpClient } from '../helpers/http-client.js';
import { connectLive, type LiveClient, type LiveOptions } from '../helpers/live-client.js';
import { captureLogs } from '../helpers/log-capture.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
const REFUSED = `close:${CLOSE.tooManyDocuments.code}:${CLOSE.tooManyDocuments.reason}`;
/** Waits that the provider's backoff (1 s, 2 s, 4 s, … with jitter) or a compaction may take. */
const WAIT = { timeout: 30_000, interval: 100 };
const LOG_LINE = 'live socket: a document was refused, this instance holds LIVE_MAX_OPEN_DOCUMENTS';

type Who = { client: HttpClient; id: string; email: string };
let t: TestApp;
let ada: Who;
let eve: Who;
const logs = captureLogs();
const open: LiveClient[] = [];
const node = (id: string) => ({ id, type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: id } });
const project = async (name: string) => (await ada.client.post('/api/user/project', { userId: ada.id, name })).json.id as string;
const live = async (projectId: string, { as = ada, doc, url }: { as?: Who; doc?: Y.Doc; url?: LiveOptions['url'] } = {}) => {
  const c = await connectLive({ baseUrl: t.baseUrl, as: as.client, projectId, doc, url });
  open.push(c);
  return c;
};

/** One sample of the instance's metrics. */
async function metric(name: string, labels = ''): Promise<number> {
  const text = (await t.client().get('/api/metrics', { authorization: `Bearer ${TOKEN}` })).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? NaN : Number(line.split(' ')[1]);
}
const openDocuments = () => metric('image_canvas_live_open_documents');

/** What PostgreSQL holds of a project's document: log rows not yet merged, and whether it has a snapshot. */
async function stored(projectId: string) {
  const { rows } = await t.pool.query<{ updates: number; snapshots: number }>(
    'SELECT (SELECT count(*)::int FROM collab_updates WHERE project_id = $1) AS updates, (SELECT count(*)::int FROM collab_snapshots WHERE project_id = $1) AS snapshots',
    [projectId],
  );
  return rows[0];
}

beforeAll(async () => {
  t = await startTestApp(
    // Two documents at most; a document the service alone used is compacted and unloaded 300 ms after.
    { LIVE_MAX_OPEN_DOCUMENTS: '2', METRICS_TOKEN: TOKEN, COLLAB_COMPACT_AFTER_MS: '300', LOG_LEVEL: 'warn' },
    undefined,
    { logStream: logs.stream },
  );
  [ada, eve] = await Promise.all([t.user('ada@example.com'), t.user('eve@example.com')]);
});
afterAll(async () => {
  for (const c of open) c.close();
  await t?.close();
});

describe('at LIVE_MAX_OPEN_DOCUMENTS', () => {
  it('refuses a person a third document before loading it, lets more people into open ones, and lets the refused provider in by itself once one unloads, with what it changed meanwhile', async () => {
    const [a, b, c] = [await project('A'), await project('B'), await project('C')];
    await expect.poll(openDocuments, WAIT).toBe(0);
    const inA = await live(a);
    const inB = await live(b);
    await Promise.all([inA.event('synced'), inB.event('synced')]);
    addToCanvas(inB.doc, { nodes: [node('b1')] });
    await inB.saved();

    // Changed before it got in: kept by the provider, and stored once it is in.
    const offline = new Y.Doc();
    addToCanvas(offline, { nodes: [node('typed-while-refused')] });
    const inC = await live(c, { doc: offline });
    await inC.event(REFUSED);
    // Closed before anything was answered: not let in, nothing of the document sent, and nothing loaded.
    expect(inC.events.filter((e) => e.startsWith('authenticated') || e === 'synced')).toEqual([]);
    expect(await openDocuments()).toBe(2);
    expect(await metric('image_canvas_live_refused_documents_total')).toBeGreaterThanOrEqual(1);
    expect(await stored(c)).toEqual({ updates: 0, snapshots: 0 });
    // Someone with no role on a project is told so, not that the service is busy.
    const eves = await project('Not shared');
    expect(await (await live(eves, { as: eve })).event('authentication')).toBe('authenticationFailed:permission-denied');
    // On the old URL (documents side by side on one socket) the document alone is refused: answered, so its socket
    // was not closed (on a project's URL it is closed before any answer).
    const shared = await live(await project('Old URL'), { url: 'shared' });
    expect(await shared.event('authentication')).toBe(`authenticationFailed:${CLOSE.tooManyDocuments.reason}`);
    expect(await openDocuments()).toBe(2);

    // A document already open takes more connections.
    const againA = await live(a);
    await againA.event('synced');
    expect(await openDocuments()).toBe(2);

    // B's only editor leaves: it is compacted and unloaded, and the refused provider comes in by itself.
    inB.close();
    await inC.event('synced');
    await inC.saved();
    expect(await openDocuments()).toBe(2);
    expect(await stored(b)).toEqual({ updates: 0, snapshots: 1 });
    const canvas = (await ada.client.get(`/api/user/project/canvas?projectId=${c}`)).json;
    expect(canvas.nodes.map((n: { id: string }) => n.id)).toEqual(['typed-while-refused']);

    // However often it was refused, that is one line of the log.
    const lines = logs.lines.filter((l) => l.msg === LOG_LINE);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ projectId: c, openDocuments: 2, limit: 2 });
  });

  it("never refuses the service's own changes: a REST save of another project works at the limit, and its document is then compacted and unloaded", async () => {
    expect(await openDocuments()).toBe(2);
    const d = await project('D');
    const saved = await ada.client.post('/api/user/project/canvas', { projectId: d, nodes: [node('d1')], edges: [], version: 0 });
    expect(saved.status).toBe(200);
    expect(saved.json.version).toBe(1);
    // Nobody is connected to it: compacted after COLLAB_COMPACT_AFTER_MS, then unloaded.
    await expect.poll(openDocuments, WAIT).toBe(2);
    expect(await stored(d)).toEqual({ updates: 0, snapshots: 1 });
    expect((await ada.client.get(`/api/user/project/canvas?projectId=${d}`)).json.nodes.map((n: { id: string }) => n.id)).toEqual(['d1']);
  });

  it('unloads a document nobody is connected to even when its compaction fails (every change of it is stored already)', async () => {
    for (const c of open.splice(0)) c.close();
    await expect.poll(openDocuments, WAIT).toBe(0);
    // A canvas of 40 nodes, saved (compacted, unloaded), then opened by a person.
    const e = await project('E');
    const nodes = Array.from({ length: 40 }, (_, i) => node(`e${i}`));
    expect((await ada.client.post('/api/user/project/canvas', { projectId: e, nodes, edges: [], version: 0 })).status).toBe(200);
    await expect.poll(openDocuments, WAIT).toBe(0);
    const inE = await live(e);
    await inE.event('synced');
    // Its snapshot made unreadable: the next compaction fails. One small change (a compaction while she is there
    // waits for a larger log), then she leaves: the compaction of the last leave fails.
    await t.pool.query(`UPDATE collab_snapshots SET state = '\\xffffff' WHERE project_id = $1`, [e]);
    const failed = () => metric('image_canvas_live_compactions_total', '{result="failed"}').then((n) => n || 0);
    const failedBefore = await failed();
    addToCanvas(inE.doc, { nodes: [node('one-more')] });
    await inE.saved();
    inE.close();
    await expect.poll(failed, WAIT).toBe(failedBefore + 1);
    await expect.poll(openDocuments, WAIT).toBe(0);
    expect(await stored(e)).toEqual({ updates: 1, snapshots: 1 });
  });
});
