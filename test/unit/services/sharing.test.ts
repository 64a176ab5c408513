// The sharing service on in-memory repositories (and the canvas service's roles): who may invite, list, remove,
// make and open links; the member limit; the same 404 for a project without a role as for a missing one.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProjectAccess } from '../../../src/auth/project-access.js';
import type { LiveDocuments } from '../../../src/collab/live-documents.js';
import type { CanvasImages } from '../../../src/services/canvas-images.js';
import { createCanvasService, type CanvasService } from '../../../src/services/canvas.js';
import { createProjectsService } from '../../../src/services/projects.js';
import { createSharingService, type Caller, type SharingService } from '../../../src/services/sharing.js';
import { createFakeRepositories, type FakeRepositories } from '../../fakes/repositories.js';
import { failure } from '../../helpers/app-error.js';
import { createUnitLiveDocuments } from '../../helpers/unit-live.js';

let repos: FakeRepositories;
let sharing: SharingService;
let canvas: CanvasService;
let live: LiveDocuments;
let owner: Caller;
let ada: Caller;
let bob: Caller;
let eve: Caller;
let projectId: string;
const MAX = 3;

/** No node of these tests carries a data: URL image, so nothing is ever inlined. */
const noImages: Pick<CanvasImages, 'inline'> = {
  inline: () => Promise.reject(new Error('no inline images in these tests')),
};
const node = (id: string) => ({ id, type: 'upload' as const, position: { x: 0, y: 0 }, data: { type: 'upload' as const } });
const caller = (email: string): Caller => ({ id: repos.addUser({ email }).id, email });
const code = async (p: Promise<unknown>) => (await failure(p)).code;

beforeEach(async () => {
  repos = createFakeRepositories();
  live = createUnitLiveDocuments(repos);
  canvas = createCanvasService({ canvases: repos.canvases, live, images: noImages, maxBytes: 1024 * 1024 });
  sharing = createSharingService({ sharing: repos.sharing, access: createProjectAccess({ sharing: repos.sharing }), transactions: repos.transactions, canvas, maxMembers: MAX });
  [owner, ada, bob, eve] = ['owner@example.com', 'ada@example.com', 'bob@example.com', 'eve@example.com'].map(caller);
  projectId = (await repos.projects.insert({ userId: owner.id, name: 'P' }))!.id;
});
afterEach(() => live.close());

