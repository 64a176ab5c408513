// Canvas thumbnails (docs/api.md "Thumbnails"): a small PNG of a project's live document — each node's box at its
// position, scaled to fit, the edges as lines, and in each box the node's image when it is one of our stored
// images (read through the store, never over HTTP; one that cannot be read stays a box). Who may read the canvas
// may read its thumbnail (`read`: owner, editor, viewer); anyone else gets `404 Project not found`, as on the canvas routes.
// A thumbnail is known by the canvas `version` it shows: its ETag names that version, so a browser's copy is
// revalidated with a 304 and nothing drawn, and an edit (a new version) draws it anew. The newest drawing of each
// project is kept in memory (THUMBNAIL_CACHE_ENTRIES projects at most); drawing happens in the image workers.
import { LRUCache } from 'lru-cache';
import { check } from '../auth/project-access.js';
import type { LiveDocuments } from '../collab/live-documents.js';
import type { CanvasContent } from '../collab/canvas-doc.js';
import type { CanvasesRepository } from '../db/repositories/index.js';
import { kindOf } from '../kinds/index.js';
import { projectNotFound, serviceUnavailable, storageUnavailable } from '../errors.js';
import type { ThumbnailBox, ThumbnailLine, ThumbnailPlan } from '../imaging/thumbnail.js';
import { storeFailure, type ObjectStore } from '../storage/index.js';
import { isUuid } from '../ids.js';

export const THUMBNAIL_WIDTH = 320;
export const THUMBNAIL_HEIGHT = 200;
/** Part of every ETag: raise it when the drawing changes, so browsers' copies of the old drawing are replaced. */
const DRAWING = 1;
const PADDING = 12;
/** The size a node of a type no kind has is drawn at when the document does not say (a kind says its own). */
const UNKNOWN_SIZE = { width: 260, height: 260 };

export interface Thumbnail {
  etag: string;
  /** The PNG; null when the caller's copy (If-None-Match) is current. */
  png: Buffer | null;
}

export interface ThumbnailsService {
  thumbnail(userId: string, projectId: string, ifNoneMatch?: string): Promise<Thumbnail>;
}

export interface ThumbnailsDeps {
  canvases: Pick<CanvasesRepository, 'current'>;
  live: Pick<LiveDocuments, 'read' | 'settled' | 'catchUp'>;
  store: Pick<ObjectStore, 'nameFromUrl' | 'get'>;
  /** Draws a plan (src/imaging/thumbnail.ts), in the image workers. */
  draw: (plan: ThumbnailPlan, images: Uint8Array[], owner?: string) => Promise<Buffer>;
  /** THUMBNAIL_CACHE_ENTRIES: projects whose newest thumbnail is kept (0: none). */
  cacheEntries: number;
  /** Pixels an image may declare to be drawn (INPUT_IMAGE_MAX_PIXELS). */
  maxImagePixels: number;
  /** Images read for one thumbnail at most; further image nodes are drawn as boxes. */
  maxImages?: number;
  /** The largest stored image read (bytes); a larger one is drawn as a box. */
  imageBytes?: number;
  /** Bytes of all images read for one thumbnail at most. */
  totalImageBytes?: number;
  log: { warn(o: object, m: string): void };
  /**
   * THUMBNAIL_DEADLINE_MS: a thumbnail not ready by then is answered 503 (Storage unavailable while its stored images
   * were being read, else Service unavailable), however long the store or the workers take; default none.
   */
  deadlineMs?: number;
}

const MB = 1024 * 1024;

