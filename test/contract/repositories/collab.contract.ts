// CollabRepository (src/db/repositories/collab.ts): a live document as snapshot + update log; each appended change
// steps the project's canvas version.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { MergeStored } from '../../../src/db/repositories/index.js';
import { mergeParts, partsOf } from '../../../src/collab/stored-document.js';
import { failureOf, newProject, newUser, type RepositoriesUnderTest } from './harness.js';

/** The live documents' merge (src/collab/stored-document.ts), on this thread. */
const merge: MergeStored = async (stored) => mergeParts(partsOf(stored), { measure: false }).state;
const every = { merge, restorePointMs: 60_000 };

/** Successive updates of one document, each setting `key` of its map `m`. */
function updates(...keys: string[]): Uint8Array[] {
  const doc = new Y.Doc();
  const out: Uint8Array[] = [];
  doc.on('update', (u: Uint8Array) => out.push(u));
  for (const key of keys) doc.getMap('m').set(key, key.toUpperCase());
  doc.destroy();
  return out;
}

const contentOf = (stored: { snapshot: Uint8Array | null; updates: Uint8Array[] }) => {
  const doc = new Y.Doc();
  if (stored.snapshot) Y.applyUpdate(doc, stored.snapshot);
  for (const u of stored.updates) Y.applyUpdate(doc, u);
  const json = doc.getMap('m').toJSON();
  doc.destroy();
  return json;
};

export function collabContract(repos: RepositoriesUnderTest) {
  describe('collab', () => {
    it('loads an empty document at version 0 for a project without changes', async () => {
      const r = repos();
      const project = await newProject(r, (await newUser(r)).id);
      expect(await r.collab.load(project.id)).toEqual({ snapshot: null, updates: [], legacy: null, version: 0 });
    });

    it('appends a batch for several projects: updates kept in order, every change (also a version step) counted', async () => {
      const r = repos();
      const owner = await newUser(r);
      const [a, b] = [await newProject(r, owner.id), await newProject(r, owner.id)];
      const [u1, u2, u3] = updates('x', 'y', 'z');
      const versions = await r.collab.append([
        { projectId: a.id, update: u1 },
        { projectId: b.id, update: u3 },
        { projectId: a.id, update: null },
        { projectId: a.id, update: u2 },
      ]);
      expect(Object.fromEntries(versions)).toEqual({ [a.id]: 3, [b.id]: 1 });
      const loaded = await r.collab.load(a.id);
      expect(loaded).toMatchObject({ snapshot: null, legacy: null, version: 3 });
      expect(loaded.updates.map((u) => [...u])).toEqual([[...u1], [...u2]]);
      expect(await r.generations.canvasVersion(a.id)).toBe(3);
      expect(Object.fromEntries(await r.collab.append([{ projectId: b.id, update: null }]))).toEqual({ [b.id]: 2 });
    });

    it("refuses a whole batch naming a project that does not exist (PostgreSQL's foreign_key_violation)", async () => {
      const r = repos();
      const project = await newProject(r, (await newUser(r)).id);
      const [u1] = updates('x');
      const error = await failureOf(r.collab.append([{ projectId: project.id, update: u1 }, { projectId: randomUUID(), update: u1 }]));
      expect(error).toMatchObject({ code: '23503' });
      expect(await r.collab.load(project.id)).toEqual({ snapshot: null, updates: [], legacy: null, version: 0 });
    });

    it('compacts the updates into the snapshot, keeping the content and the version', async () => {
      const r = repos();
      const project = await newProject(r, (await newUser(r)).id);
      await r.collab.append(updates('x', 'y').map((update) => ({ projectId: project.id, update })));
      expect(await r.collab.compact(project.id, every)).toBe(2);
      const compacted = await r.collab.load(project.id);
      expect(compacted).toMatchObject({ updates: [], version: 2 });
      expect(compacted.snapshot).not.toBeNull();
      expect(contentOf(compacted)).toEqual({ x: 'X', y: 'Y' });
      expect(await r.collab.compact(project.id, every)).toBe(0);

      const doc = new Y.Doc();
      Y.applyUpdate(doc, compacted.snapshot!);
      const later: Uint8Array[] = [];
      doc.on('update', (u: Uint8Array) => later.push(u));
      doc.getMap('m').set('z', 'Z');
      doc.destroy();
      await r.collab.append([{ projectId: project.id, update: later[0] }]);
      expect(await r.collab.compact(project.id, every)).toBe(1);
      expect(contentOf(await r.collab.load(project.id))).toEqual({ x: 'X', y: 'Y', z: 'Z' });
    });

    it('a compaction whose merge fails changes nothing', async () => {
      const r = repos();
      const project = await newProject(r, (await newUser(r)).id);
      await r.collab.append(updates('x', 'y').map((update) => ({ projectId: project.id, update })));
      const before = await r.collab.load(project.id);
      const failing: MergeStored = async () => {
        throw new Error('the merge failed');
      };
      expect(await failureOf(r.collab.compact(project.id, { merge: failing, restorePointMs: 0 }))).toMatchObject({ message: 'the merge failed' });
      expect(await r.collab.load(project.id)).toEqual(before);
      expect(await r.collab.compact(project.id, every)).toBe(2);
    });

    it('a compaction deletes exactly the rows it read: a change stored while it merges stays in the log', async () => {
      const r = repos();
      const project = await newProject(r, (await newUser(r)).id);
      const [u1, u2, u3] = updates('x', 'y', 'z');
      await r.collab.append([u1, u2].map((update) => ({ projectId: project.id, update })));
      const meanwhile: MergeStored = async (stored) => {
        await r.collab.append([{ projectId: project.id, update: u3 }]);
        return merge(stored);
      };
      expect(await r.collab.compact(project.id, { merge: meanwhile, restorePointMs: 60_000 })).toBe(2);
      const after = await r.collab.load(project.id);
      expect(after.updates.map((u) => [...u])).toEqual([[...u3]]);
      expect(contentOf(after)).toEqual({ x: 'X', y: 'Y', z: 'Z' });
      expect(after.version).toBe(3);
    });

    it('moves no legacy canvas when the project has none', async () => {
      const r = repos();
      const project = await newProject(r, (await newUser(r)).id);
      await r.collab.append([{ projectId: project.id, update: null }]);
      expect(await r.collab.migrateLegacy(project.id, updates('x')[0])).toBe(false);
      expect(await r.collab.load(project.id)).toEqual({ snapshot: null, updates: [], legacy: null, version: 1 });
    });
  });
}
