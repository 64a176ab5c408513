// The one project-access rule (src/auth/project-access.ts; docs/api.md "Who may do what"), route by route: every
// route that acts on a project answers each of owner, editor, viewer, a signed-in stranger, and a project that does
// not exist exactly as PERMISSIONS says — allowed: the route's own success; no role (or no project): 404 Project not
// found, the same answer either way; a role without the action: 403 Forbidden. A route that checks a role of its own
// instead of asking the rule fails here as soon as the two differ. The read-only link's page is the rule's `link`.
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, refusal, type Access, type ProjectAction } from '../../src/auth/project-access.js';
import { statusOf } from '../../src/http/error-handler.js';
import type { HttpClient, Sent } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

type Who = { client: HttpClient; id: string; email: string };
type ActorName = 'owner' | 'editor' | 'viewer' | 'stranger' | 'missing';
/** One project with its owner, an editor, a viewer and a read-only link; `missing` is a project id nobody has. */
type Cell = { projectId: string; token: string; as: Who; members: { editor: Who; viewer: Who } };

let t: TestApp;
let who: Record<Exclude<ActorName, 'missing'>, Who>;

const gen = { id: 'g', type: 'generation', position: { x: 0, y: 0 }, data: { type: 'generation', prompt: 'p' } };
const input = async () => `data:image/png;base64,${(await sharp({ create: { width: 8, height: 8, channels: 3, background: '#36c' } }).png().toBuffer()).toString('base64')}`;
const del = (w: Who, path: string) => w.client.request(path, { method: 'DELETE' });
const project = (id: string) => `/api/user/project/${id}`;
const members = (id: string) => `${project(id)}/members`;

/** Each route that acts on a project, the action it asks the rule for, and what it answers when allowed. */
const ROUTES: Array<{ route: string; action: ProjectAction; ok: (actor: ActorName) => number; call: (c: Cell) => Promise<Sent> }> = [
  { route: 'GET /api/user/project/canvas', action: 'view', ok: () => 200, call: (c) => c.as.client.get(`/api/user/project/canvas?projectId=${c.projectId}`) },
  { route: 'GET …/thumbnail', action: 'read', ok: () => 200, call: (c) => c.as.client.get(`${project(c.projectId)}/thumbnail`) },
  { route: 'GET …/versions', action: 'read', ok: () => 200, call: (c) => c.as.client.get(`${project(c.projectId)}/versions`) },
  { route: 'GET /api/projects/:id/generations', action: 'read', ok: () => 200, call: (c) => c.as.client.get(`/api/projects/${c.projectId}/generations`) },
  { route: 'GET …/members', action: 'read', ok: () => 200, call: (c) => c.as.client.get(members(c.projectId)) },
  { route: 'POST /api/user/project/canvas', action: 'edit', ok: () => 200, call: (c) => c.as.client.post('/api/user/project/canvas', { projectId: c.projectId, nodes: [gen, { ...gen, id: 'h' }], edges: [] }) },
  { route: 'POST …/versions', action: 'edit', ok: () => 201, call: (c) => c.as.client.post(`${project(c.projectId)}/versions`, { name: 'Kept' }) },
  { route: 'POST …/example', action: 'edit', ok: () => 200, call: (c) => c.as.client.request(`${project(c.projectId)}/example`, { method: 'POST' }) },
  {
    route: 'POST /api/image into a node',
    action: 'generate',
    ok: () => 200,
    call: async (c) => c.as.client.post('/api/image', { images: [await input()], prompt: 'sepia', projectId: c.projectId, nodeId: 'g' }),
  },
  // The owner is no member: leaving finds none (404 Member not found), past the rule.
  { route: 'DELETE …/members/<own email>', action: 'leave', ok: (a) => (a === 'owner' ? 404 : 204), call: (c) => del(c.as, `${members(c.projectId)}/${encodeURIComponent(c.as.email)}`) },
  { route: 'POST …/members', action: 'share', ok: () => 201, call: (c) => c.as.client.post(members(c.projectId), { email: 'new@example.com', role: 'viewer' }) },
  {
    route: "DELETE …/members/<another's email>",
    action: 'share',
    ok: () => 204,
    call: (c) => del(c.as, `${members(c.projectId)}/${encodeURIComponent((c.as === c.members.viewer ? c.members.editor : c.members.viewer).email)}`),
  },
  { route: 'POST …/share-link', action: 'share', ok: () => 201, call: (c) => c.as.client.request(`${project(c.projectId)}/share-link`, { method: 'POST' }) },
  { route: 'DELETE …/share-link', action: 'share', ok: () => 204, call: (c) => del(c.as, `${project(c.projectId)}/share-link`) },
  { route: 'PATCH /api/user/project/:id', action: 'rename', ok: () => 200, call: (c) => c.as.client.request(project(c.projectId), { method: 'PATCH', json: { name: 'Renamed' } }) },
  { route: 'DELETE /api/user/project/:id', action: 'delete', ok: () => 204, call: (c) => del(c.as, project(c.projectId)) },
];