/** Whether an If-None-Match header names `etag` (weak or strong, in a list, or `*`). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const tag = part.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const sizeValue = (v: unknown) => (finite(v) && v > 0 && v <= 10_000 ? v : undefined);

interface Placed {
  id: string;
  look: ThumbnailBox['look'];
  x: number;
  y: number;
  width: number;
  height: number;
  image?: string;
}

/** The nodes with a position, at their drawn size (`measured` when the document holds one, else the editor's). */
function placed(nodes: unknown[]): Placed[] {
  const out: Placed[] = [];
  for (const node of nodes) {
    if (!isRecord(node) || typeof node.id !== 'string' || !isRecord(node.position)) continue;
    const { x, y } = node.position;
    if (!finite(x) || !finite(y)) continue;
    const data = isRecord(node.data) ? node.data : {};
    // Its kind (src/kinds/) by `type`, else by `data.type` (SPEC let them differ); a node that runs is drawn as one.
    const kind = kindOf(node.type) ?? kindOf(data.type);
    const size = kind?.size ?? UNKNOWN_SIZE;
    const measured = isRecord(node.measured) ? node.measured : {};
    const width = sizeValue(measured.width) ?? size.width;
    const height = sizeValue(measured.height) ?? size.height;
    out.push({ id: node.id, look: kind?.task ? 'runs' : 'plain', x, y, width, height, image: typeof data.image === 'string' ? data.image : undefined });
  }
  return out;
}

/** The boxes and lines of a canvas scaled into the thumbnail, and the image URL each image index stands for. */
export function planThumbnail(content: CanvasContent, opts: { maxImages: number; maxImagePixels: number; isOurs: (url: string) => boolean }): { plan: ThumbnailPlan; urls: string[] } {
  const nodes = placed(content.nodes);
  const plan: ThumbnailPlan = { width: THUMBNAIL_WIDTH, height: THUMBNAIL_HEIGHT, boxes: [], lines: [], maxImagePixels: opts.maxImagePixels };
  const urls: string[] = [];
  if (nodes.length === 0) return { plan, urls };
  const left = Math.min(...nodes.map((p) => p.x));
  const top = Math.min(...nodes.map((p) => p.y));
  const right = Math.max(...nodes.map((p) => p.x + p.width));
  const bottom = Math.max(...nodes.map((p) => p.y + p.height));
  const scale = Math.min((THUMBNAIL_WIDTH - 2 * PADDING) / (right - left), (THUMBNAIL_HEIGHT - 2 * PADDING) / (bottom - top), 1);
  // Centred.
  const offsetX = (THUMBNAIL_WIDTH - (right - left) * scale) / 2;
  const offsetY = (THUMBNAIL_HEIGHT - (bottom - top) * scale) / 2;
  const boxes = new Map<string, ThumbnailBox>();
  for (const p of nodes) {
    const box: ThumbnailBox = { x: offsetX + (p.x - left) * scale, y: offsetY + (p.y - top) * scale, width: p.width * scale, height: p.height * scale, look: p.look };
    if (p.image && urls.length < opts.maxImages && box.width >= 4 && box.height >= 4 && opts.isOurs(p.image)) {
      box.image = urls.length;
      urls.push(p.image);
    }
    boxes.set(p.id, box);
    plan.boxes.push(box);
  }
  for (const edge of content.edges) {
    if (!isRecord(edge)) continue;
    const from = boxes.get(edge.source as string);
    const to = boxes.get(edge.target as string);
    if (!from || !to) continue;
    const line: ThumbnailLine = { x1: from.x + from.width, y1: from.y + from.height / 2, x2: to.x, y2: to.y + to.height / 2 };
    plan.lines.push(line);
  }
  return { plan, urls };
}

interface Drawn {
  version: number;
  etag: string;
  png: Buffer;
}

