// `npx tsx bench/canvas-body.ts`: what the canvas save fast path (src/http/canvas-body.ts) costs per body, in this
// process: the bench canvas (bench/api.ts makeCanvas: 200 nodes, 300 edges), checked 50 times a round for 40
// rounds; prints the median and the best round's µs per body. Run it before and after a change to the kinds or the
// check, on a quiet machine (the best round is the steadier figure on a busy one).
import { makeCanvas } from './api.js';
import { createCanvasBodyCheck } from '../src/http/canvas-body.js';

const PER_ROUND = 50;
const ROUNDS = 40;
const check = createCanvasBodyCheck({ canvasNodes: 5_000, canvasEdges: 10_000, promptChars: 10_000 });
const { nodes, edges } = makeCanvas('user-1', 1);
const text = JSON.stringify({ projectId: '6f1c2f4e-0000-4000-8000-000000000000', nodes, edges });
if (!check(JSON.parse(text))) throw new Error('the fast path refused the bench canvas');
const bodies = Array.from({ length: PER_ROUND }, () => JSON.parse(text) as unknown);
const perBody: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const start = process.hrtime.bigint();
  for (const body of bodies) check(body);
  perBody.push(Number(process.hrtime.bigint() - start) / PER_ROUND / 1000);
}
perBody.sort((a, b) => a - b);
console.log(`canvas save fast path, ${nodes.length} nodes / ${edges.length} edges: median ${perBody[ROUNDS >> 1].toFixed(1)} µs, best ${perBody[0].toFixed(1)} µs per body`);
