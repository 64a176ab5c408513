// Existing canvases are migrated into live documents (issue 16, migration 0011): a database at migration 0010
// holds a canvas saved the old way (nodes/edges JSON, version N); after the remaining migrations it reads the
// same, with the same version, until its document is first opened. Opening moves it into the document once
// (the canvases row keeps only id and version, the content is a collab_snapshots row), and the version goes on
// from N. A finished generation's isGenerating is settled on read before and after the move.
import { randomUUID } from 'node:crypto';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveDocuments } from '../../src/collab/live-documents.js';
import { migrateDatabase } from '../../src/db/index.js';
import { createCanvasesRepository, createCollabRepository, createSharingRepository } from '../../src/db/repositories/index.js';
import * as schema from '../../src/db/schema.js';
import { createCanvasService, type CanvasService } from '../../src/services/canvas.js';
import { failure } from '../helpers/app-error.js';
import { migrateUpTo } from '../helpers/migrations.js';
import { createOwnDatabase } from '../helpers/test-app.js';
import { createUnitLiveDocuments } from '../helpers/unit-live.js';

/** Over PostgreSQL's 2 KB TOAST threshold (stored compressed before), with text that tests the round trip. */
function canvasData(isGenerating: boolean) {
  const nodes = Array.from({ length: 60 }, (_, i) => ({
    id: `n${i}`,
    type: i % 2 ? 'generation' : 'upload',
    position: { x: i * 10.5, y: 100 - i },
    data:
      i % 2
        ? { type: 'generation', prompt: `make it "glow" </script> ü 🎨 \\ "isGenerating": true ${i}`, isGenerating: i === 1 ? isGenerating : false }
        : { type: 'upload', imageUrl: `http://localhost:3000/files/${i}.png`, fileName: `ß-${i}.png` },
  }));
  const edges = nodes.slice(1).map((n, i) => ({ id: `e${i}`, source: nodes[i].id, target: n.id }));
  return { nodes, edges };
}

/** The version the canvas had when the schema changed: any N, not 1. */
const N = 7;
/** These canvases carry no data: URL images: the service never asks to store one. */
const noInlineImages = { inline: () => Promise.reject(new Error('no inline images expected')) };

let database: { url: string; drop(): Promise<void> };
let pool: pg.Pool;
let live: LiveDocuments;
let canvas: CanvasService;
let userId: string;
let projectId: string;

beforeAll(async () => {
  database = await createOwnDatabase();
  await migrateUpTo(database.url, '0010_project_members');
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  // pool.end() resolves before its connections have closed, so the server stopping (or the database dropped)
  // right after can still reach one of them (57P01); without a listener that error is an uncaught exception.
  pool.on('error', () => undefined);
  userId = (await pool.query(`INSERT INTO users (email, name, provider, provider_subject) VALUES ('old@example.com', 'Old', 'oauth', 'sub-old') RETURNING id`)).rows[0].id;
  projectId = (await pool.query(`INSERT INTO projects (user_id, name) VALUES ($1, 'Before') RETURNING id`, [userId])).rows[0].id;
  const { nodes, edges } = canvasData(true);
  await pool.query(`INSERT INTO canvases (id, project_id, nodes, edges, version) VALUES ('canvas-before', $1, $2::json, $3::json, $4)`, [
    projectId,
    JSON.stringify(nodes),
    JSON.stringify(edges),
    N,
  ]);
  await migrateDatabase(database.url); // the rest, 0011 included

  // The canvas service as composition.ts wires it, on this database (no socket: nobody signs in here).
  const db = drizzle(pool, { schema });
  const sharing = createSharingRepository(db);
  // Compaction later than the test: it counts update rows.
  live = createUnitLiveDocuments({ collab: createCollabRepository(db), sharing }, { storeDebounceMs: 60_000, storeMaxDebounceMs: 60_000 });
  canvas = createCanvasService({ canvases: createCanvasesRepository(db), live, images: noInlineImages, maxBytes: 16 * 1024 * 1024 });
});
afterAll(async () => {
  await live?.close();
  await pool?.end();
  await database?.drop();
});

const row = async () =>
  (await pool.query(`SELECT id, version, nodes::text AS nodes, edges::text AS edges FROM canvases WHERE project_id = $1`, [projectId])).rows[0];
const snapshots = async () => Number((await pool.query(`SELECT count(*) AS n FROM collab_snapshots WHERE project_id = $1`, [projectId])).rows[0].n);
const read = async () => JSON.parse((await canvas.getJson({ userId }, projectId))!);

// In order: each step starts from what the one before left.
describe('a canvas saved before live documents (migration 0011)', () => {
  it('reads the same after the migration, with its version and its finished generation settled, and is not moved by a read', async () => {
    expect(await read()).toEqual({ id: 'canvas-before', projectId, ...canvasData(false), version: N });
    expect(await row()).toMatchObject({ id: 'canvas-before', version: N, nodes: expect.any(String), edges: expect.any(String) });
    expect(await snapshots()).toBe(0);
  });

  it('moves into its document once, when the document is first opened: JSON cleared, a snapshot, the same content and version', async () => {
    const document = await live.open(projectId);
    await document.close();
    expect(await row()).toEqual({ id: 'canvas-before', version: N, nodes: null, edges: null });
    expect(await snapshots()).toBe(1);
    expect(await read()).toEqual({ id: 'canvas-before', projectId, ...canvasData(false), version: N });
  });

  it('a finished generation still reads settled from the document, and as saved while a job of the user runs', async () => {
    const generating = async () => (await read()).nodes[1].data.isGenerating;
    expect(await generating()).toBe(false);
    const running = `job_${randomUUID()}`;
    await pool.query(`INSERT INTO generation_jobs (id, user_id, prompt, images, status, attempts, heartbeat_at) VALUES ($1, $2, 'p', '[]', 'running', 1, now())`, [running, userId]);
    try {
      expect(await generating()).toBe(true);
    } finally {
      await pool.query(`DELETE FROM generation_jobs WHERE id = $1`, [running]);
    }
  });

  it('a REST save continues the version from N (a save with an older version is 409) and reads back as saved', async () => {
    const { nodes, edges } = canvasData(false);
    nodes[3].position.x = 1234.25;
    const stale = await failure(canvas.save(userId, { projectId, nodes, edges, version: N - 1 }));
    expect(stale).toMatchObject({ code: 'canvas_conflict', extra: { version: N } });
    const saved = JSON.parse(await canvas.save(userId, { projectId, nodes, edges, version: N }));
    expect(saved).toEqual({ id: 'canvas-before', projectId, nodes, edges, version: N + 1 });
    expect(await read()).toEqual(saved);
    expect(await row()).toEqual({ id: 'canvas-before', version: N + 1, nodes: null, edges: null });
    const updates = Number((await pool.query(`SELECT count(*) AS n FROM collab_updates WHERE project_id = $1`, [projectId])).rows[0].n);
    expect(updates).toBe(1);
  });
});
