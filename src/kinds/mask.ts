// `mask`: a mask painted over the image connected to it (in the editor's full-size mask editor) or put there over
// the API. It does not run: its `data.mask` is a PNG the size of its input image, white where an edit changes the
// image and black where it keeps it, and its `mask` output gives it (an `edit`'s mask input, a `compose` layer's
// alpha). Its `image` output passes its input image on, so an edit can take both from it.
import { defineKind } from './kind.js';
import { imageField, isImage } from './values.js';

export const mask = defineKind({
  type: 'mask',
  label: 'Mask',
  version: 1,
  data: () => ({
    mask: imageField('invalid-mask', {
      description: 'The mask: a PNG image URL, the size of its input image, white where an edit changes the image and black where it keeps it (absent: nothing painted yet)',
    }),
  }),
  inputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  outputs: [
    { name: 'mask', label: 'Mask', value: 'mask', list: false, default: true },
    { name: 'image', label: 'Image', value: 'image', list: false },
  ],
  gives: (data) => ({ mask: isImage(data.mask) ? [{ image: data.mask }] : [], image: { from: 'image' } }),
  size: { width: 260, height: 380 },
});
