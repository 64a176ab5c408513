// The templates service on in-memory repositories: the author is the given user, the list is newest first and
// capped in count and bytes, rendered once per change with the caller's `mine` spliced in, a user has at most
// so many templates, only the author deletes (403 for someone else's, 404 for a missing one or a malformed id).
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { presentTemplateCanvasJson, presentTemplateParts, presentTemplateSummaryParts } from '../../../src/http/presenters.js';
import type { CanvasImages } from '../../../src/services/canvas-images.js';
import type { ListingView } from '../../../src/services/template-listing.js';
import { createTemplatesService, type TemplateInput, type TemplatesService } from '../../../src/services/templates.js';
import { createFakeRepositories, type FakeRepositories } from '../../fakes/repositories.js';

const render = { parts: presentTemplateParts, summaryParts: presentTemplateSummaryParts, canvasJson: presentTemplateCanvasJson };

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
  templates = createTemplatesService({ templates: repos.templates, transactions: repos.transactions, images, render, maxListed: 3, maxListBytes: 100_000, maxPerUser: 4, maxBytes: 2000 });
  ada = repos.addUser({ email: 'ada@example.com', name: 'Ada', image: 'https://img.example/ada.png' }).id;
  bob = repos.addUser({ email: 'bob@example.com', name: 'Bob' }).id;
});

type Listed = { id: string; templateName: string; user: { name: string; image: string }; canvas: { nodes: unknown[]; edges: unknown[]; viewport: unknown }; mine: boolean };
const parse = (view: ListingView) => {
  const text = Buffer.concat(view.chunks).toString();
  expect(Buffer.byteLength(text)).toBe(view.length);
  return JSON.parse(text) as Listed[];
};
const list = async (viewer?: string) => parse(await templates.list(viewer));

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: unknown) => (err instanceof AppError ? err.code : err),
  );

