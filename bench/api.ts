// API sections: the session guard on trivial routes, and canvas save/read through the API against the same
// statements issued straight to the database through the repositories, in the same run (serial and 8 in flight).
// A save is now a change to the project's live document (src/collab/): its baseline appends the same change (the
// Yjs update of one moved node) through the collab repository, without the HTTP, the diff against the document
// and the acknowledgement that the service adds.
import { drizzle } from 'drizzle-orm/node-postgres';
import * as Y from 'yjs';
import { applyCanvas, renderCanvas } from '../src/collab/canvas-doc.js';
import { mergeParts, partsOf } from '../src/collab/stored-document.js';
import { createCanvasesRepository, createCollabRepository, type CollabRepository } from '../src/db/repositories/index.js';
import * as schema from '../src/db/schema.js';
import type { TestApp } from '../test/helpers/test-app.js';
import { combine, toRow, type CanvasCall, type HttpRequest, type LoadClient, type LoadResult } from './load.js';
import type { Section } from './table.js';

export interface ApiContext {
  t: TestApp;
  /** Runs the load loops in a process of their own. */
  load: LoadClient;
  /** Lines printed under the table (targets, payload sizes). */
  notes: string[];
}

const TRIVIAL = { requests: 4_000, warmup: 500, warmupPerRound: 100, concurrency: 20 };
const TRIVIAL_ROUNDS = 8;
// Fewer than before live documents (1,000 and 1,500): a save now diffs against the document and a read renders it,
// and at 8 in flight 1,500 reads no longer fit the loop's 60 s hard cap on a busy 2-core machine.
const CANVAS_SERIAL = { requests: 500, warmup: 50, concurrency: 1 };
const CANVAS_PARALLEL = { requests: 800, warmup: 80, concurrency: 8 };
const CANVAS_NODES = 200;
const CANVAS_EDGES = 300;
/** Pre-built variants of each canvas (one node moved in each), cycled so consecutive saves differ. */
const VARIANTS = 16;

// ---------------------------------------------------------------------------------------------------------
// Session guard

export const authSection: Section<ApiContext> = async ({ t, load, notes }, rows) => {
  const alice = await t.user('bench-alice@example.com', 'Bench Alice');
  const bob = await t.user('bench-bob@example.com', 'Bench Bob');
  const origin = t.baseUrl;
  const cookieFor = (path: string) => alice.client.jar.getCookieString(new URL(path, origin).toString());
  // Alice asks for Bob's projects: 401 without a session, 403 with hers (both before any database work).
  const othersProjects = `/api/user/project?userId=${bob.id}`;
  const cookie = await cookieFor(othersProjects);
  const userCookie = await cookieFor('/api/user');
  const sessionCookie = await cookieFor('/api/user/session');

  // Warm the whole path (JIT, connections, session cache) on all five requests before the first timed row.
  const mixed: HttpRequest[] = [{ path: '/api/health' }, { path: '/api/user/session', headers: { cookie: sessionCookie } }, { path: othersProjects }, { path: othersProjects, headers: { cookie } }, { path: '/api/user', headers: { cookie: userCookie } }];
  await load.http(origin, { name: 'warm-up', requests: 2_000, warmup: 0, concurrency: TRIVIAL.concurrency }, [mixed], [200, 401, 403]);

  // The five cases take turns, round by round (the machine is shared: a slow moment then hits all of them).
  const cases: Array<{ name: string; slots: HttpRequest[][]; expect?: number[] }> = [
    { name: 'health', slots: [[{ path: '/api/health' }]] },
    { name: 'session', slots: [[{ path: '/api/user/session', headers: { cookie: sessionCookie } }]] },
    { name: 'anonymous 401', slots: [[{ path: othersProjects }]], expect: [401] },
    { name: 'signed-in 403', slots: [[{ path: othersProjects, headers: { cookie } }]], expect: [403] },
    { name: 'GET /api/user', slots: [[{ path: '/api/user', headers: { cookie: userCookie } }]] },
  ];
  const results: LoadResult[][] = cases.map(() => []);
  for (let round = 0; round < TRIVIAL_ROUNDS; round++) {
    for (const [k, c] of cases.entries()) {
      const shape = { ...TRIVIAL, requests: TRIVIAL.requests / TRIVIAL_ROUNDS, warmup: round === 0 ? TRIVIAL.warmup : TRIVIAL.warmupPerRound };
      results[k].push(await load.http(origin, { name: c.name, ...shape }, c.slots, c.expect));
    }
  }
  const [healthResult, sessionResult, anonymousResult, signedInResult, meResult] = results.map(combine);

  const health = toRow('GET /api/health (unauthenticated trivial)', healthResult);
  const session = toRow('GET /api/user/session (authenticated trivial)', sessionResult, health);
  const anonymous = toRow('session guard: anonymous 401', anonymousResult);
  const signedIn = toRow('session guard: signed-in 403 (cookie decrypted/cached)', signedInResult, anonymous);
  const me = toRow('GET /api/user signed-in (session + 1 indexed DB read)', meResult, health);
  rows.push(health, session, anonymous, signedIn, me);
  notes.push(`Trivial rows: ${TRIVIAL_ROUNDS} interleaved rounds of ${TRIVIAL.requests / TRIVIAL_ROUNDS} requests per case, merged.`);

  const ratio = session.reqPerSec / health.reqPerSec;
  notes.push(
    `Auth target (authenticated trivial route ≥ 0.9× an unauthenticated one): GET /api/user/session is ${ratio.toFixed(2)}× of GET /api/health → ${ratio >= 0.9 ? 'MET' : 'NOT MET'}` +
      ` (it carries the browser's ${sessionCookie.length}-byte Cookie header; the session check is a cache hit after the first request).` +
      ` Signed-in 403 vs anonymous 401 on the same route: ${(signedIn.reqPerSec / anonymous.reqPerSec).toFixed(2)}× (the 403 also runs query validation and the handler; the 401 stops in the onRequest hook).`,
  );
};

