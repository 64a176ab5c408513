// The image-editing kinds crop, resize and adjust (src/kinds/): their data rules (zod and predicate with the same
// verdict, the bounds), their ports, and the image steps each plans from its data and its input's size.
import { describe, expect, it } from 'vitest';
import { IMAGE_SIDE_MAX, IMAGE_STEPS_TASK, sizeAfter } from '../../src/kinds/image-steps.js';
import { dataRulesOf, edgeProblem, kindData, kindOf, type NodeKind } from '../../src/kinds/index.js';

const limits = { promptChars: 50 };
const kind = (type: string) => kindOf(type) as NodeKind;
const plan = (type: string, data: Record<string, unknown>, width = 100, height = 80) => kind(type).task!.plan!(data, { width, height });

describe('crop, resize and adjust kinds', () => {
  it('take one image and give one image, run as image steps, and connect from an upload and to a generation', () => {
    for (const type of ['crop', 'resize', 'adjust']) {
      const k = kind(type);
      expect(k.inputs).toEqual([{ name: 'image', label: 'Image', value: 'image', list: false, default: true }]);
      expect(k.outputs).toEqual([{ name: 'image', label: 'Image', value: 'image', list: false, default: true }]);
      expect(k.task?.kind).toBe(IMAGE_STEPS_TASK);
      expect(typeof k.task?.plan).toBe('function');
      const e = { id: 'e', source: 's', target: 't' };
      expect(edgeProblem(e, kind('upload'), k)).toBeUndefined();
      expect(edgeProblem(e, k, kind('generation'))).toBeUndefined();
      expect(edgeProblem(e, k, kind('crop'))).toBeUndefined();
      expect(edgeProblem(e, kind('text'), k)?.field).toBe('targetHandle');
    }
  });

  it('hold crop data to whole pixels inside the bounds, every field required', () => {
    // Then its last run's result and state, as a generation node's (src/kinds/steps-run-data.ts).
    expect(Object.keys(kindData(limits).get('crop')!.fields)).toEqual(['type', 'x', 'y', 'width', 'height', 'image', 'isGenerating', 'resultKey', 'results']);
    const r = dataRulesOf('crop', limits)!;
    for (const key of ['x', 'y', 'width', 'height']) {
      expect(r[key].required, key).toBe(true);
      expect(r[key].test(undefined), key).toBe(false);
      expect(r[key].test(1.5), key).toBe(false);
      expect(r[key].test('10'), key).toBe(false);
      expect(r[key].test(IMAGE_SIDE_MAX), key).toBe(true);
      expect(r[key].test(IMAGE_SIDE_MAX + 1), key).toBe(false);
      expect(r[key].reason).toBe(`invalid-${key}`);
    }
    expect(r.x.test(0)).toBe(true);
    expect(r.x.test(-1)).toBe(false);
    expect(r.width.test(0)).toBe(false);
    expect(r.width.test(1)).toBe(true);
  });

  it('hold resize data to whole sides and a known fit', () => {
    const r = dataRulesOf('resize', limits)!;
    expect(r.width.test(undefined)).toBe(true);
    expect(r.height.test(undefined)).toBe(true);
    expect(r.width.test(0)).toBe(false);
    expect(r.width.test(2.5)).toBe(false);
    expect(r.fit.required).toBe(true);
    for (const fit of ['contain', 'cover', 'fill']) expect(r.fit.test(fit)).toBe(true);
    expect(r.fit.test('inside')).toBe(false);
    expect(r.fit.test(undefined)).toBe(false);
  });

  it('hold adjust data to its ranges, all optional', () => {
    const r = dataRulesOf('adjust', limits)!;
    for (const key of ['brightness', 'contrast', 'saturation', 'hue', 'grayscale', 'sepia', 'invert', 'blur']) expect(r[key].test(undefined), key).toBe(true);
    for (const key of ['brightness', 'contrast', 'saturation']) {
      expect(r[key].test(0)).toBe(true);
      expect(r[key].test(1.25)).toBe(true);
      expect(r[key].test(4)).toBe(true);
      expect(r[key].test(4.01)).toBe(false);
      expect(r[key].test(-0.1)).toBe(false);
    }
    expect(r.hue.test(-360)).toBe(true);
    expect(r.hue.test(90)).toBe(true);
    expect(r.hue.test(90.5)).toBe(false);
    expect(r.hue.test(361)).toBe(false);
    expect(r.grayscale.test(true)).toBe(true);
    expect(r.grayscale.test(1)).toBe(false);
    expect(r.blur.test(0)).toBe(true);
    expect(r.blur.test(2.5)).toBe(true);
    expect(r.blur.test(101)).toBe(false);
  });

  it("holds each field's predicate and zod schema to the same verdict", () => {
    const values: unknown[] = [
      undefined, null, true, false, -361, -360, -1, -0.1, 0, 0.2, 0.3, 1, 1.5, 4, 4.01, 90, 100, 101, 360, 361, IMAGE_SIDE_MAX, IMAGE_SIDE_MAX + 1,
      1e300, '', '1', 'contain', 'cover', 'fill', 'inside', [], {}, [1],
    ];
    for (const type of ['crop', 'resize', 'adjust']) {
      for (const [key, field] of Object.entries(kindData(limits).get(type)!.fields)) {
        for (const v of values) {
          const byZod = field.schema.safeParse(v).success;
          const byTest = v === undefined ? !field.required : field.test(v);
          expect(byTest, `${type}.data.${key} = ${JSON.stringify(v)}`).toBe(byZod);
        }
      }
    }
  });

  it('plans a crop as one extract inside the input, and names a box outside it', () => {
    expect(plan('crop', { x: 10, y: 20, width: 30, height: 40 })).toEqual({ ok: true, steps: [{ op: 'extract', left: 10, top: 20, width: 30, height: 40 }] });
    expect(plan('crop', { x: 0, y: 0, width: 100, height: 80 }).ok).toBe(true);
    expect(plan('crop', { x: 1, y: 0, width: 100, height: 80 })).toEqual({
      ok: false,
      problem: 'the crop box (100×80 at 1,0) does not lie inside the 100×80 input image',
    });
    expect(plan('crop', { x: 0, y: 80, width: 1, height: 1 }).ok).toBe(false);
  });

  it('plans a resize: both sides with its fit, one side keeping the aspect ratio, none refused', () => {
    expect(plan('resize', { width: 50, height: 50, fit: 'cover' })).toEqual({ ok: true, steps: [{ op: 'resize', width: 50, height: 50, fit: 'cover' }] });
    expect(plan('resize', { width: 50, fit: 'contain' })).toEqual({ ok: true, steps: [{ op: 'resize', width: 50, height: 40, fit: 'fill' }] });
    expect(plan('resize', { height: 8, fit: 'cover' })).toEqual({ ok: true, steps: [{ op: 'resize', width: 10, height: 8, fit: 'fill' }] });
    expect(plan('resize', { width: 1, fit: 'fill' }, 1000, 10)).toEqual({ ok: true, steps: [{ op: 'resize', width: 1, height: 1, fit: 'fill' }] });
    expect(plan('resize', { fit: 'fill' })).toEqual({ ok: false, problem: 'a resize needs a width, a height or both' });
    const planned = plan('resize', { width: 7, height: 9, fit: 'fill' });
    expect(planned.ok && sizeAfter(planned.steps, { width: 100, height: 80 })).toEqual({ width: 7, height: 9 });
  });

  it('plans an adjust in its order, leaving out what changes nothing', () => {
    expect(plan('adjust', {})).toEqual({ ok: true, steps: [] });
    expect(plan('adjust', { brightness: 1, saturation: 1, hue: 0, contrast: 1, grayscale: false, blur: 0 })).toEqual({ ok: true, steps: [] });
    const all = plan('adjust', { brightness: 1.2, contrast: 2, saturation: 0.5, hue: 90, grayscale: true, sepia: true, invert: true, blur: 3 });
    expect(all.ok && all.steps.map((s) => s.op)).toEqual(['modulate', 'linear', 'grayscale', 'recomb', 'negate', 'blur']);
    expect(all.ok && all.steps[0]).toEqual({ op: 'modulate', brightness: 1.2, saturation: 0.5, hue: 90 });
    expect(all.ok && all.steps[1]).toEqual({ op: 'linear', a: 2, b: -128 });
    expect(plan('adjust', { blur: 0.2 })).toEqual({ ok: true, steps: [] });
  });
});
