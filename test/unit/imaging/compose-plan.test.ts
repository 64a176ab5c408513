// The arithmetic of a composition (src/imaging/compose-plan.ts): a layer's scaled size and the part of it on the
// composition, the composition's size, names, alpha, and the blend modes in sharp's and ag-psd's names.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { applyAlpha, colourOf, compositionSize, layerName, placement, PSD_BLEND, scaledSize, SHARP_BLEND } from '../../../src/imaging/compose-plan.js';
import { BLEND_MODES, DEFAULT_LAYER } from '../../../src/kinds/compose.js';

const canvas = { width: 100, height: 80 };

describe('placement', () => {
  it('scales a layer (rounded, at least 1 px a side)', () => {
    expect(scaledSize({ width: 40, height: 30 }, 2)).toEqual({ width: 80, height: 60 });
    expect(scaledSize({ width: 33, height: 10 }, 0.5)).toEqual({ width: 17, height: 5 });
    expect(scaledSize({ width: 40, height: 30 }, 0.01)).toEqual({ width: 1, height: 1 });
  });

  it('keeps a layer inside the composition whole', () => {
    expect(placement({ x: 10, y: 5, scale: 1 }, { width: 40, height: 30 }, canvas)).toEqual({ scaled: { width: 40, height: 30 }, crop: { left: 0, top: 0, width: 40, height: 30 }, at: { left: 10, top: 5 } });
  });

  it('cuts a layer that lies partly outside on the left and top, or on the right and bottom', () => {
    expect(placement({ x: -15, y: -5, scale: 2 }, { width: 20, height: 10 }, canvas)).toEqual({ scaled: { width: 40, height: 20 }, crop: { left: 15, top: 5, width: 25, height: 15 }, at: { left: 0, top: 0 } });
    expect(placement({ x: 90, y: 70, scale: 1 }, { width: 20, height: 20 }, canvas)).toEqual({ scaled: { width: 20, height: 20 }, crop: { left: 0, top: 0, width: 10, height: 10 }, at: { left: 90, top: 70 } });
  });

  it('places nothing of a layer wholly outside', () => {
    expect(placement({ x: 100, y: 0, scale: 1 }, { width: 20, height: 20 }, canvas)).toBeUndefined();
    expect(placement({ x: -20, y: 0, scale: 1 }, { width: 20, height: 20 }, canvas)).toBeUndefined();
    expect(placement({ x: 0, y: -40, scale: 2 }, { width: 20, height: 20 }, canvas)).toBeUndefined();
  });

  it("takes the composition's sides from its data, else each from the first image", () => {
    expect(compositionSize({}, { width: 40, height: 30 })).toEqual({ width: 40, height: 30 });
    expect(compositionSize({ width: 64 }, { width: 40, height: 30 })).toEqual({ width: 64, height: 30 });
    expect(compositionSize({ width: 64, height: 48 }, { width: 40, height: 30 })).toEqual({ width: 64, height: 48 });
  });
});

describe('names, colours and alpha', () => {
  it("names a layer by its name, else by its place", () => {
    expect(layerName({ ...DEFAULT_LAYER, name: 'Sky' }, 0)).toBe('Sky');
    expect(layerName({ ...DEFAULT_LAYER, name: '  ' }, 2)).toBe('Layer 3');
    expect(layerName(DEFAULT_LAYER, 0)).toBe('Layer 1');
  });

  it('reads #rrggbb', () => {
    expect(colourOf('#102030')).toEqual({ r: 16, g: 32, b: 48, alpha: 1 });
  });

  it("multiplies alpha by the mask's grey and the opacity", () => {
    const rgba = new Uint8Array([1, 2, 3, 255, 1, 2, 3, 255, 1, 2, 3, 100]);
    applyAlpha(rgba, new Uint8Array([255, 0, 255]), 0.5);
    expect([rgba[3], rgba[7], rgba[11]]).toEqual([128, 0, 50]);
    expect([...rgba.subarray(0, 3)]).toEqual([1, 2, 3]);
  });
});

describe('blend modes', () => {
  it('has a sharp blend for every mode, which sharp accepts', async () => {
    expect(Object.keys(SHARP_BLEND).sort()).toEqual([...BLEND_MODES].sort());
    expect(SHARP_BLEND.normal).toBe('over');
    expect(SHARP_BLEND['color-dodge']).toBe('colour-dodge');
    expect(SHARP_BLEND['color-burn']).toBe('colour-burn');
    const dot = await sharp({ create: { width: 1, height: 1, channels: 4, background: '#808080' } }).png().toBuffer();
    for (const blend of Object.values(SHARP_BLEND)) {
      await expect(sharp({ create: { width: 2, height: 2, channels: 4, background: '#ff0000' } }).composite([{ input: dot, blend }]).png().toBuffer()).resolves.toBeInstanceOf(Buffer);
    }
  });

  it("has ag-psd's (Photoshop's) name for every mode: words with spaces", () => {
    expect(Object.keys(PSD_BLEND).sort()).toEqual([...BLEND_MODES].sort());
    for (const mode of BLEND_MODES) expect(PSD_BLEND[mode]).toBe(mode.replace('-', ' '));
  });
});
