// A ComfyUI workflow in its API format (an object of node id → `{ class_type, inputs }`), with placeholders the
// service fills for each generation: an input's value that is exactly `{{prompt}}`, `{{seed}}` or `{{image_N}}`
// (N from 1; `{{image}}` is `{{image_1}}`). The shipped one (./workflows/qwen-image-edit.json) edits one image with
// Qwen-Image-Edit, whose weights are Apache-2.0; COMFYUI_WORKFLOW names the operator's own. Checked when the
// service starts: a file that is not such a workflow, or lacks `{{prompt}}` or an image, stops the start with a
// message naming the problem.
import { readFileSync } from 'node:fs';

export type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: unknown }>;

export interface CheckedWorkflow {
  workflow: Workflow;
  /** Input images the workflow takes (`{{image_1}}` … `{{image_N}}`, each used at least once). */
  images: number;
}

export const SHIPPED_WORKFLOW = new URL('./workflows/qwen-image-edit.json', import.meta.url);

const PLACEHOLDER = /^\{\{\s*(prompt|seed|image(?:_(\d+))?)\s*\}\}$/;

/** Reads and checks a workflow file; throws an Error whose message names the file and the problem. */
export function loadWorkflow(file: string | URL): CheckedWorkflow {
  const name = typeof file === 'string' ? file : 'the shipped ComfyUI workflow';
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`COMFYUI_WORKFLOW: ${name} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`COMFYUI_WORKFLOW: ${name} is not JSON`, { cause: err });
  }
  return checkWorkflow(parsed, name);
}

export function checkWorkflow(value: unknown, name: string): CheckedWorkflow {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0) {
    throw new Error(`COMFYUI_WORKFLOW: ${name} is not a ComfyUI workflow in API format (an object of nodes)`);
  }
  const seen = { prompt: false, images: new Set<number>() };
  for (const [id, node] of Object.entries(value as Record<string, unknown>)) {
    const n = node as { class_type?: unknown; inputs?: unknown };
    if (typeof n !== 'object' || n === null || typeof n.class_type !== 'string' || typeof n.inputs !== 'object' || n.inputs === null) {
      throw new Error(`COMFYUI_WORKFLOW: ${name} is not in API format: node "${id}" has no class_type and inputs (export it with "Export (API)")`);
    }
    for (const input of Object.values(n.inputs as Record<string, unknown>)) {
      const m = typeof input === 'string' ? PLACEHOLDER.exec(input) : null;
      if (!m) continue;
      if (m[1] === 'prompt') seen.prompt = true;
      else if (m[1].startsWith('image')) seen.images.add(m[2] ? Number(m[2]) : 1);
    }
  }
  if (!seen.prompt) throw new Error(`COMFYUI_WORKFLOW: ${name} has no {{prompt}} placeholder (an input whose value is exactly "{{prompt}}")`);
  if (seen.images.size === 0) throw new Error(`COMFYUI_WORKFLOW: ${name} has no {{image_1}} placeholder (a LoadImage whose image is "{{image_1}}")`);
  const images = Math.max(...seen.images);
  for (let i = 1; i <= images; i++) if (!seen.images.has(i)) throw new Error(`COMFYUI_WORKFLOW: ${name} uses {{image_${images}}} but not {{image_${i}}}`);
  if (images > 16) throw new Error(`COMFYUI_WORKFLOW: ${name} takes ${images} images; at most 16`);
  return { workflow: value as Workflow, images };
}

/** The workflow with its placeholders filled: the prompt, a seed, and the uploaded images' names (in order). */
export function fillWorkflow(workflow: Workflow, values: { prompt: string; seed: number; images: string[] }): Workflow {
  const out: Workflow = {};
  for (const [id, node] of Object.entries(workflow)) {
    const inputs: Record<string, unknown> = {};
    for (const [key, input] of Object.entries(node.inputs)) {
      const m = typeof input === 'string' ? PLACEHOLDER.exec(input) : null;
      if (!m) inputs[key] = input;
      else if (m[1] === 'prompt') inputs[key] = values.prompt;
      else if (m[1] === 'seed') inputs[key] = values.seed;
      else inputs[key] = values.images[(m[2] ? Number(m[2]) : 1) - 1] ?? values.images[0];
    }
    out[id] = { ...node, inputs };
  }
  return out;
}
