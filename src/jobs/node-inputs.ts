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
  /** The input port each image reaches (parallel to `images`); absent: the kind's default. */
  inputPorts?: string[];
  prompt: string;
  model?: string;
  /** The task the job runs (./task.ts); `generation` when absent. */
  taskKind?: string;
  /** The node's kind (its model's role is checked against it: ./model-roles.ts). */
  nodeType?: string;
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
  if (kind?.task && kind.type !== 'generation') return portsJobInput(canvas?.edges ?? [], nodes, node, nodeId);
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
  return { images, prompt, ...(model ? { model } : {}), nodeType: kind.type };
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

/**
 * A node of another kind that runs (`edit`, `compose`, `upscale`, `remove-background`, …): the images wired into its
 * image and mask inputs, each with its port (edges in canvas order; a port that takes one value, its first edge), the
 * texts wired into a text input joined after its `data.prompt`, and its model (`data.model`, else its kind's default;
 * a kind that runs no model records its own type). 400 naming the node and port when an input it needs is not
 * connected or has no image yet.
 */
function portsJobInput(edges: readonly unknown[], nodes: ReadonlyMap<string, Rec>, node: Rec, nodeId: string): NodeJobInput {
  const kind = kindOf(node.type)!;
  const data = isRec(node.data) ? node.data : {};
  const what = `node ${JSON.stringify(nodeId)} (${kind.type})`;
  const images: string[] = [];
  const inputPorts: string[] = [];
  const texts: string[] = [];
  const taken = new Map<string, number>();
  for (const e of edges) {
    if (!isRec(e) || e.target !== nodeId || typeof e.source !== 'string') continue;
    const port = portOf(kind.inputs, e.targetHandle as string | null | undefined);
    if (!port || (!port.list && (taken.get(port.name) ?? 0) > 0)) continue;
    taken.set(port.name, (taken.get(port.name) ?? 0) + 1);
    const source = nodes.get(e.source);
    const sourceData = source && isRec(source.data) ? source.data : {};
    if (port.value === 'text') {
      const text = str(sourceData.text);
      if (text) texts.push(text);
      continue;
    }
    // A mask node gives its mask at its `mask` output, its input image at `image`; any other node its `data.image`.
    const sourceKind = source ? kindOf(source.type) : undefined;
    const from = sourceKind ? portOf(sourceKind.outputs, e.sourceHandle as string | null | undefined) : undefined;
    const image = from?.value === 'mask' ? str(sourceData.mask) : str(sourceData.image);
    if (!image) throw invalidRequest(`No input ${port.value}: node ${JSON.stringify(e.source)}, connected to the ${port.name} input of ${what}, has no ${port.value} yet`);
    images.push(image);
    inputPorts.push(port.name);
  }
  const needed = [kind.inputs.find((p) => p.default)?.name, ...(kind.requires?.(data) ?? [])].filter((n): n is string => n !== undefined);
  for (const name of needed) {
    if (!taken.has(name)) throw invalidRequest(`No input ${name}: ${what} has nothing connected to its ${name} input`);
  }
  const prompt = [str(data.prompt), ...texts].filter((p): p is string => p !== undefined && p.trim().length > 0).join('\n');
  const model = str(data.model) ?? kind.task?.models?.default ?? (kind.task?.models ? undefined : kind.type);
  return { images, inputPorts, prompt, ...(model ? { model } : {}), taskKind: kind.task!.kind, nodeType: kind.type };
}

/**
 * A job's images by the input port each reaches (`inputPorts`, parallel to `images`; absent: all at `defaultPort`),
 * in order within a port: how a task of a kind with several image inputs reads them (an edit's image and mask).
 */
export function imagesByPort(job: { images: readonly string[]; inputPorts: readonly string[] | null }, defaultPort: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  job.images.forEach((url, i) => {
    const port = job.inputPorts?.[i] ?? defaultPort;
    const list = out.get(port);
    if (list) list.push(url);
    else out.set(port, [url]);
  });
  return out;
}