// ---------------------------------------------------------------------------------------------------------
// Canvas

/** Deterministic pseudo-random numbers (the same canvas every run). */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const hex = (rnd: () => number, n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');

const WORDS = (
  'a watercolor portrait of a fox in a misty forest at dawn soft light cinematic wide angle lens detailed fur ' +
  'studio photograph of a ceramic teapot on linen pastel palette isometric city block at night neon reflections ' +
  'vintage poster style mountain lake with sailboats golden hour oil painting texture'
).split(' ');

/** A realistic canvas: upload and generation nodes with image URLs and prompts, edges from inputs to outputs. */
export function makeCanvas(userId: string, seed: number) {
  const rnd = random(seed);
  const nodes = Array.from({ length: CANVAS_NODES }, (_, i) => {
    const type = i % 4 === 0 ? ('upload' as const) : ('generation' as const);
    const image = `https://cdn.image-canvas.example/${userId}/${hex(rnd, 16)}.png`;
    const prompt = type === 'generation' ? Array.from({ length: 5 + Math.floor(rnd() * 10) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ') : undefined;
    return {
      id: `${type}-${hex(rnd, 10)}`,
      type,
      position: { x: Math.round(rnd() * 4000 * 100) / 100, y: Math.round(rnd() * 3000 * 100) / 100 },
      data: { type, image, ...(prompt ? { prompt } : {}), isGenerating: false },
    };
  });
  // Edges go into generation nodes: an upload has no input port (src/kinds/upload.ts).
  const generations = nodes.filter((n) => n.type === 'generation');
  const edges = Array.from({ length: CANVAS_EDGES }, (_, i) => {
    const target = generations[i % generations.length];
    const source = nodes[Math.floor(rnd() * CANVAS_NODES)];
    return { id: `e-${source.id.slice(-6)}-${target.id.slice(-6)}-${i}`, source: source.id, target: target.id };
  });
  return { nodes, edges };
}

/** A canvas of `n` nodes built from makeCanvas pieces (ids stay unique), with the edges among them. */
export function sizedCanvas(userId: string, seed: number, n: number): ReturnType<typeof makeCanvas> {
  const nodes: ReturnType<typeof makeCanvas>['nodes'] = [];
  const edges: ReturnType<typeof makeCanvas>['edges'] = [];
  for (let k = 0; nodes.length < n; k++) {
    const piece = makeCanvas(userId, seed + k);
    nodes.push(...piece.nodes);
    edges.push(...piece.edges);
  }
  nodes.length = n;
  const ids = new Set(nodes.map((x) => x.id));
  const edgeIds = new Set<string>();
  return { nodes, edges: edges.filter((e) => ids.has(e.source) && ids.has(e.target) && !edgeIds.has(e.id) && edgeIds.add(e.id)) };
}

interface BenchProject {
  projectId: string;
  canvasId: string;
  /** Per variant: the API request body. */
  apiBodies: Uint8Array[];
}

/** The project's document as stored, in a Y.Doc of its own (the caller destroys it). */
async function storedDocument(collab: CollabRepository, projectId: string): Promise<Y.Doc> {
  const stored = await collab.load(projectId);
  const doc = new Y.Doc();
  Y.applyUpdate(doc, Y.mergeUpdates([...(stored.snapshot ? [stored.snapshot] : []), ...stored.updates]));
  return doc;
}

/** The Yjs update that makes a copy of `doc` equal to `canvas` (what a REST save appends for that change). */
function changeOf(doc: Y.Doc, canvas: { nodes: unknown[]; edges: unknown[] }): Uint8Array {
  const copy = new Y.Doc();
  try {
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc));
    const updates: Uint8Array[] = [];
    copy.on('update', (update: Uint8Array) => updates.push(update));
    applyCanvas(copy, canvas);
    if (updates.length !== 1) throw new Error(`a one-node move made ${updates.length} updates`);
    return updates[0];
  } finally {
    copy.destroy();
  }
}

export const canvasSection: Section<ApiContext> = async ({ t, load, notes }, rows) => {
  const origin = t.baseUrl;
  const owner = await t.user('bench-carol@example.com', 'Bench Carol');
  const cookie = await owner.client.jar.getCookieString(`${origin}/api/user/project/canvas`);
  const headers = { cookie };
  const jsonHeaders = { cookie, 'content-type': 'application/json' };
  const collab = createCollabRepository(drizzle(t.pool, { schema }));

  /** A project with the benchmark's canvas saved through the API. */
  async function benchProject(name: string, seed: number) {
    const created = await owner.client.post('/api/user/project', { userId: owner.id, name });
    if (created.status !== 200) throw new Error(`create project → ${created.status} ${created.text}`);
    const projectId: string = created.json.id;
    const { nodes, edges } = makeCanvas(owner.id, seed);
    const first = await owner.client.post('/api/user/project/canvas', { projectId, nodes, edges });
    if (first.status !== 200) throw new Error(`first canvas save → ${first.status} ${first.text.slice(0, 300)}`);
    return { projectId, canvasId: first.json.id as string, nodes, edges };
  }
  /** The small change of each save: one node moved. */
  const variant = <N extends { position: { x: number; y: number } }>(nodes: N[], v: number) =>
    nodes.map((n, i) => (i === (v * 13) % CANVAS_NODES ? { ...n, position: { x: n.position.x + v + 1, y: n.position.y } } : n));

  // One project per in-flight slot: concurrent saves are different users' canvases, not one document's queue.
  const projects: BenchProject[] = [];
  for (let p = 0; p < CANVAS_PARALLEL.concurrency; p++) {
    const { projectId, canvasId, nodes, edges } = await benchProject(`Bench ${p + 1}`, 1_000 + p);
    const apiBodies = Array.from({ length: VARIANTS }, (_, v) => Buffer.from(JSON.stringify({ id: canvasId, projectId, nodes: variant(nodes, v), edges })));
    projects.push({ projectId, canvasId, apiBodies });
  }
  // The direct baseline appends to twins of those projects (the same canvas, saved the same way): changes
  // written behind the service's back would otherwise land in documents it holds in memory. Each variant's
  // change is the Yjs update of that one move, made against the stored document.
  const twins: Array<{ projectId: string; updates: Uint8Array[] }> = [];
  for (let p = 0; p < CANVAS_PARALLEL.concurrency; p++) {
    const { projectId, nodes, edges } = await benchProject(`Bench twin ${p + 1}`, 1_000 + p);
    const doc = await storedDocument(collab, projectId);
    try {
      twins.push({ projectId, updates: Array.from({ length: VARIANTS }, (_, v) => changeOf(doc, { nodes: variant(nodes, v), edges })) });
    } finally {
      doc.destroy();
    }
  }
  const updateBytes = twins.flatMap((p) => p.updates.map((u) => u.byteLength));
  notes.push(
    `Canvas: ${CANVAS_NODES} nodes, ${CANVAS_EDGES} edges, save request body ${(projects[0].apiBodies[0].length / 1024).toFixed(1)} KB; ` +
      `each in-flight slot saves/reads its own project (${projects.length} projects of one user); each save moves one node, ` +
      `a change of ${Math.min(...updateBytes)}–${Math.max(...updateBytes)} bytes as a Yjs update.`,
  );

  // The same statements straight to the same database, from the load client process: the repositories the
  // service calls (src/db/repositories/canvases.ts, collab.ts) on a pg.Pool configured like the app's (size,
  // statement timeout).
  const db = { connectionString: t.databaseUrl, max: t.config.database.poolSize, statement_timeout: t.config.database.statementTimeoutMs || undefined };

  // The API and the database must agree on what is stored before anything is timed.
  const viaApi = await owner.client.get(`/api/user/project/canvas?projectId=${projects[0].projectId}`);
  const found = await createCanvasesRepository(drizzle(t.pool, { schema })).current({ userId: owner.id }, projects[0].projectId);
  const doc = await storedDocument(collab, projects[0].projectId);
  const viaDb = JSON.stringify({ id: found?.id, projectId: projects[0].projectId, ...renderCanvas(doc), version: found?.version });
  doc.destroy();
  if (viaApi.status !== 200 || viaApi.text !== viaDb) throw new Error('canvas read through the API differs from the database');
  if (viaApi.json.nodes.length !== CANVAS_NODES || viaApi.json.edges.length !== CANVAS_EDGES) throw new Error('canvas stored with the wrong size');
  notes.push(`Canvas read response: ${(Buffer.byteLength(viaApi.text) / 1024).toFixed(1)} KB.`);

  for (const shape of [CANVAS_SERIAL, CANVAS_PARALLEL]) {
    const dbSave = toRow(
      'canvas save: the same change appended straight to DB (collab repository, pg.Pool)',
      await load.canvas(
        db,
        { name: 'DB append', ...shape },
        twins.slice(0, shape.concurrency).map((p) => p.updates.map((update): CanvasCall => ({ append: { projectId: p.projectId, update } }))),
      ),
    );
    rows.push(dbSave);
    const apiSave = await load.http(
      origin,
      { name: 'API save', ...shape },
      projects.slice(0, shape.concurrency).map((p) => p.apiBodies.map((body): HttpRequest => ({ method: 'POST', path: '/api/user/project/canvas', headers: jsonHeaders, body }))),
    );
    rows.push(toRow('canvas save: POST /api/user/project/canvas', apiSave, dbSave));
  }

  // Reads: the baseline reads what a read of a document that is not in memory reads (the canvases row, then the
  // stored document), compacted first as it is after an editing session.
  for (const p of projects) await collab.compact(p.projectId, { merge: async (stored) => mergeParts(partsOf(stored), { measure: false }).state, restorePointMs: t.config.collab.restorePointMs });
  for (const shape of [CANVAS_SERIAL, CANVAS_PARALLEL]) {
    const mine = projects.slice(0, shape.concurrency);
    const dbRead = toRow(
      'canvas read: canvases row + stored document straight from DB (repositories, pg.Pool)',
      await load.canvas(db, { name: 'DB read', ...shape }, mine.map((p): CanvasCall[] => [{ read: { userId: owner.id, projectId: p.projectId } }])),
    );
    rows.push(dbRead);
    const apiRead = await load.http(origin, { name: 'API read', ...shape }, mine.map((p) => [{ path: `/api/user/project/canvas?projectId=${p.projectId}`, headers }]));
    rows.push(toRow('canvas read: GET /api/user/project/canvas', apiRead, dbRead));
  }
};
