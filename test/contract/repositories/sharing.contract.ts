// SharingRepository (src/db/repositories/sharing.ts): members by email with a role, and a project's link.
// Member emails are lower-case (the services lower them; the table checks it).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { accessOf, currentCanvas, newProject, newUser, type RepositoriesUnderTest } from './harness.js';

export function sharingContract(repos: RepositoriesUnderTest) {
  describe('sharing', () => {
    it("answers the user's role on a project with its owner; null for others and for a missing project", async () => {
      const r = repos();
      const [owner, bob, eve] = [await newUser(r, { name: 'Olivia' }), await newUser(r), await newUser(r)];
      const project = await newProject(r, owner.id, 'Shared');
      await r.sharing.upsertMember({ projectId: project.id, email: bob.email, role: 'viewer', invitedBy: owner.id });
      const seen = { projectName: 'Shared', ownerId: owner.id, ownerEmail: owner.email, ownerName: 'Olivia' };
      expect(await accessOf(r, owner.id, project.id)).toEqual({ role: 'owner', ...seen });
      expect(await accessOf(r, bob.id, project.id)).toEqual({ role: 'viewer', ...seen });
      expect(await accessOf(r, eve.id, project.id)).toBeNull();
      expect(await accessOf(r, owner.id, randomUUID())).toBeNull();
    });

    it('adds a member, then changes its role; lists members oldest first; removes one', async () => {
      const r = repos();
      const owner = await newUser(r);
      const project = await newProject(r, owner.id);
      const first = await r.sharing.upsertMember({ projectId: project.id, email: 'zed@example.com', role: 'viewer', invitedBy: owner.id });
      expect(first).toMatchObject({ created: true, member: { email: 'zed@example.com', role: 'viewer' } });
      expect(first.member.createdAt).toBeInstanceOf(Date);
      await r.sharing.upsertMember({ projectId: project.id, email: 'amy@example.com', role: 'editor', invitedBy: owner.id });
      const changed = await r.sharing.upsertMember({ projectId: project.id, email: 'zed@example.com', role: 'editor', invitedBy: owner.id });
      expect(changed).toEqual({ created: false, member: { ...first.member, role: 'editor' } });
      expect((await r.sharing.listMembers(project.id)).map((m) => [m.email, m.role])).toEqual([
        ['zed@example.com', 'editor'],
        ['amy@example.com', 'editor'],
      ]);
      expect(await r.sharing.removeMember(project.id, 'zed@example.com')).toBe(true);
      expect(await r.sharing.removeMember(project.id, 'zed@example.com')).toBe(false);
      expect((await r.sharing.listMembers(project.id)).map((m) => m.email)).toEqual(['amy@example.com']);
    });

    it('refuses a member of a missing project, and an email that is not lower-case', async () => {
      const r = repos();
      const owner = await newUser(r);
      await expect(r.sharing.upsertMember({ projectId: randomUUID(), email: 'x@example.com', role: 'viewer', invitedBy: owner.id })).rejects.toBeDefined();
      const project = await newProject(r, owner.id);
      await expect(r.sharing.upsertMember({ projectId: project.id, email: 'Bob@example.com', role: 'viewer', invitedBy: owner.id })).rejects.toBeDefined();
      expect(await r.sharing.listMembers(project.id)).toEqual([]);
    });

    it("matches members by the lower-cased email of the user's record", async () => {
      const r = repos();
      const owner = await newUser(r);
      const email = `Bob-${randomUUID()}@Example.com`;
      const bob = await newUser(r, { email });
      const project = await newProject(r, owner.id);
      await r.sharing.upsertMember({ projectId: project.id, email: email.toLowerCase(), role: 'editor', invitedBy: owner.id });
      expect(await accessOf(r, bob.id, project.id)).toMatchObject({ role: 'editor' });
      expect(await r.sharing.listSharedWith(bob.id)).toMatchObject([{ id: project.id, role: 'editor' }]);
      expect((await r.projects.listActivity(bob.id)).map((a) => a.projectId)).toEqual([project.id]);
      expect(await currentCanvas(r, bob.id, project.id)).toMatchObject({ role: 'editor' });
    });

    it('lists the projects shared with a user, oldest first, with the role and the owner', async () => {
      const r = repos();
      const [owner, bob] = [await newUser(r, { name: 'Olivia' }), await newUser(r)];
      const a = await newProject(r, owner.id, 'a');
      const b = await newProject(r, owner.id, 'b');
      await newProject(r, owner.id, 'not shared');
      await r.sharing.upsertMember({ projectId: b.id, email: bob.email, role: 'viewer', invitedBy: owner.id });
      await r.sharing.upsertMember({ projectId: a.id, email: bob.email, role: 'editor', invitedBy: owner.id });
      const owned = { userId: owner.id, ownerEmail: owner.email, ownerName: 'Olivia' };
      expect(await r.sharing.listSharedWith(bob.id)).toEqual([
        { id: a.id, name: 'a', createdAt: a.createdAt, role: 'editor', ...owned },
        { id: b.id, name: 'b', createdAt: b.createdAt, role: 'viewer', ...owned },
      ]);
      expect(await r.sharing.listSharedWith(owner.id)).toEqual([]);
    });

    it("sets, replaces, finds and deletes a project's link", async () => {
      const r = repos();
      const owner = await newUser(r);
      const project = await newProject(r, owner.id, 'Linked');
      const [first, second] = [`h-${randomUUID()}`, `h-${randomUUID()}`];
      await r.sharing.replaceLink(project.id, first, owner.id);
      expect(await r.sharing.findLink(first)).toEqual({ projectId: project.id, projectName: 'Linked', ownerId: owner.id });
      await r.sharing.replaceLink(project.id, second, owner.id);
      expect(await r.sharing.findLink(first)).toBeNull();
      expect(await r.sharing.findLink(second)).toMatchObject({ projectId: project.id });
      expect(await r.sharing.deleteLink(project.id)).toBe(true);
      expect(await r.sharing.deleteLink(project.id)).toBe(false);
      expect(await r.sharing.findLink(second)).toBeNull();
      await expect(r.sharing.replaceLink(randomUUID(), `h-${randomUUID()}`, owner.id)).rejects.toBeDefined();
    });

    it("answers a read-only link's holder as `link`, only while the project's link has that hash", async () => {
      const r = repos();
      const owner = await newUser(r, { name: 'Olivia' });
      const project = await newProject(r, owner.id, 'Linked');
      const linkHash = `h-${randomUUID()}`;
      expect(await r.sharing.access({ linkHash }, project.id)).toBeNull();
      await r.sharing.replaceLink(project.id, linkHash, owner.id);
      expect(await r.sharing.access({ linkHash }, project.id)).toEqual({ role: 'link', projectName: 'Linked', ownerId: owner.id, ownerEmail: owner.email, ownerName: 'Olivia' });
      expect(await r.canvases.current({ linkHash }, project.id)).toEqual({ id: null, version: null, generating: false, role: 'link' });
      expect(await r.sharing.access({ linkHash: `h-${randomUUID()}` }, project.id)).toBeNull();
      expect(await r.canvases.current({ linkHash }, (await newProject(r, owner.id)).id)).toBeNull();
      await r.sharing.deleteLink(project.id);
      expect(await r.sharing.access({ linkHash }, project.id)).toBeNull();
      expect(await r.canvases.current({ linkHash }, project.id)).toBeNull();
    });

    it('locks a project row in a transaction; false for a missing project', async () => {
      const r = repos();
      const project = await newProject(r, (await newUser(r)).id);
      await r.transactions.transaction(async (tx) => {
        expect(await r.sharing.lockProject(project.id, tx)).toBe(true);
        expect(await r.sharing.lockProject(randomUUID(), tx)).toBe(false);
      });
    });
  });
}
