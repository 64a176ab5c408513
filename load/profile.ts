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
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
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
    ];
  };
}
