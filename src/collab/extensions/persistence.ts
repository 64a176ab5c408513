// Durability of the live canvas (DESIGN.md §9; docs/api.md "Live canvas"), as a hocuspocus extension:
//
// - Loading: a document is loaded from its snapshot and the log of changes after it (or, once, from the canvas a
//   project saved before live documents).
// - Storing: every change applied in memory that arrived here (not one relayed by another instance through Redis) is
//   appended to PostgreSQL (../update-queue.ts), and the acknowledgement hocuspocus sends its sender is held until
//   then (../frames.ts gatedSocket): a change acknowledged to its sender is in PostgreSQL, so a kill -9 loses nothing
//   acknowledged. One that cannot be stored is never acknowledged: the socket closes and the provider sends it again.
// - Saving state: while more than COLLAB_MAX_UNSAVED_BYTES wait to be stored, changes are refused (`not-saving`), and
//   every document is told by the stateless `saving` message (../protocol.ts), as is each connection that comes
//   in meanwhile.
// - The service as a participant: `open(projectId)` gives a direct connection whose changes are stored before
//   `change()` resolves (REST saves, generation state, restores); `read` and `catchUp` read the database.
// - Whole-document work on what is read from the database (merging a snapshot and its log, measuring the canvas for
//   the content check, rendering a document that is not open here) runs in the document workers
//   (../document-workers.ts); the service's thread only applies the one merged state to the open document.
//
// Compaction of what is stored is ./compaction.ts's.
import type { Document, Extension, Hocuspocus, onConfigurePayload } from '@hocuspocus/server';
import * as Y from 'yjs';
import type { CollabRepository } from '../../db/repositories/index.js';
import { applyCanvas, dropUnsafeImage, renderCanvas, type CanvasContent } from '../canvas-doc.js';
import type { DocumentWorkers } from '../document-workers.js';
import { frameUpdate, type GatedSocket } from '../frames.js';
import { CLOSE, refusal, statelessText } from '../protocol.js';
import { createUpdateQueue, type UpdateQueue } from '../update-queue.js';

/** The origin of changes read back from the database: already stored, never stored again. */
export const FROM_DATABASE = { source: 'database' };

/** Whether a change with this transaction origin arrived here from a person or the service (not Redis, not the database). */
export function arrivedHere(origin: unknown): boolean {
  return (origin as { source?: string } | null)?.source !== 'redis' && origin !== FROM_DATABASE;
}

export interface PersistenceDeps {
  collab: CollabRepository;
  /** Where stored documents are merged and rendered. */
  workers: Pick<DocumentWorkers, 'merge' | 'render'>;
  /**
   * A document was loaded from a merged state whose canvas measures `bytes` (../update-check.ts `measure`), called
   * right after it was applied: its first content check need not render it (UpdateCheck.seed).
   */
  measured?: (document: Y.Doc, bytes: number) => void;
  /** Update bytes waiting to be stored, at most (while PostgreSQL is slow or down); beyond it edits are refused. */
  heldBytes: number;
  /** A statement of changes starts at least this long after the previous one (../update-queue.ts `intervalMs`). */
  storeIntervalMs?: number;
  /**
   * Whether instances relay changes to each other now (Redis, its link up): then a document never needs to catch up
   * from the database.
   */
  relayed: () => boolean;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
  /** A document was loaded: the bytes of its snapshot and of its log (./compaction.ts sizes). */
  onLoaded?: (documentName: string, stored: { snapshotBytes: number; logBytes: number }) => void;
}

/** The service's own connection to a document: changes are stored before `change` resolves. */
export interface OpenDocument {
  readonly doc: Y.Doc;
  /**
   * Applies `fn` in one transaction and queues what it changed (synchronously); resolves with the project's version
   * once stored, or null if nothing changed. With `step`, a change that changes nothing still steps the version.
   */
  change(fn: (doc: Y.Doc) => void, options?: { step?: boolean }): Promise<number | null>;
  close(): Promise<void>;
}

