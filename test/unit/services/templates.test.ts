// The templates service on in-memory repositories: the author is the given user, the list is newest first and
// capped, only the author deletes (403 for someone else's, 404 for a missing one or a malformed id).
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import type { CanvasImages } from '../../../src/services/canvas-images.js';
import { createTemplatesService, type TemplateInput, type TemplatesService } from '../../../src/services/templates.js';
import { createFakeRepositories, type FakeRepositories } from '../../fakes/repositories.js';

let repos: FakeRepositories;
let templates: TemplatesService;
let ada: string;
let bob: string;
/** Files the fake image store wrote, by owner. */
let written: string[];

/** Inline images as the real module does, without the upload rules: each data: URL becomes a file URL. */
const images: CanvasImages = {
  async inline(nodes, owner) {
    const out = nodes.map((n) => (n.data.image?.startsWith('data:') ? { ...n, data: { ...n.data, image: `https://files.example/${owner}/${n.id}.png` } } : n));
    const fresh = out.filter((n, i) => n !== nodes[i]);
    return { nodes: out, newFiles: fresh.length, store: async () => void written.push(...fresh.map((n) => n.data.image!)) };
  },
};

const NODE = { id: 'a', type: 'upload', position: { x: 1, y: 2 }, data: { type: 'upload' } };
const input = (name: string, extra: Partial<TemplateInput> = {}): TemplateInput => ({
  name,
  nodes: [NODE],
  edges: [],
  viewport: { x: 0, y: 0, zoom: 1 },
  ...extra,
});

beforeEach(() => {
  repos = createFakeRepositories();
  written = [];
  templates = createTemplatesService({ templates: repos.templates, images, maxListed: 3, maxBytes: 2000 });
  ada = repos.addUser({ email: 'ada@example.com', name: 'Ada', image: 'https://img.example/ada.png' }).id;
  bob = repos.addUser({ email: 'bob@example.com', name: 'Bob' }).id;
});

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: unknown) => (err instanceof AppError ? err.code : err),
  );

describe('templates service', () => {
  it('stores the template for the given user, with its canvas as JSON text', async () => {
    const { id } = await templates.create(ada, input('Portrait', { viewport: { x: 5, y: -6, zoom: 0.5 } }));
    const [listed] = await templates.list();
    expect(listed).toMatchObject({ id, userId: ada, name: 'Portrait', authorName: 'Ada', authorImage: 'https://img.example/ada.png', edges: '[]' });
    expect(JSON.parse(listed.nodes)).toEqual(input('x').nodes);
    expect(JSON.parse(listed.viewport)).toEqual({ x: 5, y: -6, zoom: 0.5 });
  });

  it('stores images sent inline as files and keeps their URLs, as a canvas save does', async () => {
    const nodes = [{ id: 'a', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: 'data:image/png;base64,AAAA' } }];
    await templates.create(ada, input('Inline', { nodes }));
    const url = `https://files.example/${ada}/a.png`;
    expect(written).toEqual([url]);
    expect(JSON.parse((await templates.list())[0].nodes)).toEqual([{ ...nodes[0], data: { type: 'upload', image: url } }]);
  });

  it('refuses nodes and edges over the byte limit (canvas_too_large, 413) and stores nothing', async () => {
    const nodes = [{ id: 'a', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p'.repeat(2000) } }];
    expect(await code(templates.create(ada, input('Big', { nodes })))).toBe('canvas_too_large');
    expect(repos.state.templates.size).toBe(0);
  });

  it('lists everyone’s templates newest first, at most the configured number', async () => {
    for (const [who, name] of [[ada, 'one'], [bob, 'two'], [ada, 'three'], [bob, 'four']] as const) await templates.create(who, input(name));
    expect((await templates.list()).map((t) => t.name)).toEqual(['four', 'three', 'two']);
  });

  it('shows the author’s current name', async () => {
    await templates.create(ada, input('Renamed later'));
    repos.state.users.get(ada)!.name = 'Ada Lovelace';
    expect((await templates.list())[0].authorName).toBe('Ada Lovelace');
  });

  it('a session whose user no longer exists gets 401 (unauthorized) and publishes nothing', async () => {
    expect(await code(templates.create(randomUUID(), input('Ghost')))).toBe('unauthorized');
    expect(repos.state.templates.size).toBe(0);
  });

  it('deletes only the author’s template: someone else’s is forbidden (403), a missing one template_not_found (404)', async () => {
    const { id } = await templates.create(ada, input('Mine'));
    expect(await code(templates.remove(bob, id))).toBe('forbidden');
    expect(repos.state.templates.has(id)).toBe(true);
    await templates.remove(ada, id);
    expect(await templates.list()).toEqual([]);
    expect(await code(templates.remove(ada, id))).toBe('template_not_found');
    expect(await code(templates.remove(ada, 'not-a-uuid'))).toBe('template_not_found');
    expect(await code(templates.remove(ada, randomUUID()))).toBe('template_not_found');
  });
});
