// Where a latency spike can come from besides the work itself: the event loop of a process held up (delay of a
// 10 ms timer, HDR histogram) and its garbage collector's pauses. Watched in the service (harness.ts, over a
// step's window) and in the live load client (live-editors.ts, over its editing), so a report can tell whose
// thread stalled.
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * A full garbage collection of this process now: before a measured window, so that collecting what the connecting
 * left behind (hundreds of synced documents, sockets) does not land in the window as a pause of its own.
 */
export function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

export interface Stalls {
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  gcCount: number;
  /** GC pauses: their sum (ms) and the longest (ms). */
  gcTotalMs: number;
  gcMaxMs: number;
  /**
   * Each time the event loop was held up at least STALL_MS: when it started (wall clock, ms since the epoch, so the
   * processes of one machine can be compared) and how long it lasted; `client` is set by the merge of load clients.
   */
  stalls: Array<{ at: number; ms: number; client?: number }>;
  /** When the watch started (wall clock, ms since the epoch). */
  startedAt: number;
}

const RESOLUTION_MS = 10;
/** How long a hold-up of the event loop must be to be listed with its time. */
export const STALL_MS = 100;

/** The stalls of several processes as one line, in seconds from `t0` (wall clock): `12.3 s 310 ms (client 1), …`. */
export function stallsLine(stalls: Stalls['stalls'], t0: number): string {
  if (stalls.length === 0) return 'none';
  return [...stalls]
    .sort((a, b) => a.at - b.at)
    .map((s) => `${((s.at - t0) / 1000).toFixed(1)} s ${s.ms} ms${s.client === undefined ? '' : ` (client ${s.client + 1})`}`)
    .join(', ');
}

/** Starts watching this process; the returned function stops and answers what was seen. */
export function watchStalls(): () => Stalls {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let gcCount = 0;
  let gcTotalMs = 0;
  let gcMaxMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcCount++;
      gcTotalMs += entry.duration;
      gcMaxMs = Math.max(gcMaxMs, entry.duration);
    }
  });
  gc.observe({ entryTypes: ['gc'] });
  // The histogram has no time axis: a timer of our own says when each long hold-up happened.
  const stalls: Stalls['stalls'] = [];
  const startedAt = Date.now();
  let expected = performance.now() + RESOLUTION_MS;
  const ticker = setInterval(() => {
    const now = performance.now();
    const late = now - expected;
    if (late >= STALL_MS) stalls.push({ at: Math.round(Date.now() - late), ms: Math.round(late) });
    expected = now + RESOLUTION_MS;
  }, RESOLUTION_MS);
  ticker.unref();
  return () => {
    delay.disable();
    gc.disconnect();
    clearInterval(ticker);
    // The histogram holds the intervals between the 10 ms samples (nanoseconds): the delay is what exceeds 10 ms.
    const late = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    return { loopDelayP99Ms: late(delay.percentile(99)), loopDelayMaxMs: late(delay.max), gcCount, gcTotalMs, gcMaxMs, stalls, startedAt };
  };
}
