// The canvas service on in-memory repositories and the real live documents: first save, versioned saves and
// 409s, ownership, the canvas id namespace, and the isGenerating flag settled on reads.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LiveDocuments } from '../../../src/collab/live-documents.js';
import { createCanvasService, type CanvasService } from '../../../src/services/canvas.js';
import { createCanvasImages } from '../../../src/services/canvas-images.js';
import { createUploadsService } from '../../../src/services/uploads.js';
import { createObjectStore, type ObjectStore } from '../../../src/storage/index.js';
import { createFakeRepositories, type FakeRepositories } from '../../fakes/repositories.js';
import { failure } from '../../helpers/app-error.js';
import { createUnitLiveDocuments } from '../../helpers/unit-live.js';

let repos: FakeRepositories;
let canvas: CanvasService;
let live: LiveDocuments;
let ada: string;
let bob: string;
let projectId: string;
let dir: string;
let store: ObjectStore;
const CANVAS_MAX_BYTES = 64 * 1024;

const node = (id: string, isGenerating = false) => ({ id, type: 'generation', position: { x: 1, y: 2 }, data: { type: 'generation', prompt: 'p', isGenerating } });

beforeEach(async () => {
  repos = createFakeRepositories();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'canvas-unit-'));
  store = await createObjectStore({ dataDir: dir, container: 'images', appBaseUrl: 'http://app.test' });
  await store.init();
  const uploads = createUploadsService({ store, maxBytes: 1024 * 1024, svgMaxPixels: 1_000_000, log: { error: () => undefined } });
  live = createUnitLiveDocuments(repos);
  canvas = createCanvasService({ canvases: repos.canvases, live, images: createCanvasImages({ uploads, maxBytes: 1024 * 1024 }), maxBytes: CANVAS_MAX_BYTES });
  ada = repos.addUser({ email: 'ada@example.com' }).id;
  bob = repos.addUser({ email: 'bob@example.com' }).id;
  projectId = (await repos.projects.insert({ userId: ada, name: 'P' }))!.id;
});
afterEach(async () => {
  await live.close();
  await store.close();
  await fs.rm(dir, { recursive: true, force: true });
});

/** The objects in the local store (names). */
const objects = async () => (await fs.readdir(path.join(dir, 'objects'))).filter((f) => !f.startsWith('.')).sort();
const pngDataUrl = async (side = 8) =>
  `data:image/png;base64,${(await sharp({ create: { width: side, height: side, channels: 3, background: '#0a0' } }).png().toBuffer()).toString('base64')}`;
const imageNode = (id: string, image: string) => ({ id, type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image } });

