// CanvasesRepository (src/db/repositories/canvases.ts): the canvas row, the caller's role, and whether a job of the
// caller, the owner or an editor is running.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CanvasIdTakenError } from '../../../src/db/repositories/index.js';
import { createEmptyCanvas, currentCanvas, endJob, failureOf, newJob, newProject, newUser, runningJob, type ContractRepositories, type RepositoriesUnderTest } from './harness.js';

/** A project of a new owner, with an editor, a viewer and a stranger. */
async function sharedProject(r: ContractRepositories) {
  const [owner, editor, viewer, stranger] = [await newUser(r), await newUser(r), await newUser(r), await newUser(r)];
  const project = await newProject(r, owner.id);
  await r.sharing.upsertMember({ projectId: project.id, email: editor.email, role: 'editor', invitedBy: owner.id });
  await r.sharing.upsertMember({ projectId: project.id, email: viewer.email, role: 'viewer', invitedBy: owner.id });
  return { owner, editor, viewer, stranger, project };
}

export function canvasesContract(repos: RepositoriesUnderTest) {
  describe('canvases', () => {
    it("answers each user's role, no canvas before the first save, and nothing to a stranger", async () => {
      const r = repos();
      const { owner, editor, viewer, stranger, project } = await sharedProject(r);
      expect(await currentCanvas(r, owner.id, project.id)).toEqual({ id: null, version: null, generating: false, role: 'owner' });
      expect(await currentCanvas(r, editor.id, project.id)).toMatchObject({ role: 'editor' });
      expect(await currentCanvas(r, viewer.id, project.id)).toMatchObject({ role: 'viewer' });
      expect(await currentCanvas(r, stranger.id, project.id)).toBeNull();
      expect(await currentCanvas(r, owner.id, randomUUID())).toBeNull();
    });

    it('makes an empty canvas (version 0) for a writer only, once per project', async () => {
      const r = repos();
      const { owner, editor, viewer, project } = await sharedProject(r);
      await createEmptyCanvas(r, { id: randomUUID(), projectId: project.id, userId: viewer.id });
      expect(await currentCanvas(r, owner.id, project.id)).toMatchObject({ id: null, version: null });
      const id = randomUUID();
      await createEmptyCanvas(r, { id, projectId: project.id, userId: editor.id });
      await createEmptyCanvas(r, { id: randomUUID(), projectId: project.id, userId: owner.id });
      expect(await currentCanvas(r, owner.id, project.id)).toMatchObject({ id, version: 0 });
    });

    it("refuses another project's canvas id", async () => {
      const r = repos();
      const owner = await newUser(r);
      const [a, b] = [await newProject(r, owner.id), await newProject(r, owner.id)];
      const id = randomUUID();
      await createEmptyCanvas(r, { id, projectId: a.id, userId: owner.id });
      expect(await failureOf(createEmptyCanvas(r, { id, projectId: b.id, userId: owner.id }))).toBeInstanceOf(CanvasIdTakenError);
      expect(await currentCanvas(r, owner.id, b.id)).toMatchObject({ id: null });
    });

    it("says a job is running when the caller's, the owner's or an editor's is, not a viewer's or a stranger's", async () => {
      const r = repos();
      const { owner, editor, viewer, stranger, project } = await sharedProject(r);
      const generating = async (userId: string) => (await currentCanvas(r, userId, project.id))!.generating;

      const strangers = await runningJob(r, stranger.id);
      const viewers = await runningJob(r, viewer.id);
      await newJob(r, editor.id, project.id); // queued: not running
      expect(await generating(owner.id)).toBe(false);
      expect(await generating(viewer.id)).toBe(true); // the caller's own

      const editors = await runningJob(r, editor.id);
      expect(await generating(owner.id)).toBe(true);
      await endJob(r, editors);
      expect(await generating(owner.id)).toBe(false);

      const owners = await runningJob(r, owner.id);
      expect(await generating(editor.id)).toBe(true);
      await endJob(r, owners);
      expect(await generating(editor.id)).toBe(false);
      await endJob(r, strangers);
      await endJob(r, viewers);
    });
  });
}
