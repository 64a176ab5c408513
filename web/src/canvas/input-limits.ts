// What a generation node's model takes (GET /api/models, docs/api.md "Models"), checked before Generate: whether it
// needs a prompt (an upscaler uses none), and the most pixels one input image may have (`maxInputPixels`: the
// model's own limit, e.g. an upscaler's, or the service's). The reason is in plain words, naming the input as the
// canvas does: "This model takes images of at most 262,144 pixels (512 × 512); Image 2 is 600 × 500".
import type { ImageModelInfo } from '../api/client';
import type { PixelSize } from '../hooks/use-image-sizes';

const count = new Intl.NumberFormat('en-US');

/** Whether a run with `model` needs a prompt (unknown model: it does). */
export const needsPrompt = (model: ImageModelInfo | undefined): boolean => model?.takesPrompt !== false;

/** "262,144 pixels (512 × 512)": a limit in pixels, with its square's side when it is one. */
export function pixelLimit(pixels: number): string {
  const side = Math.floor(Math.sqrt(pixels));
  return `${count.format(pixels)} pixels${side * side === pixels ? ` (${side} × ${side})` : ''}`;
}

/** Why the inputs cannot go to the model (the first input over its limit); undefined when they can, as far as known. */
export function inputTooLarge(model: ImageModelInfo | undefined, inputs: ReadonlyArray<{ name: string; size: PixelSize | undefined }>): string | undefined {
  const max = model?.maxInputPixels;
  if (max === undefined) return undefined;
  const over = inputs.find((input) => input.size !== undefined && input.size.width * input.size.height > max);
  if (!over?.size) return undefined;
  const what = model?.takesPrompt === false ? 'This upscaler' : 'This model';
  return `${what} takes images of at most ${pixelLimit(max)}; ${over.name} is ${over.size.width} × ${over.size.height}`;
}
