// A node whose kind runs a model of a role (src/kinds/model-roles.ts, graph.ts): a remove-background node with no
// model (its role has no default: no offline one ships) is blocked naming the keys that add one, and so is
// everything downstream; with a model, or an upscale node with none (its default, ESRGAN), or a generation with none
// (the deployment's default), it runs.
import { describe, expect, it } from 'vitest';
import { graphOf, keysOf, marksOf, type CanvasLike } from '../../src/kinds/graph.js';

type Data = Record<string, unknown>;
const node = (id: string, type: string, data: Data = {}) => ({ id, type, position: { x: 0, y: 0 }, data: { type, ...data } });
const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, target });
const canvas = (steps: ReturnType<typeof node>[]): CanvasLike => ({
  nodes: [node('in', 'upload', { image: 'https://img.example/in.png' }), ...steps],
  edges: steps.map((s) => edge('in', s.id)),
});

describe('a node of a model role with no model', () => {
  it('blocks a remove-background node with none, naming the keys; not one with a model, an upscale or a generation with none', () => {
    const c = canvas([node('bg', 'remove-background'), node('bg2', 'remove-background', { model: 'fal-ai/bria/background/remove' }), node('up', 'upscale'), node('g', 'generation', { prompt: 'p' })]);
    const graph = graphOf(c);
    const keys = keysOf(graph);
    expect(keys.get('bg')).toMatchObject({ key: null, problem: 'node "bg" (remove-background) has no model: choose a background-removal model (none is configured unless FAL_KEY or REPLICATE_API_TOKEN is set)' });
    expect(marksOf(graph, keys).get('bg')).toBe('blocked');
    for (const [id, model] of [
      ['bg2', 'fal-ai/bria/background/remove'],
      ['up', 'esrgan-slim-2x'],
      ['g', null],
    ] as const) {
      expect(keys.get(id)?.model, id).toBe(model);
      expect(keys.get(id)?.problem, id).toBeUndefined();
      expect(keys.get(id)?.key, id).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});
