// A ComfyUI workflow in its API format (an object of node id → `{ class_type, inputs }`), with placeholders the
// service fills for each generation: an input's value that is exactly `{{prompt}}`, `{{seed}}` or `{{image_N}}`
// (N from 1; `{{image}}` is `{{image_1}}`). The shipped one (./workflows/qwen-image-edit.json) edits one image with
// Qwen-Image-Edit, whose weights are Apache-2.0; COMFYUI_WORKFLOW names the operator's own. An inpainting workflow
// (the `comfyui-inpaint` model: COMFYUI_INPAINT_WORKFLOW, or ./workflows/qwen-image-inpaint.json with the same
// weights) has a `{{mask}}` placeholder too: the uploaded mask's name (white edits), for a LoadImageMask; only such a
// workflow has one. Checked when the service starts: a file that is not such a workflow, or lacks `{{prompt}}`, an
// image or (inpainting) the mask, stops the start with a message naming the problem.
import { readFileSync } from 'node:fs';

export type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: unknown }>;

export interface CheckedWorkflow {
  workflow: Workflow;
  /** Input images the workflow takes (`{{image_1}}` … `{{image_N}}`, each used at least once). */
  images: number;
}

/** What a workflow is checked as: its setting (named in the messages), and whether it inpaints (has `{{mask}}`). */
export interface WorkflowKind {
  setting: 'COMFYUI_WORKFLOW' | 'COMFYUI_INPAINT_WORKFLOW';
  mask: boolean;
}

const EDIT: WorkflowKind = { setting: 'COMFYUI_WORKFLOW', mask: false };
export const INPAINT: WorkflowKind = { setting: 'COMFYUI_INPAINT_WORKFLOW', mask: true };

export const SHIPPED_WORKFLOW = new URL('./workflows/qwen-image-edit.json', import.meta.url);
export const SHIPPED_INPAINT_WORKFLOW = new URL('./workflows/qwen-image-inpaint.json', import.meta.url);

const PLACEHOLDER = /^\{\{\s*(prompt|seed|mask|image(?:_(\d+))?)\s*\}\}$/;

/** Reads and checks a workflow file; throws an Error whose message names the file and the problem. */
export function loadWorkflow(file: string | URL, kind: WorkflowKind = EDIT): CheckedWorkflow {
  const setting = kind.setting;
  const name = typeof file === 'string' ? file : `the shipped ComfyUI ${kind.mask ? 'inpainting ' : ''}workflow`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${setting}: ${name} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${setting}: ${name} is not JSON`, { cause: err });
  }
  return checkWorkflow(parsed, name, kind);
}

export function checkWorkflow(value: unknown, name: string, kind: WorkflowKind = EDIT): CheckedWorkflow {
  const setting = kind.setting;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0) {
    throw new Error(`${setting}: ${name} is not a ComfyUI workflow in API format (an object of nodes)`);
  }
  const seen = { prompt: false, mask: false, images: new Set<number>() };
  for (const [id, node] of Object.entries(value as Record<string, unknown>)) {
    const n = node as { class_type?: unknown; inputs?: unknown };
    if (typeof n !== 'object' || n === null || typeof n.class_type !== 'string' || typeof n.inputs !== 'object' || n.inputs === null) {
      throw new Error(`${setting}: ${name} is not in API format: node "${id}" has no class_type and inputs (export it with "Export (API)")`);
    }
    for (const input of Object.values(n.inputs as Record<string, unknown>)) {
      const m = typeof input === 'string' ? PLACEHOLDER.exec(input) : null;
      if (!m) continue;
      if (m[1] === 'prompt') seen.prompt = true;
      else if (m[1] === 'mask') seen.mask = true;
      else if (m[1].startsWith('image')) seen.images.add(m[2] ? Number(m[2]) : 1);
    }
  }
  if (!seen.prompt) throw new Error(`${setting}: ${name} has no {{prompt}} placeholder (an input whose value is exactly "{{prompt}}")`);
  if (seen.images.size === 0) throw new Error(`${setting}: ${name} has no {{image_1}} placeholder (a LoadImage whose image is "{{image_1}}")`);
  if (kind.mask && !seen.mask) throw new Error(`${setting}: ${name} has no {{mask}} placeholder (a LoadImageMask whose image is "{{mask}}")`);
  if (!kind.mask && seen.mask) throw new Error(`${setting}: ${name} has a {{mask}} placeholder: an inpainting workflow goes in COMFYUI_INPAINT_WORKFLOW`);
  const images = Math.max(...seen.images);
  for (let i = 1; i <= images; i++) if (!seen.images.has(i)) throw new Error(`${setting}: ${name} uses {{image_${images}}} but not {{image_${i}}}`);
  if (images > 16) throw new Error(`${setting}: ${name} takes ${images} images; at most 16`);
  return { workflow: value as Workflow, images };
}

/** The workflow with its placeholders filled: the prompt, a seed, the uploaded images' names (in order) and mask's. */
export function fillWorkflow(workflow: Workflow, values: { prompt: string; seed: number; images: string[]; mask?: string }): Workflow {
  const out: Workflow = {};
  for (const [id, node] of Object.entries(workflow)) {
    const inputs: Record<string, unknown> = {};
    for (const [key, input] of Object.entries(node.inputs)) {
      const m = typeof input === 'string' ? PLACEHOLDER.exec(input) : null;
      if (!m) inputs[key] = input;
      else if (m[1] === 'prompt') inputs[key] = values.prompt;
      else if (m[1] === 'seed') inputs[key] = values.seed;
      else if (m[1] === 'mask') {
        if (values.mask === undefined) throw new Error('the workflow inpaints a mask, and was given none');
        inputs[key] = values.mask;
      }
      else inputs[key] = values.images[(m[2] ? Number(m[2]) : 1) - 1] ?? values.images[0];
    }
    out[id] = { ...node, inputs };
  }
  return out;
}
