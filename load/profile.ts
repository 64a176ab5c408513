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

/** `whose`: the thread profiled, as the summary names it (the service's, or the load client's). */
export async function startProfile(name: string, whose = 'Service thread'): Promise<() => Promise<string[]>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
    session.disconnect();
    const file = path.join(os.tmpdir(), `image-canvas-load-${name}-${Date.now()}.cpuprofile`);
    await writeFile(file, JSON.stringify(profile));
    const byOwner = new Map<string, number>();
    const byFunction = new Map<string, number>();
    let busy = 0;
    let idle = 0;
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      if (!hits) continue;
      if (node.callFrame.functionName === '(idle)') {
        idle += hits;
        continue;
      }
      busy += hits;
      const o = owner(node.callFrame);
      byOwner.set(o, (byOwner.get(o) ?? 0) + hits);
      const f = label(node.callFrame);
      byFunction.set(f, (byFunction.get(f) ?? 0) + hits);
    }
    const total = busy + idle;
    return [
      `${whose} profile (${name}): busy in ${total ? ((100 * busy) / total).toFixed(0) : 0} % of the samples; of the busy time, by owner: ${top(byOwner, busy, 12)}.`,
      `  hottest functions (self time): ${top(byFunction, busy, 12)}. Profile: ${file} (while profiling, the "server thread busy" column overstates).`,
    ];
  };
}
