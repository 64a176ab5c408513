// The node-kind registry (src/kinds/): every kind is well formed, lookups answer by type, ports and their fit,
// and each kind's data rules give the same verdict as a predicate (live document, fast path) and as zod (REST).
import { describe, expect, it } from 'vitest';
import { canvasSchemas } from '../../src/http/schemas.js';
import { exampleCanvas } from '../../src/services/example-canvas.js';
import { NODE_KINDS, NODE_TYPES, dataRulesOf, defineKind, edgeProblem, fits, kindData, kindOf, portOf, type NodeKind } from '../../src/kinds/index.js';

const limits = { promptChars: 50 };
const kind = (type: string) => kindOf(type) as NodeKind;

describe('node kinds', () => {
  it('lists upload, generation, text, list, crop, resize, adjust, mask, edit, compose, upscale and remove-background, each once, with ports of known value types', () => {
    expect(NODE_TYPES).toEqual(['upload', 'generation', 'text', 'list', 'crop', 'resize', 'adjust', 'mask', 'edit', 'compose', 'upscale', 'remove-background']);
    for (const k of NODE_KINDS) {
      expect(kindOf(k.type)).toBe(k);
      expect(Number.isInteger(k.version)).toBe(true);
      expect(k.outputs.filter((p) => p.default).length).toBeLessThanOrEqual(1);
      expect(k.inputs.filter((p) => p.default).length).toBeLessThanOrEqual(1);
    }
    expect(kindOf('video')).toBeUndefined();
    expect(kindOf('__proto__')).toBeUndefined();
    expect(kindOf('constructor')).toBeUndefined();
    expect(kindOf(undefined)).toBeUndefined();
  });

  it('refuses a malformed kind when its module loads', () => {
    const base = { type: 'x', label: 'X', version: 1, data: () => ({}), inputs: [], outputs: [], size: { width: 1, height: 1 } };
    expect(() => defineKind({ ...base, type: 'Not A Type' })).toThrow(/type/);
    expect(() => defineKind({ ...base, version: 0 })).toThrow(/version/);
    expect(() => defineKind({ ...base, outputs: [{ name: 'a', value: 'image', list: false }, { name: 'a', value: 'text', list: false }] })).toThrow(/share a name/);
    expect(() => defineKind({ ...base, inputs: [{ name: 'a', value: 'image', list: false, default: true }, { name: 'b', value: 'text', list: false, default: true }] })).toThrow(/default/);
    expect(() => defineKind({ ...base, inputs: [{ name: 'a', value: 'audio' as 'image', list: false }] })).toThrow(/value type/);
    // Data keys are read by indexing (as zod does): never one every object has.
    const field = kindData({ promptChars: 1 }).get('text')!.fields.text;
    expect(() => defineKind({ ...base, data: () => ({ constructor: field }) })).toThrow(/constructor/);
    expect(() => defineKind({ ...base, data: () => ({ type: field }) })).toThrow(/type/);
  });

  it('fits values of one type, a mask into an image port, never an image into a mask port', () => {
    expect(fits({ value: 'image' }, { value: 'image' })).toBe(true);
    expect(fits({ value: 'text' }, { value: 'text' })).toBe(true);
    expect(fits({ value: 'mask' }, { value: 'image' })).toBe(true);
    expect(fits({ value: 'image' }, { value: 'mask' })).toBe(false);
    expect(fits({ value: 'text' }, { value: 'image' })).toBe(false);
    expect(fits({ value: 'video' }, { value: 'image' })).toBe(false);
  });

  it('reads a handle as a port name, and no handle as the default port', () => {
    const g = kind('generation');
    expect(portOf(g.inputs, undefined)?.name).toBe('images');
    expect(portOf(g.inputs, null)?.name).toBe('images');
    expect(portOf(g.inputs, 'prompt')).toMatchObject({ value: 'text', list: true });
    expect(portOf(g.inputs, 'in')).toBeUndefined();
    expect(portOf(kind('upload').inputs, null)).toBeUndefined();
  });

  it('names what is wrong with an edge: a port that does not exist, or ports that do not fit', () => {
    const e = (extra: object = {}) => ({ id: 'e1', source: 's', target: 't', ...extra });
    // SPEC edges (no handles, or null ones) keep working.
    expect(edgeProblem(e(), kind('upload'), kind('generation'))).toBeUndefined();
    expect(edgeProblem(e({ sourceHandle: null, targetHandle: null }), kind('generation'), kind('generation'))).toBeUndefined();
    expect(edgeProblem(e({ sourceHandle: 'image', targetHandle: 'images' }), kind('upload'), kind('generation'))).toBeUndefined();
    expect(edgeProblem(e({ targetHandle: 'prompt' }), kind('text'), kind('generation'))).toBeUndefined();

    expect(edgeProblem(e(), kind('upload'), kind('upload'))).toEqual({ field: 'targetHandle', message: 'node "t" (upload) has no inputs' });
    expect(edgeProblem(e({ targetHandle: 'in' }), kind('upload'), kind('generation'))).toEqual({
      field: 'targetHandle',
      message: 'node "t" (generation) has no input "in"; its inputs: "images", "prompt"',
    });
    expect(edgeProblem(e({ sourceHandle: 'out' }), kind('upload'), kind('generation'))).toEqual({
      field: 'sourceHandle',
      message: 'node "s" (upload) has no output "out"; its outputs: "image"',
    });
    expect(edgeProblem(e(), kind('text'), kind('generation'))).toEqual({
      field: 'targetHandle',
      message: 'output "text" (text) of node "s" (text) does not fit input "images" (image) of node "t" (generation); this input fits: "prompt"',
    });
    expect(edgeProblem(e({ targetHandle: 'prompt' }), kind('upload'), kind('generation'))?.field).toBe('targetHandle');
  });

  it("gives each kind's data rules: `type` first, then the kind's keys", () => {
    const data = kindData(limits);
    expect(Object.keys(data.get('upload')!.fields)).toEqual(['type', 'image', 'prompt', 'isGenerating', 'model']);
    expect(Object.keys(data.get('text')!.fields)).toEqual(['type', 'text']);
    expect(kindData({ promptChars: 50 })).toBe(data); // made once per limits
    const text = dataRulesOf('text', limits)!;
    expect(text.type.test('text')).toBe(true);
    expect(text.type.test('upload')).toBe(false);
    expect(text.text.test('x'.repeat(50))).toBe(true);
    expect(text.text.test('x'.repeat(51))).toBe(false);
    expect(text.text.test(undefined)).toBe(false); // required
    expect(text.text.required).toBe(true);
    // SPEC: either SPEC type in either SPEC kind; optional fields may be absent.
    expect(dataRulesOf('upload', limits)!.type.test('generation')).toBe(true);
    expect(dataRulesOf('upload', limits)!.type.test('text')).toBe(false);
    expect(dataRulesOf('generation', limits)!.image.test(undefined)).toBe(true);
    expect(dataRulesOf('video', limits)).toBeUndefined();
  });

  it("holds each field's predicate and zod schema to the same verdict", () => {
    const values: unknown[] = [
      undefined, null, true, false, 0, 1.5, '', 'x', 'x'.repeat(50), 'x'.repeat(51), 'x'.repeat(101), 'a\u0000b', 'lone \ud800', 'pair \ud83d\ude00',
      'upload', 'generation', 'text', 'javascript:alert(1)', 'https://a.example/x.png', '/files/a.png', `data:image/png;base64,${'A'.repeat(3000)}`,
      `https://a.example/${'x'.repeat(2100)}`, [], {}, ['x'],
    ];
    for (const [type, { fields }] of kindData(limits)) {
      for (const [key, field] of Object.entries(fields)) {
        for (const v of values) {
          const byZod = field.schema.safeParse(v).success;
          const byTest = v === undefined ? !field.required : field.test(v);
          expect(byTest, `${type}.data.${key} = ${JSON.stringify(v)?.slice(0, 40)}`).toBe(byZod);
        }
      }
    }
  });

  it('takes the example canvas (written into the document directly, not through REST) as a valid canvas', () => {
    const { CanvasBody } = canvasSchemas({ canvasNodes: 10, canvasEdges: 10, promptChars: 1000 } as Parameters<typeof canvasSchemas>[0]);
    const example = exampleCanvas(['https://img.example/1.png', 'https://img.example/2.png']);
    expect(CanvasBody.safeParse({ projectId: 'p', ...example }).error).toBeUndefined();
  });
});