describe('templates service', () => {
  it('stores the template for the given user, with its canvas as JSON text', async () => {
    const { id } = await templates.create(ada, input('Portrait', { viewport: { x: 5, y: -6, zoom: 0.5 } }));
    const [listed] = await list();
    expect(listed).toMatchObject({ id, templateName: 'Portrait', user: { name: 'Ada', image: 'https://img.example/ada.png' }, mine: false });
    expect(listed.canvas).toEqual({ nodes: input('x').nodes, edges: [], viewport: { x: 5, y: -6, zoom: 0.5 } });
  });

  it('stores images sent inline as files and keeps their URLs, as a canvas save does', async () => {
    const nodes = [{ id: 'a', type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: 'data:image/png;base64,AAAA' } }];
    await templates.create(ada, input('Inline', { nodes }));
    const url = `https://files.example/${ada}/a.png`;
    expect(written).toEqual([url]);
    expect((await list())[0].canvas.nodes).toEqual([{ ...nodes[0], data: { type: 'upload', image: url } }]);
  });

  it('refuses nodes and edges over the byte limit (canvas_too_large, 413) and stores nothing', async () => {
    const nodes = [{ id: 'a', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p'.repeat(2000) } }];
    expect(await code(templates.create(ada, input('Big', { nodes })))).toBe('canvas_too_large');
    expect(repos.state.templates.size).toBe(0);
  });

  it('lists everyone’s templates newest first, at most the configured number', async () => {
    for (const [who, name] of [[ada, 'one'], [bob, 'two'], [ada, 'three'], [bob, 'four']] as const) await templates.create(who, input(name));
    expect((await list()).map((t) => t.templateName)).toEqual(['four', 'three', 'two']);
  });

  it('shows the author’s current name', async () => {
    await templates.create(ada, input('Renamed later'));
    await list(); // rendered with the old name
    repos.state.users.get(ada)!.name = 'Ada Lovelace';
    expect((await list())[0].user.name).toBe('Ada Lovelace');
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
    expect(await list()).toEqual([]);
    expect(await code(templates.remove(ada, id))).toBe('template_not_found');
    expect(await code(templates.remove(ada, 'not-a-uuid'))).toBe('template_not_found');
    expect(await code(templates.remove(ada, randomUUID()))).toBe('template_not_found');
  });

  it('renders the list once per change and shares it: every caller, anonymous or not, costs only the fingerprint', async () => {
    await templates.create(ada, input('one'));
    await templates.create(bob, input('two'));
    const calls = { listNewest: 0, canvases: 0 };
    const counted = { ...repos.templates };
    counted.listNewest = (...args) => (calls.listNewest++, repos.templates.listNewest(...args));
    counted.canvases = (...args) => (calls.canvases++, repos.templates.canvases(...args));
    const service = createTemplatesService({ templates: counted, transactions: repos.transactions, images, render, maxListed: 3, maxListBytes: 100_000, maxPerUser: 4, maxBytes: 2000 });
    const views = await Promise.all([service.list(undefined), service.list(ada), service.list(bob), service.list(undefined), service.summaries(ada)]);
    expect(calls).toEqual({ listNewest: 1, canvases: 1 });
    expect(views[3].chunks[0]).toBe(views[0].chunks[0]); // the same bytes, not a copy
    expect(views[3].etag).toBe(views[0].etag);
    await service.create(ada, input('three'));
    await service.list(undefined);
    expect(calls).toEqual({ listNewest: 2, canvases: 2 });
  });

  it('splices the caller’s mine values into the shared bytes, with an ETag of its own', async () => {
    await templates.create(ada, input('hers'));
    await templates.create(bob, input('his'));
    const anonymous = await templates.list(undefined);
    const asAda = await templates.list(ada);
    const asCarol = await templates.list(randomUUID());
    expect(parse(anonymous).map((t) => t.mine)).toEqual([false, false]);
    expect(parse(asAda).map((t) => [t.templateName, t.mine])).toEqual([['his', false], ['hers', true]]);
    expect(asAda).toMatchObject({ personal: true, length: anonymous.length - 1 });
    expect(asAda.etag).not.toBe(anonymous.etag);
    expect(asCarol).toMatchObject({ personal: false, etag: anonymous.etag });
    expect(parse(await templates.summaries(bob)).map((t) => t.mine)).toEqual([true, false]);
  });

  it('holds the original list to its byte budget: newest first, skipping one that does not fit in what is left', async () => {
    const small = (name: string) => input(name);
    const big = (name: string) => input(name, { nodes: [{ id: 'b', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p'.repeat(1500) } }] });
    const service = createTemplatesService({ templates: repos.templates, transactions: repos.transactions, images, render, maxListed: 10, maxListBytes: 1200, maxPerUser: 10, maxBytes: 2000 });
    await service.create(ada, small('oldest'));
    await service.create(ada, small('older'));
    await service.create(ada, big('big'));
    await service.create(bob, small('newest'));
    const view = await service.list(undefined);
    expect(view.length).toBeLessThanOrEqual(1200);
    expect(parse(view).map((t) => t.templateName)).toEqual(['newest', 'older', 'oldest']);
    // Our client's listing has them all, the big one included, without canvases.
    const summaries = parse(await service.summaries(undefined)) as unknown as Array<{ name: string; nodeCount: number }>;
    expect(summaries.map((t) => [t.name, t.nodeCount])).toEqual([['newest', 1], ['big', 1], ['older', 1], ['oldest', 1]]);
  });

  it('refuses a publish over the per-user cap (400 naming it) and stores nothing; a deleted one frees a place', async () => {
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await templates.create(ada, input(`t${i}`))).id);
    const refused = await templates.create(ada, input('one too many')).catch((err: AppError) => err);
    expect(refused).toMatchObject({ code: 'invalid_request', message: 'A user has at most 4 templates' });
    expect(repos.state.templates.size).toBe(4);
    expect((await templates.create(bob, input('his'))).id).toEqual(expect.any(String)); // per user
    await templates.remove(ada, ids[0]);
    expect((await templates.create(ada, input('again'))).id).toEqual(expect.any(String));
  });

  it('answers one template’s canvas with its id as ETag, null for a current copy, 404 for a missing or malformed id', async () => {
    const { id } = await templates.create(ada, input('Portrait'));
    const read = await templates.canvas(id, undefined);
    expect(read.etag).toBe(`"${id}"`);
    expect(JSON.parse(read.body!.toString())).toEqual({ id, name: 'Portrait', canvas: { nodes: [NODE], edges: [], viewport: { x: 0, y: 0, zoom: 1 } } });
    expect(await templates.canvas(id, `W/"x", "${id}"`)).toEqual({ etag: `"${id}"`, body: null });
    expect(await code(templates.canvas(randomUUID(), undefined))).toBe('template_not_found');
    expect(await code(templates.canvas('not-a-uuid', undefined))).toBe('template_not_found');
    await templates.remove(ada, id);
    expect(await code(templates.canvas(id, `"${id}"`))).toBe('template_not_found');
  });
});
