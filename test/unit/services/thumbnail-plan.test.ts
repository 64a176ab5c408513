// The thumbnail's layout (src/services/thumbnails.ts planThumbnail) takes each node's size and look from its kind
// (src/kinds/): a kind that runs is tinted, others are plain; a type no kind has is drawn plain at a default size.
import { describe, expect, it } from 'vitest';
import { planThumbnail } from '../../../src/services/thumbnails.js';

const at = (x: number) => ({ x, y: 0 });
const plan = (nodes: unknown[]) => planThumbnail({ nodes, edges: [] }, { maxImages: 0, maxImagePixels: 1, isOurs: () => false }).plan;

describe('thumbnail plan', () => {
  it("sizes and tints each node by its kind", () => {
    const { boxes } = plan([
      { id: 'u', type: 'upload', position: at(0), data: { type: 'upload' } },
      { id: 'g', type: 'generation', position: at(1000), data: { type: 'generation' } },
      { id: 't', type: 'text', position: at(2000), data: { type: 'text', text: 'hi' } },
      { id: 'x', type: 'mystery', position: at(3000), data: { type: 'mystery' } },
    ]);
    expect(boxes.map((b) => b.look)).toEqual(['plain', 'runs', 'plain', 'plain']);
    // Drawn sizes in proportion to the kinds' (upload 260×260, generation 260×400, text 260×180, unknown 260×260).
    const [u, g, t, x] = boxes;
    expect(g.height / u.height).toBeCloseTo(400 / 260, 5);
    expect(t.height / u.height).toBeCloseTo(180 / 260, 5);
    expect(x.height).toBeCloseTo(u.height, 5);
  });

  it('takes the kind from data.type when the node type is unknown (SPEC let them differ)', () => {
    const { boxes } = plan([{ id: 'g', type: 'other', position: at(0), data: { type: 'generation' } }]);
    expect(boxes[0].look).toBe('runs');
  });
});
