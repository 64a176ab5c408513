// One canvas per project, a view of the project's live document (DESIGN.md §9, src/collab/): a read renders the
// document, a save makes the document equal to the body by changing only what differs, so people editing live see
// a small change. The canvas row keeps the canvas id and `version`, which grows with every change from any path
// (docs/api.md "Canvas versions"): with `version`, a save is conditional (a stale save gets 409 and the current
// version, so an old client can never wipe live work); without it, last write wins. Who may read (`view`) and write
// (`edit`) is src/auth/project-access.ts's rule: owners and editors write, viewers and the read-only link read (403 on
// a save), anyone else gets 404. Images sent inline as data: URLs are stored as files first
// and replaced by their URLs (./canvas-images.ts); the canvas is held to CANVAS_MAX_BYTES.
import { randomUUID } from 'node:crypto';
import { check, PERMISSIONS, type Actor } from '../auth/project-access.js';
import { applyCanvas, renderCanvas } from '../collab/canvas-doc.js';
import type { LiveDocuments } from '../collab/live-documents.js';
import { CanvasIdTakenError, type CanvasesRepository } from '../db/repositories/index.js';
import { canvasConflict, canvasTooLarge, projectNotFound } from '../errors.js';
import { prepareInlineImages, type CanvasImages, type ImageNode } from './canvas-images.js';
import { isUuid } from '../ids.js';

export interface CanvasInput {
  id?: string;
  projectId: string;
  nodes: ImageNode[];
  edges: unknown[];
  version?: number;
}

export interface CanvasService {
  /** The canvas as a JSON text ready to send, or null when the project has none; for a user or a link's holder. */
  getJson(actor: Actor, projectId: string): Promise<string | null>;
  save(userId: string, input: CanvasInput): Promise<string>;
}

/**
 * `isGenerating` is written by clients and by the job runner, but a canvas read never shows a node generating when
 * no job of that user (the owner, an editor) is running with a live heartbeat on any instance: a closed tab or a
 * dead instance must not leave a node spinning forever.
 */
function settleGenerating(nodes: unknown[]): void {
  for (const node of nodes) {
    const data = (node as { data?: { isGenerating?: boolean } }).data;
    if (data?.isGenerating) data.isGenerating = false;
  }
}

export interface CanvasDeps {
  canvases: Pick<CanvasesRepository, 'current' | 'createEmpty'>;
  live: Pick<LiveDocuments, 'open' | 'read' | 'settled' | 'seq' | 'pending' | 'catchUp'>;
  images: Pick<CanvasImages, 'inline'>;
  /** CANVAS_MAX_BYTES: the canvas's nodes and edges (UTF-8 JSON, data: URLs replaced) at most. */
  maxBytes: number;
}

const body = (id: string, projectId: string, nodes: unknown[], edges: unknown[], version: number) =>
  JSON.stringify({ id, projectId, nodes, edges, version });

export function createCanvasService({ canvases, live, images, maxBytes }: CanvasDeps): CanvasService {
  /** Whether the JSON text is over the limit (counted in UTF-8 bytes only when it could be). */
  const tooLarge = (nodes: string, edges: string) =>
    (nodes.length + edges.length) * 3 > maxBytes && Buffer.byteLength(nodes) + Buffer.byteLength(edges) > maxBytes;

  /** The canvas row, if the actor may `view` it (404/403 otherwise): one query for both. */
  async function viewable(actor: Actor, projectId: string) {
    return check(await canvases.current(actor, projectId), 'view');
  }

  /** The canvas row, for a save: if the user may `edit` (a viewer gets 403). */
  async function writable(userId: string, projectId: string) {
    return check(await canvases.current({ userId }, projectId), 'edit');
  }

  /** Makes the canvas row (version 0) for a first save, with the client's id unless that names another canvas. */
  async function createRow(userId: string, projectId: string, id: string | undefined) {
    try {
      await canvases.createEmpty({ id: id ?? randomUUID(), projectId, userId, writers: PERMISSIONS.edit });
    } catch (err) {
      if (!(err instanceof CanvasIdTakenError)) throw err;
      await canvases.createEmpty({ id: randomUUID(), projectId, userId, writers: PERMISSIONS.edit });
    }
  }

  return {
    async getJson(actor, projectId) {
      if (!isUuid(projectId)) throw projectNotFound();
      // The version read next then counts every change made through this instance so far.
      await live.settled(projectId);
      const { id, version, generating } = await viewable(actor, projectId);
      if (id === null || !version) return null;
      await live.catchUp(projectId, version);
      const content = (await live.read(projectId)) ?? { nodes: [], edges: [] };
      if (!generating) settleGenerating(content.nodes);
      return body(id, projectId, content.nodes, content.edges, version);
    },

    async save(userId, input) {
      const { projectId } = input;
      if (!isUuid(projectId)) throw projectNotFound();
      const { nodes, store: storeImages } = await prepareInlineImages(images, input.nodes, userId);
      if (tooLarge(JSON.stringify(nodes), JSON.stringify(input.edges))) throw canvasTooLarge();
      const before = await writable(userId, projectId);
      if (storeImages) {
        // Files are written only for the project's owner or an editor (a foreign project stays a 404, a viewer's
        // save a 403, that store nothing), and not for a save already known to be stale.
        if (input.version !== undefined && (before.version ?? 0) !== input.version) throw canvasConflict(before.version ?? 0);
        await storeImages();
      }
      if (before.id === null) await createRow(userId, projectId, input.id);
      const document = await live.open(projectId);
      try {
        for (;;) {
          // Read the version when nothing of this project is being stored here, and apply the body only if no
          // change came in meanwhile: the version checked is the version of the document changed.
          await live.settled(projectId);
          const seq = live.seq(projectId);
          const now = await writable(userId, projectId);
          if (live.seq(projectId) !== seq || live.pending(projectId) > 0) continue;
          if (now.id === null) throw projectNotFound(); // the project went away meanwhile
          const version = now.version ?? 0;
          // Changes another instance stored are brought in first; the body is then compared with all of them.
          if (await live.catchUp(projectId, version)) continue;
          if (input.version !== undefined && version !== input.version) throw canvasConflict(version);
          const stored = document.change((doc) => applyCanvas(doc, { nodes, edges: input.edges }), { step: true });
          const saved = renderCanvas(document.doc);
          return body(now.id, projectId, saved.nodes, saved.edges, (await stored) ?? version);
        }
      } finally {
        await document.close();
      }
    },
  };
}
