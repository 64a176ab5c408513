// ProjectsRepository (src/db/repositories/projects.ts): every statement scoped by the owner, and a deleted project
// taking its canvas, document, members, link and running generations with it (ON DELETE CASCADE), while its
// generations stay, with no project (ON DELETE SET NULL).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEmptyCanvas, newGeneration, newProject, newUser, type RepositoriesUnderTest } from './harness.js';

export function projectsContract(repos: RepositoriesUnderTest) {
  describe('projects', () => {
    it('inserts a project of an existing user, and none of a missing one', async () => {
      const r = repos();
      const user = await newUser(r);
      const project = await r.projects.insert({ userId: user.id, name: 'First' });
      expect(project).toMatchObject({ userId: user.id, name: 'First' });
      expect(project!.createdAt).toBeInstanceOf(Date);
      expect(await r.projects.insert({ userId: randomUUID(), name: 'Nobody' })).toBeNull();
    });

    it("lists the owner's projects oldest first, and no one else's", async () => {
      const r = repos();
      const [ann, bob] = [await newUser(r), await newUser(r)];
      const first = await newProject(r, ann.id, 'one');
      const second = await newProject(r, ann.id, 'two');
      await newProject(r, bob.id, 'bob');
      expect(await r.projects.listByOwner(ann.id)).toEqual([first, second]);
    });

    it('renames and deletes only for the owner', async () => {
      const r = repos();
      const [ann, bob] = [await newUser(r), await newUser(r)];
      const project = await newProject(r, ann.id);
      expect(await r.projects.renameOwned(bob.id, project.id, 'Taken')).toBeNull();
      expect(await r.projects.renameOwned(ann.id, randomUUID(), 'Missing')).toBeNull();
      const [listed] = await r.projects.listByOwner(ann.id);
      expect(await r.projects.renameOwned(ann.id, project.id, 'Renamed')).toEqual({ ...project, name: 'Renamed' });
      // Rows are values: the rename changes none answered before.
      expect([project.name, listed.name]).toEqual(['Project', 'Project']);
      expect(await r.projects.deleteOwned(bob.id, project.id)).toBe(false);
      expect(await r.projects.deleteOwned(ann.id, project.id)).toBe(true);
      expect(await r.projects.deleteOwned(ann.id, project.id)).toBe(false);
      expect(await r.projects.listByOwner(ann.id)).toEqual([]);
    });

    it('a deleted project takes its canvas, document, members and link with it', async () => {
      const r = repos();
      const [ann, bob] = [await newUser(r), await newUser(r)];
      const project = await newProject(r, ann.id);
      await createEmptyCanvas(r, { id: randomUUID(), projectId: project.id, userId: ann.id });
      await r.collab.append([{ projectId: project.id, update: new Uint8Array([0, 0]) }]);
      await r.sharing.upsertMember({ projectId: project.id, email: bob.email, role: 'editor', invitedBy: ann.id });
      const token = `hash-${randomUUID()}`;
      await r.sharing.replaceLink(project.id, token, ann.id);

      expect(await r.projects.deleteOwned(ann.id, project.id)).toBe(true);
      expect(await r.collab.load(project.id)).toEqual({ snapshot: null, updates: [], legacy: null, version: 0 });
      expect(await r.generations.canvasVersion(project.id)).toBeNull();
      expect(await r.sharing.listSharedWith(bob.id)).toEqual([]);
      expect(await r.sharing.findLink(token)).toBeNull();
    });

    it("a deleted project's generations stay, with no project", async () => {
      const r = repos();
      const ann = await newUser(r);
      const project = await newProject(r, ann.id);
      const made = newGeneration(ann, { projectId: project.id, nodeId: 'n1' });
      await r.generations.insert(made);
      await r.projects.deleteOwned(ann.id, project.id);
      const [kept] = await r.generations.listByUser(ann.id, { limit: 10 });
      expect(kept).toMatchObject({ id: made.id, projectId: null, nodeId: 'n1' });
      expect(await r.generations.listByUser(ann.id, { limit: 10, projectId: project.id })).toEqual([]);
    });

    it('lists the activity of the projects a user owns or is a member of: canvas version and last change', async () => {
      const r = repos();
      const [ann, bob, eve] = [await newUser(r), await newUser(r), await newUser(r)];
      const own = await newProject(r, ann.id);
      const shared = await newProject(r, bob.id);
      await newProject(r, eve.id);
      await r.sharing.upsertMember({ projectId: shared.id, email: ann.email, role: 'viewer', invitedBy: bob.id });
      await r.collab.append([
        { projectId: shared.id, update: null },
        { projectId: shared.id, update: null },
      ]);
      const activity = await r.projects.listActivity(ann.id);
      const byProject = new Map(activity.map((a) => [a.projectId, a]));
      expect([...byProject.keys()].sort()).toEqual([own.id, shared.id].sort());
      expect(byProject.get(own.id)).toEqual({ projectId: own.id, version: 0, editedAt: own.createdAt });
      expect(byProject.get(shared.id)).toMatchObject({ version: 2 });
      expect(byProject.get(shared.id)!.editedAt.getTime()).toBeGreaterThanOrEqual(shared.createdAt.getTime());
    });
  });
}