describe('sharing service', () => {
  it('invites by lower-cased email; a second invitation changes the role; the list shows the owner and the members', async () => {
    expect(await sharing.invite(owner, projectId, { email: 'Ada@Example.COM', role: 'viewer' })).toMatchObject({ created: true, member: { email: 'ada@example.com', role: 'viewer' } });
    expect(await sharing.invite(owner, projectId, { email: 'ada@example.com', role: 'editor' })).toMatchObject({ created: false, member: { role: 'editor' } });
    const list = await sharing.list(ada, projectId);
    expect(list).toEqual({ owner: { email: 'owner@example.com', name: 'owner' }, members: [{ email: 'ada@example.com', role: 'editor', createdAt: expect.any(Date) }] });
    expect((await sharing.sharedWith(ada)).map((p) => [p.id, p.role, p.ownerEmail])).toEqual([[projectId, 'editor', 'owner@example.com']]);
    expect(await sharing.sharedWith(bob)).toEqual([]);
  });

  it('refuses the owner as a member and more than the limit of members (a role change at the limit is fine)', async () => {
    const err = await failure(sharing.invite(owner, projectId, { email: 'OWNER@example.com', role: 'editor' }));
    expect([err.code, err.message]).toEqual(['invalid_request', 'The owner cannot be invited']);
    for (let i = 0; i < MAX; i++) await sharing.invite(owner, projectId, { email: `m${i}@example.com`, role: 'viewer' });
    const over = await failure(sharing.invite(owner, projectId, { email: 'more@example.com', role: 'viewer' }));
    expect([over.code, over.message]).toEqual(['invalid_request', `A project has at most ${MAX} members`]);
    expect((await sharing.invite(owner, projectId, { email: 'm0@example.com', role: 'editor' })).created).toBe(false);
    expect(repos.state.members.size).toBe(MAX);
  });

  it('members get 403 on owner-only changes; anyone without a role gets project_not_found, as for a missing project', async () => {
    await sharing.invite(owner, projectId, { email: ada.email, role: 'editor' });
    await sharing.invite(owner, projectId, { email: bob.email, role: 'viewer' });
    expect(await code(sharing.invite(ada, projectId, { email: 'x@example.com', role: 'viewer' }))).toBe('forbidden');
    expect(await code(sharing.remove(ada, projectId, bob.email))).toBe('forbidden');
    expect(await code(sharing.createLink(bob, projectId))).toBe('forbidden');
    expect(await code(sharing.revokeLink(ada, projectId))).toBe('forbidden');
    const projects = createProjectsService({ projects: repos.projects, access: createProjectAccess({ sharing: repos.sharing }) });
    expect(await code(projects.rename(ada.id, projectId, 'Taken'))).toBe('forbidden');
    expect(await code(projects.remove(bob.id, projectId))).toBe('forbidden');
    expect(await code(projects.rename(eve.id, projectId, 'Taken'))).toBe('project_not_found');
    expect(repos.state.projects.get(projectId)?.name).toBe('P');
    for (const id of [projectId, randomUUID(), 'not-a-uuid']) {
      expect(await code(sharing.list(eve, id))).toBe('project_not_found');
      expect(await code(sharing.invite(eve, id, { email: 'x@example.com', role: 'viewer' }))).toBe('project_not_found');
      expect(await code(sharing.remove(eve, id, eve.email))).toBe('project_not_found');
      expect(await code(sharing.createLink(eve, id))).toBe('project_not_found');
    }
    expect(repos.state.members.size).toBe(2);
  });

  it('the owner removes anyone, a member only themselves; a missing member is member_not_found', async () => {
    await sharing.invite(owner, projectId, { email: ada.email, role: 'editor' });
    await sharing.invite(owner, projectId, { email: bob.email, role: 'viewer' });
    await sharing.remove(bob, projectId, 'BOB@example.com');
    expect(await code(sharing.list(bob, projectId))).toBe('project_not_found');
    await sharing.remove(owner, projectId, ada.email);
    expect(await code(sharing.remove(owner, projectId, ada.email))).toBe('member_not_found');
    expect((await sharing.list(owner, projectId)).members).toEqual([]);
  });

  it('a link opens the canvas as its owner reads it; a new one replaces it; revoked or unknown tokens are not_found', async () => {
    await canvas.save(owner.id, { projectId, nodes: [node('a')], edges: [] });
    const { token } = await sharing.createLink(owner, projectId);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(repos.state.links.get(projectId))).not.toContain(token); // only a hash is kept
    const opened = await sharing.openLink(token);
    expect(opened.project).toEqual({ id: projectId, name: 'P' });
    expect(opened.canvasJson).toBe(await canvas.getJson({ userId: owner.id }, projectId));
    const { token: next } = await sharing.createLink(owner, projectId);
    expect(await code(sharing.openLink(token))).toBe('not_found');
    await sharing.revokeLink(owner, projectId);
    await sharing.revokeLink(owner, projectId);
    for (const t of [next, '', 'x', 'A'.repeat(43)]) expect(await code(sharing.openLink(t))).toBe('not_found');
  });
});

describe('canvas roles', () => {
  it('editors read and write, viewers read and get 403 on every kind of save, strangers get project_not_found', async () => {
    await sharing.invite(owner, projectId, { email: ada.email, role: 'editor' });
    await sharing.invite(owner, projectId, { email: bob.email, role: 'viewer' });
    await canvas.save(owner.id, { projectId, nodes: [node('a')], edges: [] });
    expect(JSON.parse(await canvas.save(ada.id, { projectId, nodes: [node('b')], edges: [], version: 1 }))).toMatchObject({ version: 2 });
    expect(JSON.parse((await canvas.getJson({ userId: bob.id }, projectId))!)).toMatchObject({ nodes: [node('b')], version: 2 });
    for (const version of [undefined, 2, 0, 7]) {
      expect(await code(canvas.save(bob.id, { projectId, nodes: [], edges: [], version }))).toBe('forbidden');
      expect(await code(canvas.save(eve.id, { projectId, nodes: [], edges: [], version }))).toBe('project_not_found');
    }
    expect(await code(canvas.getJson({ userId: eve.id }, projectId))).toBe('project_not_found');
    expect(repos.state.canvases.get(projectId)?.version).toBe(2);
  });
});
