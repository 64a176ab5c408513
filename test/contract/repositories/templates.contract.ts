// TemplatesRepository (src/db/repositories/templates.ts): canvases published under a name, stored as the JSON text
// sent, listed with their author's current name and picture.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newUser, type RepositoriesUnderTest } from './harness.js';

const canvas = {
  nodes: '[{"id":"a","data":{"image":"data:image/png;base64,AAAA"}},{"id":"b","data":{"image":"/files/b.png"}} ]',
  edges: '[{"id":"e","source":"a","target":"b"}]',
  viewport: '{"x":0,"y":0,"zoom":1}',
};

export function templatesContract(repos: RepositoriesUnderTest) {
  describe('templates', () => {
    it('stores a template as sent and reads it back; none for a missing author', async () => {
      const r = repos();
      const ann = await newUser(r);
      const made = await r.templates.insert({ userId: ann.id, name: 'Boats', ...canvas });
      expect(made).toEqual({ id: expect.any(String) });
      expect(await r.templates.findWithCanvas(made!.id)).toEqual({ id: made!.id, name: 'Boats', userId: ann.id, ...canvas });
      expect(await r.templates.findAuthor(made!.id)).toEqual({ userId: ann.id });
      expect(await r.templates.canvases([made!.id, randomUUID()])).toEqual([{ id: made!.id, ...canvas }]);
      expect(await r.templates.canvases([])).toEqual([]);
      expect(await r.templates.findWithCanvas(randomUUID())).toBeNull();
      expect(await r.templates.findAuthor(randomUUID())).toBeNull();
      expect(await r.templates.insert({ userId: randomUUID(), name: 'Nobody', ...canvas })).toBeNull();
    });

    it("answers a template's size, counts and preview (the first node image that is a web address)", async () => {
      const r = repos();
      const ann = await newUser(r);
      const { id } = (await r.templates.insert({ userId: ann.id, name: 'Stats', ...canvas }))!;
      const bare = (await r.templates.insert({ userId: ann.id, name: 'Bare', nodes: '[{"id":"x","data":{"image":"ftp://x"}}]', edges: '[]', viewport: '{}' }))!;
      const bytes = Buffer.byteLength(canvas.nodes) + Buffer.byteLength(canvas.edges) + Buffer.byteLength(canvas.viewport);
      const stats = await r.templates.contentStats([bare.id, id, randomUUID()]);
      expect(stats.sort((a, b) => (a.id === id ? -1 : b.id === id ? 1 : 0))).toEqual([
        { id, bytes, nodeCount: 2, edgeCount: 1, previewUrl: '/files/b.png' },
        { id: bare.id, bytes: Buffer.byteLength('[{"id":"x","data":{"image":"ftp://x"}}]') + 2 + 2, nodeCount: 1, edgeCount: 0, previewUrl: null },
      ]);
      expect(await r.templates.contentStats([])).toEqual([]);
    });

    it("lists the newest templates first with the author's current name and picture, and counts a user's", async () => {
      const r = repos();
      const ann = await newUser(r, { name: 'Ann', image: 'https://example.com/ann.png' });
      const first = (await r.templates.insert({ userId: ann.id, name: 'First', ...canvas }))!;
      const second = (await r.templates.insert({ userId: ann.id, name: 'Second', ...canvas }))!;
      const newest = await r.templates.listNewest(2);
      expect(newest.map((t) => t.id)).toEqual([second.id, first.id]);
      expect(newest[1]).toEqual({ id: first.id, userId: ann.id, name: 'First', createdAt: expect.any(Date), authorName: 'Ann', authorImage: 'https://example.com/ann.png' });
      expect(await r.templates.countByUser(ann.id)).toBe(2);
      expect(await r.templates.countByUser(randomUUID())).toBe(0);
    });

    it('has a fingerprint of the newest templates that changes when one is published or deleted', async () => {
      const r = repos();
      const ann = await newUser(r);
      const before = await r.templates.fingerprint(5);
      expect(await r.templates.fingerprint(5)).toBe(before);
      const { id } = (await r.templates.insert({ userId: ann.id, name: 'New', ...canvas }))!;
      const published = await r.templates.fingerprint(5);
      expect(published).not.toBe(before);
      expect(await r.templates.deleteOwned(ann.id, id)).toBe(true);
      expect(await r.templates.fingerprint(5)).not.toBe(published);
    });

    it('deletes a template for its author only', async () => {
      const r = repos();
      const [ann, bob] = [await newUser(r), await newUser(r)];
      const { id } = (await r.templates.insert({ userId: ann.id, name: 'Mine', ...canvas }))!;
      expect(await r.templates.deleteOwned(bob.id, id)).toBe(false);
      expect(await r.templates.deleteOwned(ann.id, id)).toBe(true);
      expect(await r.templates.deleteOwned(ann.id, id)).toBe(false);
      expect(await r.templates.findAuthor(id)).toBeNull();
    });

    it("reads in one snapshot, and locks an author's row in a transaction", async () => {
      const r = repos();
      const ann = await newUser(r);
      await r.templates.insert({ userId: ann.id, name: 'Snap', ...canvas });
      expect(await r.templates.snapshot((tx) => r.templates.countByUser(ann.id, tx))).toBe(1);
      await r.transactions.transaction(async (tx) => {
        expect(await r.templates.lockUser(ann.id, tx)).toBe(true);
        expect(await r.templates.lockUser(randomUUID(), tx)).toBe(false);
      });
    });
  });
}
