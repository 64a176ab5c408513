// A node's job, as POST /api/generations with `{ projectId, nodeId }` starts it (docs/api.md "Generation jobs"): its
// inputs come from its incoming edges, its settings from its data, read from the project's canvas as it is now (the
// live document). A `generation` node runs its `data.prompt` (with the text of `text` nodes wired to its text port
// joined after it) over the images of the nodes wired to its image port (their `data.image`, in edge order), with its
// `data.model`; which port an edge reaches, and what it carries, is its kind's (src/kinds/generation.ts inputs).
// A node whose kind edits an image (its task `image-steps`: crop, resize, adjust) takes the image wired into its
// default input (stepsJobInput below).
import type { LiveDocuments } from '../collab/live-documents.js';
import type { GenerationNode } from '../db/repositories/index.js';
import { invalidRequest, nodeNotFound } from '../errors.js';
import { IMAGE_STEPS_TASK } from '../kinds/image-steps.js';
import { kindOf, portOf } from '../kinds/index.js';

export interface NodeJobInput {
  images: string[];
  prompt: string;
  model?: string;
  /** The task the job runs (./task.ts); `generation` when absent. */
  taskKind?: string;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);

/**
 * The node's job input; 404 when the canvas has no such node, 400 naming what the node lacks. `run.model`: the model
 * the start asks for (else the node's); `run.needsPrompt(model)`: whether that model needs a prompt (absent: all do).
 */
export async function nodeJobInput(
  live: Pick<LiveDocuments, 'read'>,
  { projectId, nodeId }: GenerationNode,
  run: { model?: string; needsPrompt?: (model: string | undefined) => boolean } = {},
): Promise<NodeJobInput> {
  const canvas = await live.read(projectId);
  const nodes = new Map<string, Rec>();
  for (const n of canvas?.nodes ?? []) if (isRec(n) && typeof n.id === 'string') nodes.set(n.id, n);
  const node = nodes.get(nodeId);
  if (!node) throw nodeNotFound(nodeId);
  const kind = kindOf(node.type);
  if (kind?.task?.kind === IMAGE_STEPS_TASK) return stepsJobInput(canvas?.edges ?? [], nodes, node, nodeId);
  if (!kind || kind.type !== 'generation') throw invalidRequest(`Invalid nodeId: node ${JSON.stringify(nodeId)} is a ${JSON.stringify(String(node.type))} node, which does not run`);
  const data = isRec(node.data) ? node.data : {};
  const images: string[] = [];
  const texts: string[] = [];
  for (const e of canvas?.edges ?? []) {
    if (!isRec(e) || e.target !== nodeId || typeof e.source !== 'string') continue;
    const source = nodes.get(e.source);
    const sourceData = source && isRec(source.data) ? source.data : undefined;
    if (!sourceData) continue;
    const port = portOf(kind.inputs, str(e.targetHandle)); // no handle (SPEC's edges): the default, its images
    if (port?.value === 'text') {
      const text = str(sourceData.text);
      if (text) texts.push(text);
    } else if (port?.value === 'image') {
      const image = str(sourceData.image);
      if (image) images.push(image);
    }
  }
  const prompt = [str(data.prompt), ...texts].filter((p): p is string => p !== undefined && p.trim().length > 0).join('\n');
  if (images.length === 0) throw invalidRequest(`No images provided: node ${JSON.stringify(nodeId)} has no input image (connect a node with an image to it)`);
  const model = str(data.model);
  if (!prompt.trim() && (run.needsPrompt?.(run.model ?? model) ?? true)) throw invalidRequest(`No prompt provided: node ${JSON.stringify(nodeId)} has no prompt`);
  return { images, prompt, ...(model ? { model } : {}) };
}

/**
 * A steps kind's node (`crop`, `resize`, `adjust`, …: src/kinds/image-steps.ts): its one input is the image of the
 * node wired into its default image port. The job records that image's URL and the node's kind as its model; the
 * task (./tasks/image-steps.ts) reads the node's data when it runs. 400 naming the node when nothing with an image
 * is wired in.
 */
function stepsJobInput(edges: readonly unknown[], nodes: ReadonlyMap<string, Rec>, node: Rec, nodeId: string): NodeJobInput {
  const kind = kindOf(node.type)!;
  const port = portOf(kind.inputs, undefined);
  const what = `node ${JSON.stringify(nodeId)} (${kind.type})`;
  const wired = edges.filter((e): e is Rec => isRec(e) && e.target === nodeId && typeof e.source === 'string' && portOf(kind.inputs, e.targetHandle as string | null | undefined) === port);
  if (wired.length === 0) throw invalidRequest(`No input image: ${what} has nothing connected to its ${port?.name ?? 'image'} input (connect a node with an image to it)`);
  const source = nodes.get(wired[0].source as string);
  const image = source && isRec(source.data) ? str(source.data.image) : undefined;
  if (!image) throw invalidRequest(`No input image: node ${JSON.stringify(wired[0].source)}, connected to ${what}, has no image yet`);
  return { images: [image], prompt: '', model: kind.type, taskKind: IMAGE_STEPS_TASK };
}
