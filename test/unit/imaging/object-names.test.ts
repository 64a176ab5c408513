// The list of upload types the web client is given (GET /api/client-config) is the list the uploads service takes.
import { describe, expect, it } from 'vitest';
import { ACCEPTED_IMAGE_TYPES, UPLOAD_TYPES } from '../../../src/imaging/object-names.js';
import { SVG_TYPE } from '../../../src/imaging/svg.js';

describe('UPLOAD_TYPES', () => {
  it('names every accepted raster type and SVG, each once, with a name and at least one extension', () => {
    const types = UPLOAD_TYPES.map((t) => t.type);
    expect(new Set(types).size).toBe(types.length);
    expect(new Set(types)).toEqual(new Set([...ACCEPTED_IMAGE_TYPES, SVG_TYPE]));
    for (const t of UPLOAD_TYPES) {
      expect(t.name).not.toBe('');
      expect(t.extensions.length).toBeGreaterThan(0);
      for (const ext of t.extensions) expect(ext).toMatch(/^[a-z]+$/);
    }
  });
});
