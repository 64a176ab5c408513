// A generation node's model (its `data.model` in the live document, docs/api.md "Models") against the catalogue
// this deployment runs: which model a run would use, and why Generate cannot run with it — a model the catalogue
// does not list, or more input images than the model accepts (the service refuses both with 400).
import type { ImageModelInfo } from '../api/client';

/** The models this deployment runs, as far as this page knows (hooks/use-models.ts reads them). */
export type ModelCatalogue =
  | { state: 'loading' }
  | { state: 'loaded'; models: ImageModelInfo[] }
  /** Not signed in, or the request failed. */
  | { state: 'unavailable' };

export interface ModelStatus {
  /** The node's own choice; undefined: none, the default runs. */
  chosenId?: string;
  /** The model a run uses (the chosen one, or the default), when the catalogue is known and lists it. */
  model?: ImageModelInfo;
  /** The catalogue is known and does not list the chosen model. */
  unavailable: boolean;
  /** Why Generate cannot run; undefined when it can (as far as the client knows). */
  blocked?: string;
}

/** The node's choice as stored: a non-empty string, or none (absent, or anything else a peer wrote). */
export const chosenModel = (model: unknown): string | undefined => (typeof model === 'string' && model !== '' ? model : undefined);

export function modelStatus(model: unknown, catalogue: ModelCatalogue, inputs: number): ModelStatus {
  const chosenId = chosenModel(model);
  if (catalogue.state !== 'loaded') return { chosenId, unavailable: false };
  const found = chosenId === undefined ? catalogue.models.find((m) => m.default) : catalogue.models.find((m) => m.id === chosenId);
  if (chosenId !== undefined && !found) {
    return { chosenId, unavailable: true, blocked: `“${chosenId}” is not a model this service runs: choose another model` };
  }
  // The service holds a model to its input limit only when the generation names it (docs/api.md "Models"): the
  // default runs with the service's own limit, so only a chosen model blocks Generate.
  const blocked =
    chosenId !== undefined && found && inputs > found.maxInputs ? `Too many input images: ${found.label} accepts at most ${found.maxInputs} (this node has ${inputs})` : undefined;
  return { chosenId, model: found, unavailable: false, blocked };
}

/** The catalogue as a node whose kind runs models of `role` sees it: only the models whose `does` has the role. */
export function withRole(catalogue: ModelCatalogue, role: ImageModelInfo['does'][number]): ModelCatalogue {
  return catalogue.state === 'loaded' ? { state: 'loaded', models: catalogue.models.filter((m) => m.does.includes(role)) } : catalogue;
}
