// A project's gallery (docs/api.md "Project gallery"): every generation made into the project, by anyone, newest
// first, searched by prompt words and filtered by node and model; and one generation's PNG as a download named after the
// project and the prompt. The owner and every member (editor or viewer) may read (`read`, src/auth/project-access.ts);
// anyone else gets `404 Project not found`, whether or not the project exists, as the canvas routes answer.
import type { ProjectAccess } from '../auth/project-access.js';
import type { GalleryRow, GenerationsGalleryRepository } from '../db/repositories/index.js';
import { generationNotFound } from '../errors.js';
import type { ObjectStore } from '../storage/index.js';
import { decodeCursor, pageOf } from './generation.js';

/** The longest download name, in characters, `.png` included. */
export const DOWNLOAD_NAME_CHARS = 80;

export interface ProjectGenerationsService {
  list(userId: string, projectId: string, opts: { nodeId?: string; q?: string; model?: string; cursor?: string; limit: number }): Promise<{ items: GalleryRow[]; nextCursor: string | null }>;
  /** The generation's stored PNG and the name to save it under. */
  download(userId: string, projectId: string, generationId: string): Promise<{ stream: NodeJS.ReadableStream; size: number; contentType: string; fileName: string }>;
}

export interface ProjectGenerationsDeps {
  gallery: Pick<GenerationsGalleryRepository, 'listByProject' | 'findInProject'>;
  access: Pick<ProjectAccess, 'require'>;
  store: Pick<ObjectStore, 'nameFromUrl' | 'get'>;
}

/**
 * Text fit for a file name: no control or format characters (bidirectional overrides included), none of
 * `/ \ : * ? " < > |`, runs of white space as one space.
 */
const cleanPart = (text: string) =>
  text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}/\\:*?"<>|]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();

/**
 * `<project name> - <start of the prompt>.png`, at most DOWNLOAD_NAME_CHARS characters (whole code points, so
 * never half an emoji), with no leading or trailing dots, spaces or dashes. `generation.png` when nothing is left.
 */
export function downloadName(projectName: string, prompt: string): string {
  const stem = [cleanPart(projectName), cleanPart(prompt)].filter(Boolean).join(' - ');
  const cut = Array.from(stem)
    .slice(0, DOWNLOAD_NAME_CHARS - '.png'.length)
    .join('')
    .replace(/^[\s.-]+|[\s.-]+$/gu, '');
  return `${cut || 'generation'}.png`;
}

export function createProjectGenerationsService({ gallery, access, store }: ProjectGenerationsDeps): ProjectGenerationsService {
  const readable = (userId: string, projectId: string) => access.require({ userId }, projectId, 'read');

  return {
    async list(userId, projectId, { nodeId, q, model, cursor, limit }) {
      const after = cursor ? decodeCursor(cursor) : undefined;
      await readable(userId, projectId);
      const search = q?.trim() ? q : undefined; // an empty search is no search
      const rows = await gallery.listByProject(projectId, { after, limit: limit + 1, nodeId, model, q: search });
      return pageOf(rows, limit);
    },

    async download(userId, projectId, generationId) {
      const { projectName } = await readable(userId, projectId);
      const generation = await gallery.findInProject(projectId, generationId);
      const name = generation ? store.nameFromUrl(generation.outputImageUrl) : null;
      const object = name ? await store.get(name) : null;
      if (!generation || !object) throw generationNotFound(); // not of this project, or its image is gone
      return { stream: object.stream, size: object.info.size, contentType: object.info.contentType, fileName: downloadName(projectName, generation.prompt) };
    },
  };
}
