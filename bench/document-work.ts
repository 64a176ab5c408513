// `npx tsx bench/document-work.ts`: what the live documents' whole-document work on stored bytes costs the service's
// thread (issue 37), for the load tool's 200-node canvas (bench/api.ts makeCanvas) and a 5,000-node one made of such
// pieces, each stored as a snapshot plus a log of BENCH_DOC_LOG node moves (default 300: five editors' minute):
//
// - a compaction's merge: `before` builds the fresh document and encodes it on the service's thread (what
//   CollabRepository.compact did); `after` is the document workers' merge in a worker thread (COLLAB_WORKERS=1);
// - a load: `before` is Y.mergeUpdates of the parts, applied to the document, and the measure of the document's first
//   edit (update-check's `measure`, which rendered the whole canvas); `after` is the workers' merge and measure, the
//   merged state applied to the document, and the measure handed to the content check (nothing rendered).
//
// The database's part (reading and writing the rows) is the same before and after and is left out. Per operation:
// the service thread's CPU (process.threadCpuUsage), its longest stretch without a turn of the event loop (the
// longest gap of a 1 ms timer, less 1 ms, in a second run of the operation), the wall time, and the whole process's
// CPU (the worker's included). One process;
// BENCH_DOC_RUNS operations of each (default 10; 5,000-node: a third of that, at least 3).
import { performance } from 'node:perf_hooks';
import * as Y from 'yjs';
import { applyCanvas, canvasMaps } from '../src/collab/canvas-doc.js';
import { createDocumentWorkers } from '../src/collab/document-workers.js';
import { mergeParts, partsOf, type StoredParts } from '../src/collab/stored-document.js';
import { createUpdateCheck, measure } from '../src/collab/update-check.js';
import { sizedCanvas } from './api.js';

const LOG = Math.max(1, Number(process.env.BENCH_DOC_LOG ?? 300));
const RUNS = Math.max(3, Number(process.env.BENCH_DOC_RUNS ?? 10));

/** The canvas as the database holds it after a while: a snapshot and a log of node moves. */
function stored(n: number): StoredParts {
  const doc = new Y.Doc();
  const canvas = sizedCanvas('bench-user', 9_000, n);
  applyCanvas(doc, canvas);
  const snapshot = Y.encodeStateAsUpdate(doc);
  const updates: Uint8Array[] = [];
  doc.on('update', (u: Uint8Array) => updates.push(u));
  for (let i = 0; i < LOG; i++) {
    const node = canvasMaps(doc).nodes.get(canvas.nodes[(i * 7) % n].id) as Y.Map<unknown>;
    node.set('position', { x: i, y: i * 2 });
  }
  doc.destroy();
  return { snapshot, updates };
}

interface Sample {
  threadMs: number;
  blockMs: number;
  wallMs: number;
  processMs: number;
}

/** Runs `op` with a 1 ms timer ticking beside it: the longest gap between two ticks, less the 1 ms, is the longest block. */
async function longestBlock(op: () => unknown): Promise<number> {
  let last = performance.now();
  let longest = 0;
  let ticking = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (ticking) timer = setTimeout(tick, 1);
  };
  let timer = setTimeout(tick, 1);
  await op();
  await new Promise((resolve) => setTimeout(resolve, 3)); // the tick after the last stretch
  ticking = false;
  clearTimeout(timer);
  return Math.max(0, longest - 1);
}

/** One operation twice: its CPU and wall time alone, then its longest block with the ticker (whose own CPU would count). */
async function timed(op: () => unknown): Promise<Sample> {
  await new Promise((resolve) => setTimeout(resolve, 5)); // a quiet loop first
  const thread = process.threadCpuUsage();
  const processCpu = process.cpuUsage();
  const start = performance.now();
  await op();
  const wallMs = performance.now() - start;
  const t = process.threadCpuUsage(thread);
  const p = process.cpuUsage(processCpu);
  const blockMs = await longestBlock(op);
  return { threadMs: (t.user + t.system) / 1000, blockMs, wallMs, processMs: (p.user + p.system) / 1000 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function series(name: string, runs: number, op: () => unknown): Promise<string> {
  await timed(op); // warm-up: code compiled, the worker thread started
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timed(op));
  const col = (key: keyof Sample) => `${median(samples.map((s) => s[key])).toFixed(1)} (max ${Math.max(...samples.map((s) => s[key])).toFixed(1)})`;
  return `| ${name} | ${col('threadMs')} | ${col('blockMs')} | ${col('wallMs')} | ${col('processMs')} |`;
}

const limits = { nodes: 10_000, edges: 20_000, bytes: 64 * 1024 * 1024, promptChars: 10_000 };
const workers = createDocumentWorkers({ workers: 1, log: { warn: () => undefined } });
const rows: string[] = [];
// What the worker thread itself adds to the process (started, a small task done, idle).
const rssBefore = process.memoryUsage().rss;
await workers.render({ snapshot: null, updates: [] });
await new Promise((resolve) => setTimeout(resolve, 500));
const threadRss = process.memoryUsage().rss - rssBefore;
try {
  for (const n of [200, 5_000]) {
    const doc = stored(n);
    const parts = partsOf(doc);
    const runs = n > 1_000 ? Math.max(3, Math.round(RUNS / 3)) : RUNS;
    const bytes = parts.reduce((s, p) => s + p.byteLength, 0);
    rows.push(`| **${n} nodes** (snapshot ${(doc.snapshot!.byteLength / 1024).toFixed(0)} KB + ${LOG} updates, ${(bytes / 1024).toFixed(0)} KB) | | | | |`);

    rows.push(await series('compaction merge, before (service thread)', runs, () => mergeParts(parts, { measure: false })));
    rows.push(await series('compaction merge, after (worker thread)', runs, () => workers.merge(doc, { measure: false })));

    rows.push(
      await series('load + first check, before', runs, () => {
        const document = new Y.Doc();
        Y.applyUpdate(document, Y.mergeUpdates(parts));
        const check = createUpdateCheck(limits);
        check.seed(document, measure(document)); // what the first check's stateOf did: render and measure the whole canvas
        document.destroy();
      }),
    );
    rows.push(
      await series('load + first check, after', runs, async () => {
        const merged = await workers.merge(doc, { measure: true });
        const document = new Y.Doc();
        Y.applyUpdate(document, merged.state);
        createUpdateCheck(limits).seed(document, merged.bytes!);
        document.destroy();
      }),
    );
  }
} finally {
  await workers.close();
}

console.log(`Live documents' whole-document work, per operation: median (max) of ${RUNS} runs (5,000 nodes: ${Math.max(3, Math.round(RUNS / 3))}), ms\n`);
console.log('| operation | service thread CPU | longest block of the service thread | wall | process CPU (all threads) |');
console.log('|---|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
console.log(`\nResident memory the started worker thread added (idle, after a small task): ${(threadRss / 2 ** 20).toFixed(0)} MB.`);
