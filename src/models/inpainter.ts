// The offline classical inpainting models (src/models/classical-inpaint.ts: OpenCV's Telea and Navier–Stokes through
// opencv.js), run in the image workers: their catalogue ids and the method each runs.
import type { InpaintMethod } from './classical-inpaint.js';
import { ModelFailedError, ModelInputError, type GenerateRequest, type GenerateResult, type ImageModel } from './image-model.js';

const IDS = { telea: 'inpaint-telea', ns: 'inpaint-ns' } as const satisfies Record<InpaintMethod, string>;

export const inpainterId = (method: InpaintMethod): string => IDS[method];

/** The method a catalogue id runs; undefined for any other model. */
export function inpaintMethodOf(model: string): InpaintMethod | undefined {
  return model === IDS.telea ? 'telea' : model === IDS.ns ? 'ns' : undefined;
}

/** The model in this process (tests, benchmarks; the service runs it in the image workers, src/imaging/pool.ts). */
export class ClassicalInpainter implements ImageModel {
  readonly id: string;
  constructor(
    private readonly method: InpaintMethod,
    private readonly maxPixels: number,
  ) {
    this.id = inpainterId(method);
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const [first] = req.images;
    if (!first) throw new ModelInputError(0, `${this.id} needs an image`);
    if (!req.mask) throw new ModelFailedError(`${this.id} needs a mask: run it from an edit node`);
    const { inpaint } = await import('./classical-inpaint.js');
    try {
      const made = await inpaint(first.data, req.mask.data, this.method, this.maxPixels);
      return { image: { data: made.png, mimeType: 'image/png' }, text: `Filled ${made.filled} pixels from their surroundings (${this.id}, classical inpainting)`, model: this.id };
    } catch (err) {
      throw new ModelFailedError(`${this.id} could not fill the mask: ${err instanceof Error ? err.message : 'it failed'}`);
    }
  }
}
