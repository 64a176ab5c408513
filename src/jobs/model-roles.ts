// A node's model must do what its kind asks (its `task.models.role`, src/kinds/kind.ts: an edit's model `inpaint`s,
// an upscale's `upscale`s, …) and be one this deployment runs: a run (src/runs/coordinator.ts start) and a node's job
// (POST /api/generations with a node, ./runner.ts startNode) refuse a node whose model does not, before anything is
// stored or queued. The model is the node's as graph.ts resolves it: `data.model`, else its kind's default (a
// node of a kind with none that names none runs the service's default, as SPEC's generations always have).
import { kindOf } from '../kinds/index.js';
import type { ModelRegistry } from '../models/registry.js';

export type ModelCatalogue = Pick<ModelRegistry, 'find'>;

/** What is wrong with the node's model for its kind (a sentence naming the model and the node), or undefined. */
export function modelRoleProblem(models: ModelCatalogue, node: { id: string; type: string }, model: string | null | undefined): string | undefined {
  const wanted = kindOf(node.type)?.task?.models;
  const id = model ?? wanted?.default;
  if (!wanted || id === undefined) return undefined; // the service's default runs as the default (SPEC's behaviour)
  const who = `node ${JSON.stringify(node.id)} (${node.type}) needs a model that does ${wanted.role} (GET /api/models)`;
  const entry = models.find(id);
  if (!entry) return `model ${JSON.stringify(id)} is not offered by this deployment: ${who}`;
  if (entry.does.includes(wanted.role)) return undefined;
  return wanted.role === 'inpaint' ? `model ${JSON.stringify(id)} cannot take a mask: ${who}` : `model ${JSON.stringify(id)} does not ${wanted.role}: ${who}`;
}
