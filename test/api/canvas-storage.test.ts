// How canvases are stored (migration 0005): nodes/edges are `json` — the validated text as saved — compressed
// with lz4 where the server has it (the external project's system PostgreSQL) and with the default elsewhere
// (the embedded binaries). A canvas saved as jsonb before the migration reads back the same after it.
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateDatabase } from '../../src/db/index.js';
import { createCanvasesRepository } from '../../src/db/repositories/index.js';
import { createCanvasService } from '../../src/services/canvas.js';
import { migrateUpTo } from '../helpers/migrations.js';
import { createOwnDatabase } from '../helpers/test-app.js';

/** Big enough to be compressed (over PostgreSQL's 2 KB threshold), with text that tests the round trip. */
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

/** These canvases carry no data: URL images: the service never asks to store one. */
const noInlineImages = { inline: () => Promise.reject(new Error('no inline images expected')) };

let database: { url: string; drop(): Promise<void> };
let pool: pg.Pool;
let userId: string;
let projectId: string;
let hasLz4: boolean;

beforeAll(async () => {
  database = await createOwnDatabase();
  await migrateUpTo(database.url, '0004_payment_webhooks');
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // pool.end() resolves before its connections have closed, so the server stopping (or the database dropped)
  // right after can still reach one of them (57P01); without a listener that error is an uncaught exception.
  pool.on('error', () => undefined);
  userId = (await pool.query(`INSERT INTO users (email, name, provider, provider_subject) VALUES ('old@example.com', 'Old', 'oauth', 'sub-old') RETURNING id`)).rows[0].id;
  projectId = (await pool.query(`INSERT INTO projects (user_id, name) VALUES ($1, 'Before') RETURNING id`, [userId])).rows[0].id;
  const { nodes, edges } = canvasData(true);
  await pool.query(`INSERT INTO canvases (id, project_id, nodes, edges) VALUES ('canvas-before', $1, $2::jsonb, $3::jsonb)`, [projectId, JSON.stringify(nodes), JSON.stringify(edges)]);
  await migrateDatabase(database.url); // the rest, 0005 included
  hasLz4 = (await pool.query(`SELECT 'lz4' = ANY (enumvals) AS has FROM pg_settings WHERE name = 'default_toast_compression'`)).rows[0].has === true;
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe('canvas storage (migration 0005)', () => {
  it('nodes and edges are json columns, lz4-compressed exactly when the server has lz4', async () => {
    const { rows } = await pool.query(
      `SELECT attname, atttypid::regtype::text AS type, attcompression::text AS compression FROM pg_attribute
       WHERE attrelid = 'canvases'::regclass AND attname IN ('nodes', 'edges') ORDER BY attname`,
    );
    const compression = hasLz4 ? 'l' : '';
    expect(rows).toEqual([
      { attname: 'edges', type: 'json', compression },
      { attname: 'nodes', type: 'json', compression },
    ]);
  });

  it('a canvas saved as jsonb before the migration reads back the same, its finished generation settled', async () => {
    const canvas = createCanvasService({ canvases: createCanvasesRepository(drizzle(pool)), images: noInlineImages, maxBytes: 16 * 1024 * 1024 });
    const read = JSON.parse((await canvas.getJson(userId, projectId))!);
    expect(read).toEqual({ id: 'canvas-before', projectId, ...canvasData(false), version: 1 });
  });

  it('a save stores the text as sent, compressed with the column method, and reads back as saved', async () => {
    const canvas = createCanvasService({ canvases: createCanvasesRepository(drizzle(pool)), images: noInlineImages, maxBytes: 16 * 1024 * 1024 });
    const { nodes, edges } = canvasData(false);
    nodes[3].position.x = 1234.25;
    const saved = await canvas.save(userId, { projectId, nodes, edges, version: 1 });
    expect(JSON.parse(saved)).toMatchObject({ id: 'canvas-before', version: 2 });
    const { rows } = await pool.query(`SELECT nodes::text AS nodes, edges::text AS edges, pg_column_compression(nodes) AS method FROM canvases WHERE project_id = $1`, [projectId]);
    expect(rows[0]).toEqual({ nodes: JSON.stringify(nodes), edges: JSON.stringify(edges), method: hasLz4 ? 'lz4' : 'pglz' });
    expect(JSON.parse((await canvas.getJson(userId, projectId))!)).toEqual(JSON.parse(saved));
  });
});
