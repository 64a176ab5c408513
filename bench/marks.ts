// `npx tsx bench/marks.ts`: what an editor's stale marks (web/src/canvas/marks.ts over src/kinds/graph.ts) cost on a
// 200-node canvas (40 chains upload → adjust → adjust → adjust → generation, 160 edges, every result made for its
// key), in this process: a full recompute (graph, keys, marks) after a setting changed, and the check an editor makes
// on every other document change (a move, a job's progress), which finds nothing a mark depends on changed and so
// recomputes nothing. Prints the median and best of 40 rounds in ms.
import { graphOf, keysOf } from '../src/kinds/graph.js';
import { graphInputOf, marksOfCanvas } from '../web/src/canvas/marks.js';

type Node = { id: string; type: string; position: { x: number; y: number }; data: Record<string, unknown> };
const ROUNDS = 40;
const nodes: Node[] = [];
const edges: { id: string; source: string; target: string }[] = [];
for (let c = 0; c < 40; c++) {
  nodes.push({ id: `u${c}`, type: 'upload', position: { x: 0, y: c * 400 }, data: { type: 'upload', image: `/files/${c}.png` } });
  let prev = `u${c}`;
  for (let i = 0; i < 4; i++) {
    const id = `n${c}-${i}`;
    const data = i === 3 ? { type: 'generation', prompt: `a fox, take ${c}`, seed: c } : { type: 'adjust', hue: i * 10, grayscale: i === 1 };
    nodes.push({ id, type: data.type, position: { x: (i + 1) * 320, y: c * 400 }, data });
    edges.push({ id: `e${c}-${i}`, source: prev, target: id });
    prev = id;
  }
}
const keys = keysOf(graphOf({ nodes, edges }));
for (const n of nodes) if (n.type !== 'upload') n.data = { ...n.data, image: '/files/r.png', resultKey: keys.get(n.id)!.key };

const time = (f: (round: number) => void) => {
  const ms: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    f(round);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return `median ${ms[ROUNDS >> 1].toFixed(2)} ms, best ${ms[0].toFixed(2)} ms`;
};

let current = nodes;
let input = graphInputOf(current, edges);
let marks = marksOfCanvas(input);
const stale = () => [...marks.values()].filter((m) => m.mark === 'stale').length;
const recompute = time((round) => {
  // One adjust setting changes (as a person types it): its chain's later nodes go stale.
  current = nodes.map((n) => (n.id === 'n0-1' ? { ...n, data: { ...n.data, hue: 100 + round } } : n));
  input = graphInputOf(current, edges, input);
  marks = marksOfCanvas(input, marks);
});
const staleAfter = stale();
const moved = time((round) => {
  const dragged = current.map((n) => (n.id === 'n5-2' ? { ...n, position: { x: round, y: round } } : n));
  const same = graphInputOf(dragged, edges, input);
  if (same !== input) throw new Error('a move changed what marks are computed from');
});
console.log(`stale marks, ${nodes.length} nodes / ${edges.length} edges: recompute after a setting changed ${recompute} (${staleAfter} nodes out of date); a move (no recompute) ${moved}`);
