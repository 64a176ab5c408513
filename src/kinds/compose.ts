// `compose`: layers made from the images connected to it, each placed (`x`, `y` of its top-left corner on the
// composition, `scale`), with an `opacity` and a blend mode, and optionally cut by one of the masks connected to it
// (the mask's white is kept, its black made transparent). Layer i is the i-th image of its `images` input (edges in
// canvas order), the first at the bottom; `data.layers[i]` holds its placement (absent: at 0,0, full size, opaque,
// normal). The composition is `width` × `height` (absent: the first image's size) over `background` (absent:
// transparent). It runs as a `compose` job (src/jobs/tasks/compose.ts, sharp in the image workers) and its result
// also downloads as a layered PSD (GET /api/projects/{id}/nodes/{nodeId}/psd).
import { z } from 'zod';
import { IMAGE_SIDE_MAX } from './image-steps.js';
import { defineKind } from './kind.js';
import { stepsRunData } from './steps-run-data.js';
import { field, numberField } from './values.js';

export const COMPOSE_TASK = 'compose';
/** The most layers a composition has (images connected, and entries of `data.layers`). */
export const COMPOSE_LAYERS_MAX = 32;
/** A layer's scale: from 1 % to 16 times its image's size. */
export const LAYER_SCALE_MIN = 0.01;
export const LAYER_SCALE_MAX = 16;
/** A layer's corner may lie this far outside the composition on any side (pixels). */
export const LAYER_OFFSET_MAX = IMAGE_SIDE_MAX;
export const LAYER_NAME_MAX_CHARS = 100;

/** The blend modes a layer has: CSS's / Photoshop's names (sharp and ag-psd each have theirs, mapped where used). */
export const BLEND_MODES = ['normal', 'multiply', 'screen', 'overlay', 'darken', 'lighten', 'color-dodge', 'color-burn', 'hard-light', 'soft-light', 'difference', 'exclusion'] as const;
export type BlendMode = (typeof BLEND_MODES)[number];

export interface Layer {
  x: number;
  y: number;
  scale: number;
  opacity: number;
  blend: BlendMode;
  /** Index into the masks connected to its `masks` input (edges in canvas order): the layer's alpha. */
  mask?: number;
  name?: string;
  hidden?: boolean;
}
/** A layer with nothing said about it. */
export const DEFAULT_LAYER: Layer = { x: 0, y: 0, scale: 1, opacity: 1, blend: 'normal' };

const isInt = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const isNum = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max;
const LAYER_KEYS = new Set(['x', 'y', 'scale', 'opacity', 'blend', 'mask', 'name', 'hidden']);

/** Whether a value is a layer as `data.layers` holds them (the rule the live document applies). */
export function isLayer(v: unknown): v is Layer {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const l = v as Record<string, unknown>;
  for (const key of Object.keys(l)) if (!LAYER_KEYS.has(key)) return false;
  return (
    isInt(l.x, -LAYER_OFFSET_MAX, LAYER_OFFSET_MAX) &&
    isInt(l.y, -LAYER_OFFSET_MAX, LAYER_OFFSET_MAX) &&
    isNum(l.scale, LAYER_SCALE_MIN, LAYER_SCALE_MAX) &&
    isNum(l.opacity, 0, 1) &&
    typeof l.blend === 'string' &&
    (BLEND_MODES as readonly string[]).includes(l.blend) &&
    (l.mask === undefined || isInt(l.mask, 0, COMPOSE_LAYERS_MAX - 1)) &&
    (l.name === undefined || (typeof l.name === 'string' && l.name.length <= LAYER_NAME_MAX_CHARS && !l.name.includes('\u0000'))) &&
    (l.hidden === undefined || typeof l.hidden === 'boolean')
  );
}

const layerSchema = z.strictObject({
  x: z.number().int().min(-LAYER_OFFSET_MAX).max(LAYER_OFFSET_MAX).describe('left edge on the composition, pixels'),
  y: z.number().int().min(-LAYER_OFFSET_MAX).max(LAYER_OFFSET_MAX).describe('top edge on the composition, pixels'),
  scale: z.number().min(LAYER_SCALE_MIN).max(LAYER_SCALE_MAX).describe(`its image's size times this, ${LAYER_SCALE_MIN}–${LAYER_SCALE_MAX}`),
  opacity: z.number().min(0).max(1),
  blend: z.enum(BLEND_MODES),
  mask: z.number().int().min(0).max(COMPOSE_LAYERS_MAX - 1).optional().describe('index of the mask (its masks input, in canvas order) that is its alpha'),
  name: z.string().max(LAYER_NAME_MAX_CHARS).refine((s) => !s.includes('\u0000'), 'contains NUL').optional(),
  hidden: z.boolean().optional(),
});

const side = (reason: string, what: string) =>
  numberField(1, IMAGE_SIDE_MAX, reason, { integer: true, description: `the composition's ${what} in pixels (1–${IMAGE_SIDE_MAX}); absent: the first image's` });

export const compose = defineKind({
  type: 'compose',
  label: 'Compose',
  version: 1,
  data: () => ({
    layers: field(
      z.array(layerSchema).max(COMPOSE_LAYERS_MAX),
      (v) => Array.isArray(v) && v.length <= COMPOSE_LAYERS_MAX && v.every(isLayer),
      'invalid-layers',
      false,
      `Layer i's placement for the i-th connected image (bottom first), at most ${COMPOSE_LAYERS_MAX}; a missing entry: at 0,0, full size, opaque, normal`,
    ),
    width: side('invalid-width', 'width'),
    height: side('invalid-height', 'height'),
    background: field(z.string().regex(/^#[0-9a-f]{6}$/i), (v) => typeof v === 'string' && /^#[0-9a-f]{6}$/i.test(v), 'invalid-background', false, 'A colour #rrggbb under the layers; absent: transparent'),
    ...stepsRunData(),
  }),
  inputs: [
    { name: 'images', label: 'Layers', value: 'image', list: true, default: true },
    { name: 'masks', label: 'Masks', value: 'mask', list: true },
  ],
  outputs: [{ name: 'image', label: 'Image', value: 'image', list: false, default: true }],
  size: { width: 300, height: 520 },
  task: { kind: COMPOSE_TASK },
});
