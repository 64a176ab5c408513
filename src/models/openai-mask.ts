// OpenAI's image edit takes its mask as a PNG whose fully transparent pixels mark where to edit (its alpha is all it
// reads); ours is white where to edit and black where to keep. The conversion runs in sharp's own threads (libvips),
// not on the service's event loop; the mask was already checked and fitted to the image by the caller (h/edit), and
// is read with the same pixel ceiling as any input.
import sharp from 'sharp';
import { ModelFailedError } from './image-model.js';

/** The most pixels a mask may have here: sharp's own default ceiling, far above INPUT_IMAGE_MAX_PIXELS. */
const MAX_MASK_PIXELS = 268_402_689;

/** Our mask (white edits) as OpenAI's: a black RGBA PNG of the same size whose alpha is 0 where ours is white. */
export async function openAIMask(mask: Buffer): Promise<Buffer> {
  try {
    // Flattened onto black first: a transparent pixel of our mask keeps, as a black one does.
    const { data, info } = await sharp(mask, { limitInputPixels: MAX_MASK_PIXELS })
      .flatten({ background: '#000000' })
      .toColourspace('b-w')
      .negate()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { width, height } = info;
    return await sharp({ create: { width, height, channels: 3, background: '#000000' } })
      .joinChannel(data, { raw: { width, height, channels: 1 } })
      .png()
      .toBuffer();
  } catch (err) {
    throw new ModelFailedError(`the mask could not be read (${err instanceof Error ? err.message.split('\n')[0] : 'not an image'})`);
  }
}
