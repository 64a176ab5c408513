// A document loaded from the database is not broadcast to its first connections (src/collab/extensions/persistence.ts
// onLoadDocument): applying the stored state makes hocuspocus queue it as a change for the next turn of the event
// loop, and a connection that joined before that turn got the whole document again on top of its sync answer.
import { Hocuspocus } from '@hocuspocus/server';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { randomUUID } from 'node:crypto';
import { createDocumentWorkers } from '../../src/collab/document-workers.js';
import { persistence } from '../../src/collab/extensions/persistence.js';
import { createFakeRepositories } from '../fakes/repositories.js';

describe('loading a live document', () => {
  it('leaves nothing queued to broadcast once the stored state is applied', async () => {
    const repos = createFakeRepositories();
    const projectId = randomUUID();
    repos.state.projects.set(projectId, { id: projectId, userId: randomUUID(), name: 'Loaded', createdAt: new Date() });
    const source = new Y.Doc();
    source.getMap('nodes').set('n1', new Y.Map([['type', 'text']]));
    await repos.collab.append([{ projectId, update: Y.encodeStateAsUpdate(source) }]);
    const log = { warn: () => undefined, error: () => undefined };
    const workers = createDocumentWorkers({ workers: 0, log });
    const hocuspocus = new Hocuspocus({ quiet: true, extensions: [persistence({ collab: repos.collab, workers, heldBytes: 1 << 20, relayed: () => false, log })] });
    await new Promise<void>((resolve) => setImmediate(resolve)); // the extension is configured
    const connection = await hocuspocus.openDirectConnection(projectId, {});
    const document = connection.document!;
    expect(document.getMap('nodes').has('n1')).toBe(true);
    // What a connection joining now would be sent in the next turn, besides its sync answer.
    expect((document as unknown as { pendingUpdates: Uint8Array[] }).pendingUpdates).toEqual([]);
    await connection.disconnect();
    await workers.close();
  });
});