describe('canvas service', () => {
  it('reads null before the first save; the first save creates version 1 and answers what was stored', async () => {
    expect(await canvas.getJson({ userId: ada }, projectId)).toBeNull();
    const saved = JSON.parse(await canvas.save(ada, { id: 'c1', projectId, nodes: [node('a')], edges: [] }));
    expect(saved).toEqual({ id: 'c1', projectId, nodes: [node('a')], edges: [], version: 1 });
    expect(JSON.parse((await canvas.getJson({ userId: ada }, projectId))!)).toEqual(saved);
  });

  it('a first save with version 0 creates the canvas; a second one gets 409 with the current version', async () => {
    const saved = JSON.parse(await canvas.save(ada, { projectId, nodes: [node('a')], edges: [], version: 0 }));
    expect(saved).toMatchObject({ projectId, version: 1 });
    const err = await failure(canvas.save(ada, { projectId, nodes: [], edges: [], version: 0 }));
    expect(err.code).toBe('canvas_conflict');
    expect(err.extra).toEqual({ version: 1 });
  });

  it('a save with the current version bumps it; a stale one gets 409 and changes nothing', async () => {
    await canvas.save(ada, { id: 'c1', projectId, nodes: [node('a')], edges: [] });
    expect(JSON.parse(await canvas.save(ada, { projectId, nodes: [node('b')], edges: [], version: 1 }))).toMatchObject({ id: 'c1', version: 2 });
    const err = await failure(canvas.save(ada, { projectId, nodes: [node('stale')], edges: [], version: 1 }));
    expect(err.code).toBe('canvas_conflict');
    expect(err.extra).toEqual({ version: 2 });
    expect(JSON.parse((await canvas.getJson({ userId: ada }, projectId))!).nodes).toEqual([node('b')]);
  });

  it('a save without a version replaces the canvas (last write wins) and keeps its id', async () => {
    await canvas.save(ada, { id: 'c1', projectId, nodes: [node('a')], edges: [] });
    const saved = JSON.parse(await canvas.save(ada, { id: 'other', projectId, nodes: [node('z')], edges: [] }));
    expect(saved).toMatchObject({ id: 'c1', version: 2, nodes: [node('z')] });
  });

  it('another user’s project, a missing one and a non-uuid id are all 404, and nothing is stored', async () => {
    for (const [user, id] of [[bob, projectId], [ada, randomUUID()], [ada, 'nope']] as const) {
      expect((await failure(canvas.getJson({ userId: user }, id))).code).toBe('project_not_found');
      expect((await failure(canvas.save(user, { projectId: id, nodes: [], edges: [] }))).code).toBe('project_not_found');
      expect((await failure(canvas.save(user, { projectId: id, nodes: [], edges: [], version: 0 }))).code).toBe('project_not_found');
    }
    expect(repos.state.canvases.size).toBe(0);
    expect(repos.state.collab.size).toBe(0);
  });

  it('a client canvas id already used by another project’s canvas is replaced by a new one', async () => {
    const other = (await repos.projects.insert({ userId: ada, name: 'Other' }))!.id;
    await canvas.save(ada, { id: 'shared', projectId: other, nodes: [], edges: [] });
    const saved = JSON.parse(await canvas.save(ada, { id: 'shared', projectId, nodes: [], edges: [] }));
    expect(saved.id).not.toBe('shared');
    expect(saved).toMatchObject({ projectId, version: 1 });
  });

  it('a node saved generating reads as settled once no job of the user runs, and as saved while one does', async () => {
    await canvas.save(ada, { projectId, nodes: [node('g', true), node('h')], edges: [] });
    const flags = async () => JSON.parse((await canvas.getJson({ userId: ada }, projectId))!).nodes.map((n: { data: { isGenerating: boolean } }) => n.data.isGenerating);
    expect(await flags()).toEqual([false, false]);
    const job = `job_${randomUUID()}`;
    await repos.generationJobs.insert({ id: job, taskKind: 'generation', userId: ada, prompt: 'p', images: [], model: 'm', createdAt: new Date(), queuePriority: 1 });
    expect(await flags()).toEqual([false, false]); // queued
    await repos.generationJobs.markRunning(job);
    expect(await flags()).toEqual([true, false]);
  });

  it('stores a data: URL image as a file and saves its URL in the node; the same image again stores nothing new', async () => {
    const dataUrl = await pngDataUrl();
    const saved = JSON.parse(await canvas.save(ada, { projectId, nodes: [imageNode('a', dataUrl), imageNode('b', dataUrl), node('g')], edges: [] }));
    const [a, b, g] = saved.nodes;
    expect(a.data.image).toMatch(/^http:\/\/app\.test\/files\/content-[0-9a-f]{64}\.png$/);
    expect(b.data.image).toBe(a.data.image);
    expect(g).toEqual(node('g'));
    expect(await objects()).toEqual([a.data.image.split('/').pop()]);
    for (let i = 0; i < 3; i++) await canvas.save(ada, { projectId, nodes: [imageNode('a', dataUrl)], edges: [] });
    expect(await objects()).toHaveLength(1);
  });

  it('holds the canvas with its images replaced to CANVAS_MAX_BYTES (413), storing nothing', async () => {
    const big = Array.from({ length: 400 }, (_, i) => ({ ...node(`n${i}`), data: { type: 'generation', prompt: 'p'.repeat(150) } }));
    const err = await failure(canvas.save(ada, { projectId, nodes: [imageNode('a', await pngDataUrl()), ...big], edges: [] }));
    expect(err.code).toBe('canvas_too_large');
    expect(await objects()).toEqual([]);
    expect(repos.state.canvases.size).toBe(0);
    expect(repos.state.collab.size).toBe(0);
  });

  it('stores no image for a project that is not the user’s (404), a stale save (409), nor a bad image (400 naming the node)', async () => {
    expect((await failure(canvas.save(bob, { projectId, nodes: [imageNode('a', await pngDataUrl())], edges: [] }))).code).toBe('project_not_found');
    await canvas.save(ada, { projectId, nodes: [], edges: [], version: 0 });
    for (const version of [0, 2]) {
      const stale = await failure(canvas.save(ada, { projectId, nodes: [imageNode('a', await pngDataUrl())], edges: [], version }));
      expect(stale).toMatchObject({ code: 'canvas_conflict', extra: { version: 1 } });
    }
    const bad = await failure(canvas.save(ada, { projectId, nodes: [imageNode('ok', await pngDataUrl(9)), imageNode('broken', 'data:image/png;base64,!!!!')], edges: [] }));
    expect(bad).toMatchObject({ code: 'invalid_node_image', message: 'Invalid image in node broken' });
    expect(await objects()).toEqual([]);
  });
});
