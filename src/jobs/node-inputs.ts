// A node's job, as POST /api/generations with `{ projectId, nodeId }` starts it (docs/api.md "Generation jobs"): its
// inputs come from its incoming edges, its settings from its data, read from the project's canvas as it is now (the
// live document). A `generation` node runs its `data.prompt` (with the text of `text` nodes wired to its prompt port
// joined after it) over the images of the nodes wired to its image port (their `data.image`, in edge order), with its
// `data.model`. When the node-kind registry (src/kinds/) resolves ports and tasks, it replaces the port reading here.
import type { LiveDocuments } from '../collab/live-documents.js';
import type { GenerationNode } from '../db/repositories/index.js';
import { invalidRequest, nodeNotFound } from '../errors.js';

export interface NodeJobInput {
  images: string[];
  prompt: string;
  model?: string;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** The node's job input; 404 when the canvas has no such node, 400 naming what the node lacks. */
export async function nodeJobInput(live: Pick<LiveDocuments, 'read'>, { projectId, nodeId }: GenerationNode): Promise<NodeJobInput> {
  const canvas = await live.read(projectId);
  const nodes = new Map<string, Rec>();
  for (const n of canvas?.nodes ?? []) if (isRec(n) && typeof n.id === 'string') nodes.set(n.id, n);
  const node = nodes.get(nodeId);
  if (!node) throw nodeNotFound(nodeId);
  if (node.type !== 'generation') throw invalidRequest(`Invalid nodeId: node ${JSON.stringify(nodeId)} is a ${JSON.stringify(String(node.type))} node, which does not run`);
  const data = isRec(node.data) ? node.data : {};
  const images: string[] = [];
  const texts: string[] = [];
  for (const e of canvas?.edges ?? []) {
    if (!isRec(e) || e.target !== nodeId || typeof e.source !== 'string') continue;
    const source = nodes.get(e.source);
    const sourceData = source && isRec(source.data) ? source.data : undefined;
    if (!sourceData) continue;
    const port = str(e.targetHandle) ?? 'images';
    if (port === 'prompt') {
      const text = str(sourceData.text);
      if (text) texts.push(text);
    } else if (port === 'images') {
      const image = str(sourceData.image);
      if (image) images.push(image);
    }
  }
  const prompt = [str(data.prompt), ...texts].filter((p): p is string => p !== undefined && p.trim().length > 0).join('\n');
  if (images.length === 0) throw invalidRequest(`No images provided: node ${JSON.stringify(nodeId)} has no input image (connect a node with an image to it)`);
  if (!prompt.trim()) throw invalidRequest(`No prompt provided: node ${JSON.stringify(nodeId)} has no prompt`);
  const model = str(data.model);
  return { images, prompt, ...(model ? { model } : {}) };
}
