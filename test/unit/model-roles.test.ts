// A node's model must do its kind's role (src/jobs/model-roles.ts): an edit's model inpaints, an upscale's upscales,
// a remove-background's removes backgrounds; a model this deployment does not run is refused for them too. A
// generation node keeps SPEC's behaviour (its model, or the default, fails in its job if it cannot run).
import { describe, expect, it } from 'vitest';
import { modelRoleProblem } from '../../src/jobs/model-roles.js';
import { createModelRegistry } from '../../src/models/registry.js';

const models = createModelRegistry(
  { model: 'local', providers: { gemini: { apiKey: 'k' }, openai: {}, fal: {}, replicate: {} }, timeoutMs: 1000, maxConcurrent: 1 },
  () => Promise.reject(new Error('not built here')),
  4,
);
const problem = (type: string, model: string | null) => modelRoleProblem(models, { id: 'n1', type }, model);

describe('model roles', () => {
  it('takes a model that does the kind role, and the kind default', () => {
    expect(problem('edit', 'inpaint-telea')).toBeUndefined();
    expect(problem('edit', 'inpaint-ns')).toBeUndefined();
    expect(problem('edit', null)).toBeUndefined(); // inpaint-telea
    expect(problem('upscale', 'esrgan-slim-4x')).toBeUndefined();
    expect(problem('upscale', null)).toBeUndefined(); // esrgan-slim-2x
  });

  it('refuses a model without the role, naming the model and the node', () => {
    expect(problem('edit', 'gemini-2.5-flash-image')).toBe('model "gemini-2.5-flash-image" cannot take a mask: node "n1" (edit) needs a model that does inpaint (GET /api/models)');
    expect(problem('upscale', 'local')).toBe('model "local" cannot upscale: node "n1" (upscale) needs a model that does upscale (GET /api/models)');
    expect(problem('remove-background', 'esrgan-slim-2x')).toBe('model "esrgan-slim-2x" cannot remove backgrounds: node "n1" (remove-background) needs a model that does remove-background (GET /api/models)');
    expect(problem('generation', 'inpaint-telea')).toBe('model "inpaint-telea" cannot generate images: node "n1" (generation) needs a model that does generate (GET /api/models)');
  });

  it('refuses a model this deployment does not run, except for a generation node (it fails in its job, as before)', () => {
    expect(problem('edit', 'gpt-image-1')).toBe('model "gpt-image-1" is not offered by this deployment: node "n1" (edit) needs a model that does inpaint (GET /api/models)');
    expect(problem('generation', 'gpt-image-1')).toBeUndefined();
    expect(problem('generation', null)).toBeUndefined();
    expect(problem('text', null)).toBeUndefined(); // a kind that runs no model
    expect(problem('crop', null)).toBeUndefined();
  });
});
