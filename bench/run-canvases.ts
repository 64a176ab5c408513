// The canvases that graph runs are measured on (issue 35 point 7), shared by `npm run bench`'s runs section
// (./runs.ts) and the live load test's runs (load/live-runs.ts): one uploaded picture feeding a chain of `adjust`
// nodes (each adjusting the result of the one before: the offline, near-instant image-steps task), and one picture
// with a `list` of prompts into a generation node (the offline engine, IMAGE_MODEL=local, fanned out per prompt).
import sharp from 'sharp';
import { uploadFile, type HttpClient } from '../test/helpers/http-client.js';

/** Nodes of the chain: the 50. */
export const CHAIN_NODES = 50;
/** The chain's upload node; its adjust nodes are `a1` … `aN` (`a1` takes the upload, `a(i+1)` takes `ai`). */
export const CHAIN_SOURCE = 'src';
export const chainNodeId = (i: number) => `a${i + 1}`;

/** A photo-like square PNG (a gradient with noise and a disc), `size` pixels a side; `seed` varies the noise. */
export async function picture(size: number, seed = 0): Promise<Buffer> {
  const raw = Buffer.alloc(size * size * 3);
  for (let p = 0; p < raw.length; p++) raw[p] = ((p % (size * 3)) / (size / 60) + ((p * 7919 + seed * 31) % 29)) & 0xff;
  const disc = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><circle cx="${size / 2}" cy="${size / 2}" r="${size / 4}" fill="#e63946"/></svg>`);
  return sharp(raw, { raw: { width: size, height: size, channels: 3 } }).composite([{ input: disc }]).png().toBuffer();
}

/** Uploads the picture through POST /api/upload (as the editor does) and answers its URL in our store. */
export async function uploadPicture(client: HttpClient, png: Buffer, name = 'bench.png'): Promise<string> {
  const sent = await uploadFile(client, png, { filename: name });
  if (sent.status !== 200) throw new Error(`POST /api/upload → ${sent.status} ${sent.text.slice(0, 200)}`);
  return sent.json.url as string;
}

/**
 * Adjust node i's settings: its hue turned a few degrees one way or the other (one `modulate` step, a near-instant
 * task). `variant` changes the first node only (its brightness), so every node's key changes with it (keys chain):
 * a new variant is a chain that must run again in full, an old one is found in the cache.
 */
export function adjustData(i: number, variant = 0): Record<string, unknown> {
  return { type: 'adjust', hue: i % 2 === 0 ? 7 : -7, ...(i === 0 && variant > 0 ? { brightness: 1 + (variant % 30_000) / 10_000 } : {}) };
}

/** The chain as a REST save sends it: the upload, then `n` adjust nodes each wired to the one before. */
export function chainCanvas(imageUrl: string, n = CHAIN_NODES, variant = 0) {
  const nodes = [
    { id: CHAIN_SOURCE, type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: imageUrl } },
    ...Array.from({ length: n }, (_, i) => ({ id: chainNodeId(i), type: 'adjust', position: { x: 300 * (i + 1), y: (i % 2) * 80 }, data: adjustData(i, variant) })),
  ];
  const edges = Array.from({ length: n }, (_, i) => ({ id: `e${i + 1}`, source: i === 0 ? CHAIN_SOURCE : chainNodeId(i - 1), target: chainNodeId(i) }));
  return { nodes, edges };
}

/** What the offline engine understands and does to one image, as prompts (src/models/local-operations.ts). */
const SINGLE_IMAGE_HINTS = ['grayscale', 'sepia', 'invert', 'sharpen', 'flip', 'mirror', 'brighten', 'darken', 'more contrast', 'less contrast', 'square crop'];

/** `n` different prompts the offline engine acts on ("grayscale", "sepia", …, then "rotate 1", "rotate 2", …): `n` different keys. */
export function listPrompts(n: number): string[] {
  return Array.from({ length: n }, (_, i) => (i < SINGLE_IMAGE_HINTS.length ? SINGLE_IMAGE_HINTS[i] : `rotate ${i - SINGLE_IMAGE_HINTS.length + 1}`));
}

export const LIST_NODE = 'prompts';
export const LIST_TARGET = 'gen';

/** An upload and a `list` of prompts feeding one generation node (its images and its prompt port). */
export function listCanvas(imageUrl: string, prompts: string[]) {
  return {
    nodes: [
      { id: CHAIN_SOURCE, type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: imageUrl } },
      { id: LIST_NODE, type: 'list', position: { x: 0, y: 300 }, data: { type: 'list', items: prompts } },
      { id: LIST_TARGET, type: 'generation', position: { x: 400, y: 100 }, data: { type: 'generation', prompt: '' } },
    ],
    edges: [
      { id: 'e-image', source: CHAIN_SOURCE, target: LIST_TARGET },
      { id: 'e-prompts', source: LIST_NODE, target: LIST_TARGET, targetHandle: 'prompt' },
    ],
  };
}

/** A new project of the user's with this canvas saved over REST; answers its id. */
export async function projectWith(client: HttpClient, userId: string, name: string, canvas: { nodes: unknown[]; edges: unknown[] }): Promise<string> {
  const created = await client.post('/api/user/project', { userId, name });
  if (created.status !== 200) throw new Error(`POST /api/user/project → ${created.status} ${created.text.slice(0, 200)}`);
  const projectId = created.json.id as string;
  const saved = await client.post('/api/user/project/canvas', { projectId, ...canvas, version: 0 });
  if (saved.status !== 200) throw new Error(`saving the ${name} canvas → ${saved.status} ${saved.text.slice(0, 300)}`);
  return projectId;
}