const ACTORS: ActorName[] = ['owner', 'editor', 'viewer', 'stranger', 'missing'];
/** What the actor holds on the cell's project. */
const HOLDS: Record<ActorName, Access> = { owner: 'owner', editor: 'editor', viewer: 'viewer', stranger: 'none', missing: 'none' };

/** A new project of the owner's with a generation node, an editor, a viewer and a read-only link (routes change them). */
async function cell(actor: ActorName): Promise<Cell> {
  const { owner, editor, viewer } = who;
  const projectId = (await owner.client.post('/api/user/project', { userId: owner.id, name: 'Access' })).json.id as string;
  expect((await owner.client.post('/api/user/project/canvas', { projectId, nodes: [gen], edges: [] })).status).toBe(200);
  expect((await owner.client.post(members(projectId), { email: editor.email, role: 'editor' })).status).toBe(201);
  expect((await owner.client.post(members(projectId), { email: viewer.email, role: 'viewer' })).status).toBe(201);
  const link = await owner.client.request(`${project(projectId)}/share-link`, { method: 'POST' });
  expect(link.status).toBe(201);
  const as = actor === 'missing' ? owner : who[actor];
  return { projectId: actor === 'missing' ? randomUUID() : projectId, token: link.json.token as string, as, members: { editor, viewer } };
}

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_GENERATIONS_PER_MINUTE: '1000', RATE_LIMIT_VERSIONS_PER_MINUTE: '1000', RATE_LIMIT_SHARED_PER_MINUTE: '1000' });
  const [owner, editor, viewer, stranger] = await Promise.all(['owner', 'editor', 'viewer', 'stranger'].map((n) => t.user(`${n}@example.com`, n)));
  who = { owner, editor, viewer, stranger };
}, 60_000);
afterAll(() => t?.close());

describe('who may do what on a project (PERMISSIONS), on every route', () => {
  it('names every action of the rule at least once', () => {
    expect(new Set(ROUTES.map((r) => r.action))).toEqual(new Set(Object.keys(PERMISSIONS)));
  });

  for (const { route, action, ok, call } of ROUTES) {
    it(`${route} (${action}): ${PERMISSIONS[action].join(', ')} — anyone else is refused`, async () => {
      const answers: Record<string, { status: number; error?: string }> = {};
      const expected: typeof answers = {};
      for (const actor of ACTORS) {
        const res = await call(await cell(actor));
        answers[actor] = { status: res.status, ...(res.status >= 400 ? { error: res.json?.error } : {}) };
        const refused = refusal(HOLDS[actor], action);
        expected[actor] = refused ? { status: statusOf(refused.code), error: refused.message } : { status: ok(actor), ...(ok(actor) >= 400 ? { error: 'Member not found' } : {}) };
      }
      expect(answers).toEqual(expected);
    });
  }

  it('the read-only link (`link`) may view the canvas and nothing else; revoked, it is 404 Not found', async () => {
    expect(PERMISSIONS.view).toContain('link');
    const c = await cell('owner');
    const page = await t.client().get(`/api/shared/${c.token}`);
    expect(page).toMatchObject({ status: 200, json: { project: { id: c.projectId, name: 'Access' }, canvas: { nodes: [gen] } } });
    // The link has no session: every other route asks for one.
    expect((await t.client().get(members(c.projectId))).status).toBe(401);
    expect((await del(c.as, `${project(c.projectId)}/share-link`)).status).toBe(204);
    expect(await t.client().get(`/api/shared/${c.token}`)).toMatchObject({ status: 404, json: { error: 'Not found' } });
  });
});
