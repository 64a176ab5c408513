// Where a latency spike can come from besides the work itself: the event loop of a process held up (delay of a
// 10 ms timer, HDR histogram) and its garbage collector's pauses. Watched in the service (harness.ts, over a
// step's window) and in the live load client (live-editors.ts, over its editing), so a report can tell whose
// thread stalled.
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
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
}

const RESOLUTION_MS = 10;

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
  return () => {
    delay.disable();
    gc.disconnect();
    // The histogram holds the intervals between the 10 ms samples (nanoseconds): the delay is what exceeds 10 ms.
    const late = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
    return { loopDelayP99Ms: late(delay.percentile(99)), loopDelayMaxMs: late(delay.max), gcCount, gcTotalMs, gcMaxMs };
  };
}
