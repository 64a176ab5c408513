// What a node of a kind that runs a model (its `task.models`) says when it has none: no `data.model` and no default
// for its role (remove-background: no offline model ships, so only a hosted one can do it). The run is blocked with
// this reason (graph.ts) and the node says which keys make a model of the role available (web: role-model-picker).
import type { ModelRole } from './kind.js';

/** What does the role, in words ("a background-removal model"). */
export const ROLE_NOUNS: Readonly<Record<ModelRole, string>> = {
  generate: 'an image model',
  inpaint: 'an inpainting model',
  upscale: 'an upscaling model',
  'remove-background': 'a background-removal model',
};

/** The keys whose providers offer a model of the role when no offline one does. */
export const ROLE_KEYS: Readonly<Partial<Record<ModelRole, string>>> = {
  'remove-background': 'FAL_KEY or REPLICATE_API_TOKEN',
};

/** Why a node of the role with no model cannot run (after "Node x has no model: "). */
export function noModelReason(role: ModelRole): string {
  const keys = ROLE_KEYS[role];
  return `choose ${ROLE_NOUNS[role]}${keys ? ` (none is configured unless ${keys} is set)` : ''}`;
}
