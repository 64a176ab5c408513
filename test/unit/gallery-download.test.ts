// The names inside the gallery's ZIP (web/src/download-names.ts, used by web/src/hooks/use-gallery-download.ts): each PNG under the name its download
// answers (Content-Disposition, the exact UTF-8 name first), and two alike kept apart.
import { describe, expect, it } from 'vitest';
import { attachmentName, uniqueName } from '../../web/src/download-names.js';

describe('gallery ZIP names', () => {
  it('reads the UTF-8 name of a Content-Disposition, else its ASCII one', () => {
    expect(attachmentName(`attachment; filename="Cafe - creme brulee.png"; filename*=UTF-8''Caf%C3%A9%20-%20cr%C3%A8me%20br%C3%BBl%C3%A9e.png`)).toBe('Café - crème brûlée.png');
    expect(attachmentName('attachment; filename="plain.png"')).toBe('plain.png');
    expect(attachmentName(`attachment; filename="fallback.png"; filename*=UTF-8''%E0%A4%A.png`)).toBe('fallback.png');
    expect(attachmentName(null)).toBeUndefined();
    expect(attachmentName('attachment')).toBeUndefined();
  });

  it('numbers a name already taken', () => {
    const taken = new Set<string>();
    expect(['a.png', 'a.png', 'a.png', 'b'].map((n) => uniqueName(n, taken))).toEqual(['a.png', 'a (2).png', 'a (3).png', 'b']);
  });
});