export interface Persistence extends Extension {
  open(projectId: string): Promise<OpenDocument>;
  read(projectId: string): Promise<CanvasContent | null>;
  catchUp(projectId: string, version: number): Promise<boolean>;
  /** Applies to the open document everything the database holds of it (the link between instances is back). */
  resync(projectId: string): Promise<void>;
  settled(projectId: string): Promise<void>;
  seq(projectId: string): number;
  pending(projectId: string): number;
  /** Whether changes can be stored now. */
  saving(): boolean;
  /** Update bytes waiting to be stored. */
  heldBytes(): number;
  /** Stores what is queued, giving up after `ms` (it was never acknowledged), then stops. */
  close(ms: number): Promise<void>;
}

export function persistence({ collab, workers, measured, heldBytes, storeIntervalMs = 0, relayed, log, onLoaded }: PersistenceDeps): Persistence {
  /** The server, once it configured this extension (a few microtasks after it was built; no document is open before). */
  let instance: Hocuspocus | undefined;
  let configured!: (instance: Hocuspocus) => void;
  const ready = new Promise<Hocuspocus>((resolve) => (configured = resolve));
  let saving = true;
  const queue: UpdateQueue = createUpdateQueue({
    store: (changes) => collab.append(changes),
    maxHeldBytes: heldBytes,
    intervalMs: storeIntervalMs,
    log,
    onSaving(ok) {
      saving = ok;
      const message = statelessText({ type: 'saving', ok });
      for (const document of instance?.documents.values() ?? []) document.broadcastStateless(message);
    },
  });
  /**
   * The canvas version each open document holds: the version it was loaded at plus every change of it stored from
   * here. When the database has a higher one, other instances changed it (./catchUp).
   */
  const held = new Map<string, number>();
  /** While the service changes a document: the stores of that change. */
  let capture: Promise<number>[] | null = null;

  /** Queues a change and counts it in the document's version once stored. */
  const append = (projectId: string, update: Uint8Array | null, urgent = false) =>
    queue.append(projectId, update, urgent).then((version) => {
      const now = held.get(projectId);
      if (now !== undefined) held.set(projectId, now + 1);
      return version;
    });

  async function loadInto(projectId: string, document: Y.Doc, attempt = 0): Promise<void> {
    // Changes still being stored here belong in what is loaded.
    await queue.settled(projectId);
    const stored = await collab.load(projectId);
    if (stored.legacy && !stored.snapshot && stored.updates.length === 0) {
      // A canvas saved before live documents: it becomes the document's first state, once, by one instance.
      const fresh = new Y.Doc();
      fresh.transact(() => applyCanvas(fresh, stored.legacy!));
      const state = Y.encodeStateAsUpdate(fresh);
      fresh.destroy();
      if (await collab.migrateLegacy(projectId, state)) {
        Y.applyUpdate(document, state, FROM_DATABASE);
        held.set(projectId, stored.version);
        onLoaded?.(projectId, { snapshotBytes: state.byteLength, logBytes: 0 });
        return;
      }
      if (attempt < 3) return loadInto(projectId, document, attempt + 1);
      throw new Error('live document: the legacy canvas could not be moved');
    }
    if (stored.snapshot || stored.updates.length > 0) {
      const merged = await workers.merge(stored, { measure: true });
      // The measure is the document's content only if nothing else reached it meanwhile (another instance's changes).
      const alone = document.store.clients.size === 0;
      Y.applyUpdate(document, merged.state, FROM_DATABASE);
      if (alone && merged.bytes !== undefined) measured?.(document, merged.bytes);
    }
    held.set(projectId, stored.version);
    onLoaded?.(projectId, { snapshotBytes: stored.snapshot?.byteLength ?? 0, logBytes: stored.updates.reduce((n, u) => n + u.byteLength, 0) });
  }

  /** Applies to an open document what the database holds of it. */
  async function applyStored(projectId: string, document: Document) {
    const stored = await collab.load(projectId);
    // Only what the document lacks is applied (and broadcast to its editors here); it is already stored.
    if (stored.snapshot || stored.updates.length > 0) Y.applyUpdate(document, (await workers.merge(stored, { measure: false })).state, FROM_DATABASE);
    held.set(projectId, Math.max(stored.version, held.get(projectId) ?? 0));
  }

  /** Stores every change applied to `document` that arrived here (not those relayed from another instance). */
  function storeChanges(document: Document) {
    document.on('update', (update: Uint8Array, origin: unknown) => {
      if (!arrivedHere(origin)) return;
      const from = origin as { source?: string; connection?: { webSocket: unknown; messageAddress?: string } } | null;
      const person = from?.source === 'connection' ? from.connection : undefined;
      // A person's edit waits for its statement's turn (only its acknowledgement waits on it); the service's own
      // changes are awaited by whoever made them (a REST save, a run's node), so they go at once.
      const stored = append(document.name, update, !person);
      if (person) {
        // The held acknowledgement: hocuspocus sends it after this listener returns, the socket sends it once stored.
        const socket = person.webSocket as Partial<GatedSocket>;
        socket.hold?.(person.messageAddress ?? document.name, stored, update);
        stored.catch(() => {}); // the gate handles a failure
      } else if (capture) {
        capture.push(stored);
      } else {
        stored.catch((err: unknown) => log.error({ err, projectId: document.name }, 'live document: a change could not be stored'));
      }
    });
  }

  return {
    extensionName: 'persistence',
    priority: 100,

    async onConfigure(payload: onConfigurePayload) {
      instance = payload.instance;
      configured(instance);
    },
    async connected({ connection }) {
      if (!saving) connection.sendStateless(statelessText({ type: 'saving', ok: false }));
    },
    async onLoadDocument({ documentName, document }) {
      await loadInto(documentName, document);
      // Applying what was stored made hocuspocus queue it as a change to broadcast (in the next turn of the event
      // loop): had the first connections joined by then, each would get the whole document again as an update, on top
      // of its sync answer. Nobody is connected yet: sending it now sends it to no one.
      document.flush();
    },
    async afterLoadDocument({ document }) {
      storeChanges(document);
    },
    async beforeHandleMessage({ update: frame, connection }) {
      // A change that could not be stored now is not applied (a viewer's never is).
      if (connection.readOnly || !queue.full()) return;
      if (frameUpdate(frame)) throw refusal(CLOSE.notSaving);
    },
    async afterUnloadDocument({ documentName }) {
      held.delete(documentName);
    },

    async open(projectId) {
      const connection = await (await ready).openDirectConnection(projectId, { user: null });
      const document = connection.document!;
      return {
        doc: document,
        // Synchronous up to the queueing of its stores (no await before them), so a caller that checked the version
        // just before knows no other change came in between.
        change(fn, { step = false } = {}) {
          const stores: Promise<number>[] = [];
          capture = stores;
          try {
            // What DirectConnection.transact does, without its async wrapper: the origin marks a change of the service.
            document.transact(() => fn(document), { source: 'local', context: connection.context as object });
          } finally {
            capture = null;
          }
          if (stores.length === 0 && step) stores.push(append(projectId, null, true));
          if (stores.length === 0) return Promise.resolve(null);
          return Promise.all(stores).then((versions) => Math.max(...versions));
        },
        // The document stays in memory until its debounced store (compaction), like one a person left.
        close: () => connection.disconnect({ unloadImmediately: false }),
      };
    },

    async read(projectId) {
      const loaded = instance?.documents.get(projectId);
      if (loaded && !loaded.isLoading) return renderCanvas(loaded);
      const stored = await collab.load(projectId);
      if (stored.legacy && !stored.snapshot && stored.updates.length === 0) {
        stored.legacy.nodes.forEach(dropUnsafeImage); // saved before the image rules (canvas-doc renders the same way)
        return { nodes: stored.legacy.nodes, edges: stored.legacy.edges };
      }
      if (!stored.snapshot && stored.updates.length === 0) return null;
      return workers.render(stored);
    },

    async catchUp(projectId, version) {
      const document = instance?.documents.get(projectId);
      const holds = held.get(projectId);
      if (relayed() || !document || document.isLoading || holds === undefined || version <= holds) return false;
      await applyStored(projectId, document);
      return true;
    },

    async resync(projectId) {
      const document = instance?.documents.get(projectId);
      if (document && !document.isLoading && held.has(projectId)) await applyStored(projectId, document);
    },

    settled: (projectId) => queue.settled(projectId),
    seq: (projectId) => queue.seq(projectId),
    pending: (projectId) => queue.pending(projectId),
    saving: () => saving,
    heldBytes: () => queue.heldBytes(),

    async close(ms) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([queue.drain(), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
      queue.stop();
    },
  };
}
