// `npm run bench:live-check`: what the live document's content check (src/collab/update-check.ts) costs per edit on a
// large canvas (5,000 nodes — uploads, generations and texts —, 10,000 edges between ports that fit: the default
// CANVAS_MAX_NODES / CANVAS_MAX_EDGES), in this process. Each
// edit is made by a peer as one Yjs update, then checked and applied to the document the way the service does it
// (decode, check, apply; the check's listener also counts the applied update's bytes); the baseline is decode and
// apply alone. Prints one table: median and p99 µs per edit over BENCH_LIVE_EDITS edits (default 2,000) per kind,
// and the one-off exact measure (rendering the canvas as REST measures it) that a document's first check pays.
import { performance } from 'node:perf_hooks';
import * as Y from 'yjs';
import { addToCanvas, applyCanvas, canvasMaps } from '../src/collab/canvas-doc.js';
import { createUpdateCheck } from '../src/collab/update-check.js';

const EDITS = Math.max(100, Number(process.env.BENCH_LIVE_EDITS ?? 2_000));
const NODES = 5_000;
const EDGES = 10_000;
const limits = { nodes: NODES + EDITS, edges: EDGES + EDITS, bytes: 16 * 1024 * 1024, promptChars: 10_000 };

// Every fourth node an upload, every eighth (from the fourth) a text node, the others generation nodes; edges go into
// generation nodes only (an upload and a text node have no inputs), a text node's into the `prompt` port, as REST
// and the live check by kind require.
const typeOf = (i: number) => (i % 8 === 0 ? 'upload' : i % 8 === 4 ? 'text' : i % 4 === 0 ? 'upload' : 'generation');
function canvas() {
  const nodes = Array.from({ length: NODES }, (_, i) => {
    const type = typeOf(i);
    const data =
      type === 'text'
        ? { type, text: `in the style of ${i % 7}` }
        : { type, image: `https://cdn.example/u/${i.toString(36)}.png`, ...(type === 'generation' ? { prompt: `a picture of thing ${i} in the style of ${i % 7}` } : {}), isGenerating: false };
    return { id: `${type}-${i.toString(16).padStart(8, '0')}`, type, position: { x: (i * 37) % 4000, y: (i * 53) % 3000 }, data };
  });
  const generations = nodes.filter((n) => n.type === 'generation');
  const edges = Array.from({ length: EDGES }, (_, i) => {
    const source = nodes[i % NODES];
    return { id: `e-${i}`, source: source.id, target: generations[(i * 7 + 1) % generations.length].id, ...(source.type === 'text' ? { targetHandle: 'prompt' } : {}) };
  });
  return { nodes, edges };
}

const base = canvas();
const idsOf = (type: string) => base.nodes.filter((n) => n.type === type).map((n) => n.id);
const generationIds = idsOf('generation');
const textIds = idsOf('text');
const uploadIds = idsOf('upload');
const edits: Record<string, (peer: Y.Doc, i: number) => void> = {
  'move a node': (peer, i) => (canvasMaps(peer).nodes.get(base.nodes[(i * 13) % NODES].id) as Y.Map<unknown>).set('position', { x: i, y: -i }),
  'set a prompt': (peer, i) => ((canvasMaps(peer).nodes.get(generationIds[(i * 17) % generationIds.length]) as Y.Map<unknown>).get('data') as Y.Map<unknown>).set('prompt', `prompt ${i} `.repeat(5)),
  "set a text node's text": (peer, i) => ((canvasMaps(peer).nodes.get(textIds[(i * 17) % textIds.length]) as Y.Map<unknown>).get('data') as Y.Map<unknown>).set('text', `text ${i} `.repeat(5)),
  'add a node and an edge': (peer, i) => addToCanvas(peer, { nodes: [{ id: `new-${i}`, type: 'upload', position: { x: 0, y: 0 }, data: { type: 'upload', image: '/files/x.png' } }], edges: [{ id: `new-e-${i}`, source: `new-${i}`, target: generationIds[0] }] }),
  'connect a text to a prompt': (peer, i) => addToCanvas(peer, { edges: [{ id: `new-p-${i}`, source: textIds[i % textIds.length], target: generationIds[(i * 3) % generationIds.length], targetHandle: 'prompt' }] }),
  // generation → upload and back (SPEC's data fits both): the node's data and all its edges are checked again.
  "change a node's type": (peer, i) => {
    const node = canvasMaps(peer).nodes.get(uploadIds[Math.floor(i / 2) % uploadIds.length]) as Y.Map<unknown>;
    node.set('type', i % 2 === 0 ? 'generation' : 'upload');
  },
  'delete a node': (peer, i) => canvasMaps(peer).nodes.delete(base.nodes[(i * 7 + 3) % NODES].id),
};

const quantile = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * q))];
const rows: string[][] = [];
let firstMeasureMs = 0;
for (const [kind, edit] of Object.entries(edits)) {
  for (const checked of [false, true]) {
    const doc = new Y.Doc();
    applyCanvas(doc, base);
    const peer = new Y.Doc();
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc));
    const updates: Uint8Array[] = [];
    peer.on('update', (u: Uint8Array) => updates.push(u));
    for (let i = 0; i < EDITS; i++) peer.transact(() => edit(peer, i));
    const check = createUpdateCheck(limits);
    if (checked) {
      // The first check measures the document once (a no-op update would not: it adds nothing).
      const start = performance.now();
      const first = updates.shift()!;
      if (check.check(Y.decodeUpdate(first), doc)) throw new Error(`${kind}: refused`);
      firstMeasureMs = Math.max(firstMeasureMs, performance.now() - start);
      Y.applyUpdate(doc, first);
    }
    const us: number[] = [];
    for (const update of updates) {
      const start = performance.now();
      const decoded = Y.decodeUpdate(update);
      if (checked) {
        const refused = check.check(decoded, doc);
        if (refused) throw new Error(`${kind}: refused (${refused.reason})`);
      }
      Y.applyUpdate(doc, update);
      us.push((performance.now() - start) * 1000);
    }
    us.sort((a, b) => a - b);
    rows.push([kind, checked ? 'decode + check + apply' : 'decode + apply', quantile(us, 0.5).toFixed(0), quantile(us, 0.99).toFixed(0)]);
    doc.destroy();
    peer.destroy();
  }
}

const header = ['edit (5,000 nodes, 10,000 edges)', 'path', 'median µs', 'p99 µs'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log([line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n'));
console.log(`\nA document's first check measures it once (renders the canvas as REST measures it): ${firstMeasureMs.toFixed(0)} ms at most here.`);