export function createThumbnailsService(deps: ThumbnailsDeps): ThumbnailsService {
  const { canvases, live, store, draw, log } = deps;
  const maxImages = deps.maxImages ?? 12;
  const imageBytes = deps.imageBytes ?? 16 * MB;
  const totalImageBytes = deps.totalImageBytes ?? 48 * MB;
  /** The newest drawing of each project. */
  const cache = deps.cacheEntries > 0 ? new LRUCache<string, Drawn>({ max: deps.cacheEntries }) : undefined;
  /** Drawings under way, by project and version: asked for twice, drawn once. */
  const drawing = new Map<string, { promise: Promise<Drawn>; phase: { reading: boolean } }>();

  /** The drawing, or 503 once the deadline passes (`expired` runs then). */
  async function withDeadline(entry: { promise: Promise<Drawn>; phase: { reading: boolean } }, expired: () => void): Promise<Drawn> {
    if (deps.deadlineMs === undefined) return entry.promise;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired();
        log.warn({ deadlineMs: deps.deadlineMs, readingImages: entry.phase.reading }, 'thumbnail: not drawn within its deadline');
        reject(entry.phase.reading ? storageUnavailable('the object store did not answer within the thumbnail deadline') : serviceUnavailable());
      }, deps.deadlineMs);
    });
    try {
      return await Promise.race([entry.promise, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  const etagOf = (version: number, complete: boolean) => `"v${version}.${DRAWING}${complete ? '' : '.partial'}"`;

  /** The stored image's bytes; null when it is missing or over a bound; throws when the store failed. */
  async function readImage(url: string, budget: { left: number }): Promise<Buffer | null> {
    const name = store.nameFromUrl(url);
    const found = name ? await store.get(name) : null;
    if (!found) return null;
    const stream = found.stream as NodeJS.ReadableStream & { destroy?: () => void };
    const limit = Math.min(imageBytes, budget.left);
    if (found.info.size > limit) {
      stream.destroy?.();
      return null;
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limit) {
        stream.destroy?.();
        return null;
      }
      chunks.push(chunk);
    }
    budget.left -= total;
    return Buffer.concat(chunks);
  }

  async function render(userId: string, projectId: string, version: number, phase: { reading: boolean }): Promise<Drawn> {
    const content = (version > 0 ? await live.read(projectId) : null) ?? { nodes: [], edges: [] };
    const { plan, urls } = planThumbnail(content, { maxImages, maxImagePixels: deps.maxImagePixels, isOurs: (url) => store.nameFromUrl(url) !== null });
    const images: Uint8Array[] = [];
    const budget = { left: totalImageBytes };
    let complete = true;
    // One at a time: at most `totalImageBytes` held, whatever the canvas.
    phase.reading = true;
    for (const url of urls) {
      try {
        images.push((await readImage(url, budget)) ?? new Uint8Array(0));
      } catch (err) {
        // The store down or full is an outage: 503, as everywhere (a drawing of boxes would be kept by browsers).
        if (storeFailure(err)) {
          log.warn({ err, projectId }, 'thumbnail: the object store is unavailable');
          throw storageUnavailable('a stored image of the canvas could not be read');
        }
        // Anything else (not a missing image): drawn as a box this time, and not kept.
        log.warn({ err, projectId }, 'thumbnail: a stored image could not be read');
        complete = false;
        images.push(new Uint8Array(0));
      }
    }
    phase.reading = false;
    const png = await draw(plan, images, userId);
    const drawn = { version, etag: etagOf(version, complete), png };
    if (complete) cache?.set(projectId, drawn);
    return drawn;
  }

  return {
    async thumbnail(userId, projectId, ifNoneMatch) {
      if (!isUuid(projectId)) throw projectNotFound();
      // The version read next then counts every change made through this instance so far (as a canvas read).
      await live.settled(projectId);
      const current = check(await canvases.current({ userId }, projectId), 'read');
      const version = current.id === null ? 0 : (current.version ?? 0);
      // The caller's copy shows this version, drawn completely: nothing to draw or send.
      if (matchesEtag(ifNoneMatch, etagOf(version, true))) return { etag: etagOf(version, true), png: null };
      const kept = cache?.get(projectId);
      if (kept?.version === version) return { etag: kept.etag, png: kept.png };
      if (version > 0) await live.catchUp(projectId, version);
      const key = `${projectId}:${version}`;
      let entry = drawing.get(key);
      if (!entry) {
        const phase = { reading: false };
        const promise = render(userId, projectId, version, phase).finally(() => {
          if (drawing.get(key) === entry) drawing.delete(key);
        });
        entry = { promise, phase };
        drawing.set(key, entry);
      }
      const drawn = await withDeadline(entry, () => {
        // A drawing that hangs (a store that accepts connections and never answers) is dropped, so the next request
        // starts a new one instead of joining it.
        if (drawing.get(key) === entry) drawing.delete(key);
      });
      return { etag: drawn.etag, png: drawn.png };
    },
  };
}
