// History of a canvas (docs/api.md "History"): its versions — restore points the service takes while the document
// changes (compaction, src/db/repositories/collab.ts) and versions people name — a read-only preview of one, and
// restoring one. A restore is a new change of the live document, made as the service, so everyone connected sees it
// and the version grows; the log is never rewritten. Just before it, the document as it was is kept as a named
// version (`Before restoring “…”`, by the person restoring), so a restore can itself be undone from the history.
// Everyone with a role lists and previews (`read`); owners and editors name and restore (`edit`: a viewer gets 403);
// anyone else gets `404 Project not found`, whether or not the project exists (src/auth/project-access.ts). Each named version holds the whole document, so a
// project has at most VERSIONS_MAX_NAMED of them (a restore's own counts: at the cap a restore is refused too, before
// anything changes), and naming and restoring share a per-user rate (the route's).
import * as Y from 'yjs';
import { applyCanvas, renderCanvas, type CanvasContent } from '../collab/canvas-doc.js';
import type { LiveDocuments } from '../collab/live-documents.js';
import type { ProjectAccess } from '../auth/project-access.js';
import type { CanvasesRepository, VersionRow, VersionsRepository } from '../db/repositories/index.js';
import { invalidRequest, projectNotFound, versionNotFound } from '../errors.js';
import { isUuid } from '../ids.js';

export interface RestoredCanvas extends CanvasContent {
  id: string;
  projectId: string;
  version: number;
}

export interface VersionsService {
  /** The project's versions, newest first (at most `maxListed`). */
  list(userId: string, projectId: string): Promise<VersionRow[]>;
  /** Keeps the document as it is now under `name` (trimmed and checked by the route). */
  create(userId: string, projectId: string, name: string): Promise<VersionRow>;
  /** A version and its canvas, rendered (nothing shown as generating). */
  get(userId: string, projectId: string, versionId: string): Promise<{ version: VersionRow; canvas: CanvasContent }>;
  /**
   * Makes the live document equal to the version's canvas (after keeping the current one); the canvas as it is then.
   * Everyone on the canvas is told who restored what (`by`: their name), and which version undoes it.
   */
  restore(userId: string, projectId: string, versionId: string, by?: string): Promise<RestoredCanvas>;
}

export interface VersionsDeps {
  versions: VersionsRepository;
  access: Pick<ProjectAccess, 'require'>;
  canvases: Pick<CanvasesRepository, 'current'>;
  /** `renderState`: a version's canvas, rendered off the service's thread (src/collab/document-workers.ts). */
  live: Pick<LiveDocuments, 'open' | 'tell' | 'renderState'>;
  /** How many versions a list shows at most. */
  maxListed: number;
  /** VERSIONS_MAX_NAMED: named versions a project may have (a restore's own version counts). */
  maxNamed: number;
}

/** How many versions a list shows at most (docs/api.md "History"). */
export const VERSIONS_LISTED = 100;
/** How much of a version's name the name of the version kept before restoring it repeats. */
const LABEL_CHARS = 150;

type Node = { id?: unknown; data?: { isGenerating?: unknown } };
const dataOf = (node: unknown) => (node as Node).data;

/**
 * A restore brings back content, not generation state: each restored node generates as the node of that id does in
 * the document now (not at all when it has none), so an old spinner never comes back and a running one stays.
 */
function keepGenerationState(restored: CanvasContent, now: CanvasContent): void {
  const generating = new Set(now.nodes.filter((n) => dataOf(n)?.isGenerating === true).map((n) => (n as Node).id));
  for (const node of restored.nodes) {
    const data = dataOf(node);
    if (!data || typeof data !== 'object') continue;
    if (generating.has((node as Node).id)) data.isGenerating = true;
    else if (data.isGenerating !== undefined) data.isGenerating = false;
  }
}

const labelOf = (version: VersionRow) => {
  const label = version.name ?? `the restore point of ${version.createdAt.toISOString()}`;
  return label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}…` : label;
};

export function createVersionsService({ versions, access, canvases, live, maxListed, maxNamed }: VersionsDeps): VersionsService {
  /** Stores a named version, or refuses (400, nothing stored) when the project has `maxNamed` already. */
  async function keepNamed(projectId: string, name: string, state: Uint8Array, createdBy: string): Promise<VersionRow> {
    const row = await versions.createNamed({ projectId, name, state, createdBy }, maxNamed);
    if (!row) throw invalidRequest(`A project has at most ${maxNamed} named versions`);
    return row;
  }

  const readable = (userId: string, projectId: string) => access.require({ userId }, projectId, 'read');
  const writable = (userId: string, projectId: string) => access.require({ userId }, projectId, 'edit');
  async function versionOf(projectId: string, versionId: string) {
    const found = isUuid(versionId) ? await versions.find(projectId, versionId) : null;
    if (!found) throw versionNotFound();
    return found;
  }
  const listed = ({ id, kind, name, createdBy, createdAt }: VersionRow): VersionRow => ({ id, kind, name, createdBy, createdAt });

  return {
    async list(userId, projectId) {
      await readable(userId, projectId);
      return versions.list(projectId, maxListed);
    },

    async create(userId, projectId, name) {
      await writable(userId, projectId);
      const document = await live.open(projectId);
      let state: Uint8Array;
      try {
        state = Y.encodeStateAsUpdate(document.doc);
      } finally {
        await document.close();
      }
      return keepNamed(projectId, name, state, userId);
    },

    async get(userId, projectId, versionId) {
      await readable(userId, projectId);
      const version = await versionOf(projectId, versionId);
      const canvas = await live.renderState(version.state);
      keepGenerationState(canvas, { nodes: [], edges: [] }); // a preview is a still picture: nothing generating
      return { version: listed(version), canvas };
    },

    async restore(userId, projectId, versionId, by = '') {
      await writable(userId, projectId);
      const version = await versionOf(projectId, versionId);
      const restored = await live.renderState(version.state);
      const document = await live.open(projectId);
      try {
        // Kept first: when it cannot be stored, nothing is restored.
        const before = Y.encodeStateAsUpdate(document.doc);
        const kept = await keepNamed(projectId, `Before restoring “${labelOf(version)}”`, before, userId);
        // Synchronous from here to the change: what is kept as generating is what the document holds.
        keepGenerationState(restored, renderCanvas(document.doc));
        const stored = document.change((doc) => applyCanvas(doc, restored), { step: true });
        const canvas = renderCanvas(document.doc);
        const number = await stored;
        live.tell(projectId, {
          type: 'restored',
          by,
          userId,
          version: version.id,
          ...(version.name ? { name: version.name } : {}),
          createdAt: version.createdAt.toISOString(),
          before: kept.id,
        });
        // The change made the canvas row if the project had none.
        const row = await canvases.current({ userId }, projectId);
        if (!row?.id) throw projectNotFound(); // the project went away meanwhile
        return { id: row.id, projectId, nodes: canvas.nodes, edges: canvas.edges, version: number ?? row.version ?? 0 };
      } finally {
        await document.close();
      }
    },
  };
}
