// LOAD_PROFILE=heap instead samples the service's heap: what it allocates that outlives a young-generation collection
// (promoted to the old generation, where only a major, marking collection frees it: the long event-loop hold-ups of a
// big heap), by function and by owner; LOAD_PROFILE=alloc samples every allocation.
// LOAD_PROFILE=1: a CPU profile of the service's thread (LOAD_CLIENT_PROFILE=1 in live mode: of the load client's) (V8's sampling profiler, through the inspector of
// this process) during each reported step, summarised as where its busy time went: by package or source
// file, and the hottest functions. Profiling costs a little CPU itself: use it to find the bottleneck, not
// for the table.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  /** The node sampled at each tick, and the microseconds since the tick before. */
  samples?: number[];
  timeDeltas?: number[];
}

/** A run of samples without `(idle)` this long (ms) is a hold-up of the event loop. */
const HELD_MS = 50;
/** A gap this long (ms) between two samples of a 1 ms sampler: the thread did not run (descheduled, or a safepoint). */
const GAP_MS = 20;

/**
 * Where the event loop's hold-ups went: each run of consecutive busy samples spanning at least HELD_MS, and what its
 * time was spent in inclusively (a function and all it called), so the one call that held the loop shows whole. Gaps
 * between samples are listed apart: a thread that was not running at all points at the machine, not at our code.
 */
function holdUps(profile: CpuProfile): string[] {
  const { samples, timeDeltas } = profile;
  if (!samples || !timeDeltas || samples.length === 0) return [];
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const idle = (id: number) => byId.get(id)?.callFrame.functionName === '(idle)';
  const times: number[] = [];
  let t = profile.startTime;
  for (const d of timeDeltas) times.push((t += d));
  const runs: Array<{ from: number; to: number }> = [];
  let start = -1;
  for (let i = 0; i <= samples.length; i++) {
    const busy = i < samples.length && !idle(samples[i]);
    if (busy && start < 0) start = i;
    if (!busy && start >= 0) {
      const end = i < samples.length ? i : samples.length - 1;
      if ((times[end] - times[start]) / 1000 >= HELD_MS) runs.push({ from: start, to: end });
      start = -1;
    }
  }
  const gaps = timeDeltas.map((d, i) => ({ i, ms: d / 1000 })).filter((g) => g.ms >= GAP_MS);
  const lines: string[] = [];
  const at = (i: number) => ((times[i] - profile.startTime) / 1e6).toFixed(1);
  lines.push(
    `  gaps ≥ ${GAP_MS} ms between samples (thread not running): ${gaps.length === 0 ? 'none' : gaps.map((g) => `${at(g.i)} s ${g.ms.toFixed(0)} ms`).slice(0, 20).join(', ')}`,
  );
  if (runs.length === 0) return [...lines, `  event loop busy ≥ ${HELD_MS} ms at a stretch: never`];
  const inclusive = tally();
  for (const run of runs) {
    const seen = new Map<string, number>();
    for (let i = run.from; i < run.to; i++) {
      const weight = timeDeltas[i + 1] ?? 0;
      // Each function on the sample's stack, once per sample however deep its recursion.
      const onStack = new Set<string>();
      for (let id: number | undefined = samples[i]; id !== undefined; id = parent.get(id)) {
        const frame = byId.get(id)!.callFrame;
        if (frame.functionName === '(root)') continue;
        onStack.add(label(frame));
      }
      for (const f of onStack) seen.set(f, (seen.get(f) ?? 0) + weight);
    }
    for (const [f, us] of seen) {
      inclusive.byFunction.set(f, (inclusive.byFunction.get(f) ?? 0) + us);
    }
    inclusive.total += times[run.to] - times[run.from];
  }
  return [
    ...lines,
    `  event loop busy ≥ ${HELD_MS} ms at a stretch: ${runs.length} times (${runs.map((r) => `${at(r.from)} s ${((times[r.to] - times[r.from]) / 1000).toFixed(0)} ms`).slice(0, 20).join(', ')})`,
    `  in those stretches, inclusive: ${top(inclusive.byFunction, inclusive.total, 25)}`,
  ];
}

/** Where a frame's code lives: a package, a file of this project, Node itself, or V8's own buckets. */
function owner(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : `(native) ${frame.functionName || 'anonymous'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const src = /\/(src|test|bench|load)\/(.+)$/.exec(url);
  return src ? `${src[1]}/${src[2]}` : path.basename(url);
}

const label = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${owner(f)}${f.url ? `:${f.lineNumber + 1}` : ''}`;

function top(map: Map<string, number>, total: number, n: number): string {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${k} ${((100 * v) / total).toFixed(1)} %`)
    .join(', ');
}

/** Where a profile's samples went: by owner (package or file) and by function. */
function tally() {
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  return {
    byOwner,
    byFunction,
    total: 0,
    add(frame: CallFrame, amount: number) {
      this.total += amount;
      const o = owner(frame);
      byOwner.set(o, (byOwner.get(o) ?? 0) + amount);
      const f = label(frame);
      byFunction.set(f, (byFunction.get(f) ?? 0) + amount);
    },
  };
}

/** Writes a profile where DevTools can open it; answers the file. */
async function saveProfile(name: string, extension: string, profile: unknown): Promise<string> {
  const file = path.join(os.tmpdir(), `image-canvas-load-${name}-${Date.now()}.${extension}`);
  await writeFile(file, JSON.stringify(profile));
  return file;
}

interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

/** What this thread allocates during the window (sampled by V8 every 32 KiB), summarised like the CPU profile. */
async function startHeapProfile(name: string, whose: string, every: boolean): Promise<() => Promise<string[]>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 32 * 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: every,
  });
  const started = performance.now();
  return async () => {
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: HeapNode } };
    const seconds = (performance.now() - started) / 1000;
    session.disconnect();
    const file = await saveProfile(name, 'heapprofile', profile);
    const bytes = tally();
    const walk = (node: HeapNode) => {
      if (node.selfSize > 0) bytes.add(node.callFrame, node.selfSize);
      for (const child of node.children) walk(child);
    };
    walk(profile.head);
    const what = every ? 'allocated' : 'allocated and outliving a young-generation collection';
    return [
      `${whose} heap profile (${name}): ${(bytes.total / 2 ** 20 / seconds).toFixed(1)} MiB/s ${what}; by owner: ${top(bytes.byOwner, bytes.total, 12)}.`,
      `  by function: ${top(bytes.byFunction, bytes.total, 15)}. Profile: ${file}.`,
    ];
  };
}

/** `whose`: the thread profiled, as the summary names it (the service's, or the load client's). */
export async function startProfile(name: string, whose = 'Service thread'): Promise<() => Promise<string[]>> {
  const kind = process.env.LOAD_PROFILE;
  if (kind === 'heap' || kind === 'alloc') return startHeapProfile(name, whose, kind === 'alloc');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    session.disconnect();
    const file = await saveProfile(name, 'cpuprofile', profile);
    const busy = tally();
    let idle = 0;
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      if (!hits) continue;
      if (node.callFrame.functionName === '(idle)') idle += hits;
      else busy.add(node.callFrame, hits);
    }
    const total = busy.total + idle;
    return [
      `${whose} profile (${name}): busy in ${total ? ((100 * busy.total) / total).toFixed(0) : 0} % of the samples; of the busy time, by owner: ${top(busy.byOwner, busy.total, 12)}.`,
      `  hottest functions (self time): ${top(busy.byFunction, busy.total, 12)}. Profile: ${file} (while profiling, the "server thread busy" column overstates).`,
      ...holdUps(profile),
    ];
  };
}
