// A run's estimate (src/runs/prices.ts, DESIGN.md §12 "Prices"): each job by its model's published price in the
// catalogue, 0 from the cache, for the offline models and the image-steps kinds; null when unpriced.
import { describe, expect, it } from 'vitest';
import { MODEL_INFO, IMAGE_MODELS, type ModelInfo } from '../../src/models/catalogue.js';
import { estimateOf, jobCostUsd, perImageUsd } from '../../src/runs/prices.js';

const gen = (model: string | null) => ({ taskKind: 'generation', model });

describe('the catalogue carries prices', () => {
  it('every hosted model with a price per image has the same figure as costPerImageUsd, and every price names its source', () => {
    for (const id of IMAGE_MODELS) {
      const info: ModelInfo = MODEL_INFO[id];
      if (info.offline) expect(info.price, id).toEqual({ perImageUsd: 0, source: expect.stringMatching(/offline/) });
      if (info.costPerImageUsd !== undefined) expect(info.price?.perImageUsd, id).toBe(info.costPerImageUsd);
      if (info.price && !info.offline && info.provider !== 'comfyui') expect(info.price.source, id).toMatch(/^https:\/\/\S+ \(read 2026-11\)$/);
    }
    expect(MODEL_INFO.comfyui.price).toEqual({ perImageUsd: 0, source: 'self-hosted' });
    expect(MODEL_INFO['gpt-image-1'].price).toMatchObject({ per1kTokensUsd: 0.04, tokensPerImage: 1056 });
  });

  it("says which models take a seed: fal's, Replicate's Kontext and Qwen, ComfyUI; not Gemini, OpenAI, Nano Banana on Replicate nor the offline engine", () => {
    const seeded = IMAGE_MODELS.filter((id) => (MODEL_INFO[id] as ModelInfo).takesSeed === true);
    expect(seeded).toEqual(['fal-ai/nano-banana/edit', 'fal-ai/flux-pro/kontext', 'fal-ai/qwen-image-edit', 'fal-ai/flux-pro/v1/fill', 'black-forest-labs/flux-kontext-pro', 'qwen/qwen-image-edit', 'black-forest-labs/flux-fill-pro', 'comfyui', 'comfyui-inpaint']);
  });
});

describe('jobCostUsd', () => {
  it('prices a generation by its model, the default when it names none', () => {
    expect(jobCostUsd(gen('gemini-2.5-flash-image'), 'local')).toBe(0.039);
    expect(jobCostUsd(gen(null), 'gemini-3-pro-image-preview')).toBe(0.134);
    expect(jobCostUsd(gen('fal-ai/flux-pro/kontext'), 'local')).toBe(0.04);
    expect(jobCostUsd(gen('google/nano-banana'), 'local')).toBe(0.039);
  });

  it('takes gpt-image-1 at 1,056 output tokens (a medium 1024² image) at $0.04 per 1,000', () => {
    expect(jobCostUsd(gen('gpt-image-1'), 'local')).toBe(0.04224);
    expect(perImageUsd({ ...MODEL_INFO['gpt-image-1'], price: { per1kTokensUsd: 0.04, source: 'x' } })).toBeNull(); // no tokens per image: no figure
  });

  it('is 0 for the offline models, ComfyUI (self-hosted) and the image-steps kinds', () => {
    for (const model of ['local', 'esrgan-slim-2x', 'esrgan-slim-4x', 'inpaint-telea', 'comfyui']) expect(jobCostUsd(gen(model), 'gemini-2.5-flash-image'), model).toBe(0);
    expect(jobCostUsd({ taskKind: 'image-steps', model: null }, 'gemini-2.5-flash-image')).toBe(0);
  });

  it('is null for a model without a published price, an unknown model and an unknown task kind', () => {
    expect(jobCostUsd(gen('fal-ai/qwen-image-edit'), 'local')).toBeNull();
    expect(jobCostUsd(gen('qwen/qwen-image-edit'), 'local')).toBeNull();
    expect(jobCostUsd(gen('flux-9'), 'local')).toBeNull();
    expect(jobCostUsd({ taskKind: 'llm', model: 'gemini-2.5-flash-image' }, 'local')).toBeNull();
    expect(perImageUsd({ ...MODEL_INFO['gemini-2.5-flash-image'], price: { perSecondUsd: 0.1, source: 'x' } })).toBeNull(); // per second needs a duration
  });
});

describe('estimateOf', () => {
  it('sums per node and in total; a cached job costs nothing; a node is cached when all its jobs are', () => {
    const estimate = estimateOf(
      [
        { nodeId: 'a', taskKind: 'generation', model: 'gemini-2.5-flash-image', cached: false },
        { nodeId: 'a', taskKind: 'generation', model: 'gemini-2.5-flash-image', cached: true },
        { nodeId: 'a', taskKind: 'generation', model: 'gemini-2.5-flash-image', cached: false },
        { nodeId: 'b', taskKind: 'image-steps', model: null, cached: false },
        { nodeId: 'c', taskKind: 'generation', model: null, cached: true },
      ],
      'gemini-3-pro-image-preview',
    );
    expect(estimate).toEqual({
      totalUsd: 0.078,
      unpriced: 0,
      nodes: [
        { nodeId: 'a', jobs: 3, cached: false, costUsd: 0.078 },
        { nodeId: 'b', jobs: 1, cached: false, costUsd: 0 },
        { nodeId: 'c', jobs: 1, cached: true, costUsd: 0 },
      ],
    });
  });

  it('counts unpriced jobs apart: their node costs null, the total leaves them out', () => {
    const estimate = estimateOf(
      [
        { nodeId: 'q', taskKind: 'generation', model: 'fal-ai/qwen-image-edit', cached: false },
        { nodeId: 'q', taskKind: 'generation', model: 'fal-ai/qwen-image-edit', cached: false },
        { nodeId: 'q2', taskKind: 'generation', model: 'fal-ai/qwen-image-edit', cached: true },
        { nodeId: 'g', taskKind: 'generation', model: 'gpt-image-1', cached: false },
      ],
      'local',
    );
    expect(estimate).toEqual({
      totalUsd: 0.04224,
      unpriced: 2,
      nodes: [
        { nodeId: 'q', jobs: 2, cached: false, costUsd: null },
        { nodeId: 'q2', jobs: 1, cached: true, costUsd: 0 },
        { nodeId: 'g', jobs: 1, cached: false, costUsd: 0.04224 },
      ],
    });
  });

  it('sums without floating-point dust (ten $0.039 images are $0.39)', () => {
    const steps = Array.from({ length: 10 }, () => ({ nodeId: 'n', taskKind: 'generation', model: 'gemini-2.5-flash-image', cached: false }));
    expect(estimateOf(steps, 'local')).toMatchObject({ totalUsd: 0.39, nodes: [{ costUsd: 0.39 }] });
    expect(estimateOf([], 'local')).toEqual({ totalUsd: 0, unpriced: 0, nodes: [] });
  });
});
