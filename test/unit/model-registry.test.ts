// Which models a deployment offers and which model a generation calls (src/models/registry.ts): keys per provider,
// IMAGE_MODEL_API_KEY for the default's provider, the fallback on the default only, and each model built once.
import { describe, expect, it } from 'vitest';
import { ModelFailedError, type GenerateRequest, type ImageModel } from '../../src/models/index.js';
import { createModelRegistry, type ModelAccess, type ModelSettings } from '../../src/models/registry.js';

const none = { gemini: {}, openai: {}, fal: {}, replicate: {} };
const settings = (over: Partial<ModelSettings>): ModelSettings => ({ model: 'local', providers: none, timeoutMs: 1000, maxConcurrent: 2, ...over });
const request = (): GenerateRequest => ({ images: [], prompt: 'p', signal: new AbortController().signal });

/** Builds models that answer with their own id, or fail when their id is in `failing`; records each build. */
function builder(failing: string[] = []) {
  const built: { model: string; access: ModelAccess }[] = [];
  const build = async (model: string, access: ModelAccess): Promise<ImageModel> => {
    built.push({ model, access });
    return {
      id: model,
      async generate() {
        if (failing.includes(model)) throw new ModelFailedError(`${model} is down`);
        return { text: model };
      },
    };
  };
  return { built, build };
}

describe('model registry', () => {
  it('offers the offline models alone without keys (the engine capped to the service’s image limit, and the upscalers)', () => {
    const { build } = builder();
    const registry = createModelRegistry(settings({}), build, 4);
    expect(registry.list()).toEqual([
      expect.objectContaining({ id: 'local', provider: 'offline', maxInputs: 4, default: true }),
      expect.objectContaining({ id: 'esrgan-slim-2x', provider: 'offline', maxInputs: 1, offline: true, default: false }),
      expect.objectContaining({ id: 'esrgan-slim-4x', provider: 'offline', maxInputs: 1, offline: true, default: false }),
      expect.objectContaining({ id: 'inpaint-telea', provider: 'offline', maxInputs: 1, offline: true, default: false, does: ['inpaint'], takesMask: true, takesPrompt: false }),
      expect.objectContaining({ id: 'inpaint-ns', provider: 'offline', maxInputs: 1, offline: true, default: false, does: ['inpaint'], takesMask: true, takesPrompt: false }),
    ]);
    expect(registry.find('gpt-image-1')).toBeUndefined();
  });

  it('says which models use no prompt (the upscalers) and the most pixels an input may have: the model’s own or the service’s, the lower', () => {
    const { build } = builder();
    const registry = createModelRegistry(settings({ upscaleMaxInputPixels: 1024 * 1024 }), build, 4, 2_000_000);
    expect(registry.find('local')).toMatchObject({ takesPrompt: true, maxInputPixels: 2_000_000 });
    expect(registry.find('esrgan-slim-4x')).toMatchObject({ takesPrompt: false, maxInputPixels: 1024 * 1024 });
    expect(createModelRegistry(settings({ upscaleMaxInputPixels: 1024 * 1024 }), build, 4, 500_000).find('esrgan-slim-2x')?.maxInputPixels).toBe(500_000);
    // Without the service's limit, only the upscalers have one (UPSCALE_MAX_INPUT_PIXELS, 512 × 512 unless set).
    expect(createModelRegistry(settings({}), build, 4).find('local')?.maxInputPixels).toBeUndefined();
    expect(createModelRegistry(settings({}), build, 4).find('esrgan-slim-2x')?.maxInputPixels).toBe(512 * 512);
  });

  it('says gpt-image-1 shows previews only while partial images are streamed (OPENAI_PARTIAL_IMAGES)', () => {
    const { build } = builder();
    const openai = { ...none, openai: { apiKey: 'k' } };
    expect(createModelRegistry(settings({ providers: openai, openaiPartialImages: 2 }), build, 16).find('gpt-image-1')?.progress).toBe('previews');
    expect(createModelRegistry(settings({ providers: openai, openaiPartialImages: 0 }), build, 16).find('gpt-image-1')?.progress).toBe('none');
  });

  it("gives each provider its own key and base URL, and the default's provider IMAGE_MODEL_API_KEY", async () => {
    const { built, build } = builder();
    const registry = createModelRegistry(
      settings({ model: 'gemini-2.5-flash-image', apiKey: 'shared', baseUrl: 'http://127.0.0.1:1', providers: { gemini: {}, openai: { apiKey: 'own', baseUrl: 'http://127.0.0.1:2/v1' }, fal: {}, replicate: {} } }),
      build,
      16,
    );
    expect(registry.list().map((m) => m.id)).toEqual(['local', 'esrgan-slim-2x', 'esrgan-slim-4x', 'inpaint-telea', 'inpaint-ns', 'gemini-2.5-flash-image', 'gemini-3-pro-image-preview', 'gemini-2.5-flash-image-preview', 'gpt-image-1']);
    expect(registry.list().filter((m) => m.default).map((m) => m.id)).toEqual(['gemini-2.5-flash-image']);
    await registry.get('gemini-3-pro-image-preview');
    await registry.get('gpt-image-1');
    expect(built).toEqual([
      { model: 'gemini-3-pro-image-preview', access: { apiKey: 'shared', baseUrl: 'http://127.0.0.1:1' } },
      { model: 'gpt-image-1', access: { apiKey: 'own', baseUrl: 'http://127.0.0.1:2/v1' } },
    ]);
  });

  it('answers undefined for a model it does not run, and null for a default without its key', async () => {
    const { build } = builder();
    const registry = createModelRegistry(settings({ model: 'gpt-image-1' }), build, 16);
    expect(await registry.get('flux-9')).toBeUndefined();
    expect(await registry.get('gemini-2.5-flash-image')).toBeUndefined();
    expect(await registry.get()).toBeNull();
    expect(registry.list().map((m) => m.id)).toEqual(['local', 'esrgan-slim-2x', 'esrgan-slim-4x', 'inpaint-telea', 'inpaint-ns']);
  });

  it('tries the fallback for the default only (named or not); another model named explicitly runs alone; each model is built once', async () => {
    const { built, build } = builder(['gemini-2.5-flash-image', 'gpt-image-1']);
    const registry = createModelRegistry(settings({ model: 'gemini-2.5-flash-image', fallback: 'local', apiKey: 'k', providers: { gemini: {}, openai: { apiKey: 'o' }, fal: {}, replicate: {} } }), build, 16);
    await expect((await registry.get())!.generate(request())).resolves.toMatchObject({ text: 'local', model: 'local' });
    await expect((await registry.get('gemini-2.5-flash-image'))!.generate(request())).resolves.toMatchObject({ text: 'local', model: 'local' });
    await expect((await registry.get('gpt-image-1'))!.generate(request())).rejects.toThrow('gpt-image-1 is down');
    await expect((await registry.get('local'))!.generate(request())).resolves.toMatchObject({ text: 'local' });
    expect(built.map((b) => b.model).sort()).toEqual(['gemini-2.5-flash-image', 'gpt-image-1', 'local']);
  });
});
