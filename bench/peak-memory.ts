// Peak memory of a stretch of work (Linux /proc): of this process — the service, which `npm run bench` runs in-process
// — and of its image worker processes (src/imaging/pool.ts: tinypool's child processes). Each peak is the kernel's own
// high-water mark (VmHWM), reset at the start (`/proc/<pid>/clear_refs` ← 5) so that it covers this stretch only, and
// read every SAMPLE_MS (a worker that ends during the stretch — idle, cancelled, past its deadline — keeps the peak it
// had at its last sample). Elsewhere, or when a reset is refused, the peak is the process's whole life's (`reset` false).
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

const SAMPLE_MS = 50;

/** Descendants of `pid` (every thread's children), depth first. */
function descendants(pid: number): number[] {
  const found: number[] = [];
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return found;
  }
  for (const tid of tasks) {
    let children: number[];
    try {
      children = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      continue;
    }
    for (const child of children) found.push(child, ...descendants(child));
  }
  return found;
}

/** This process's image workers: its descendants started from tinypool's process entry. */
export function imageWorkerPids(): number[] {
  if (process.platform !== 'linux') return [];
  return descendants(process.pid).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('tinypool');
    } catch {
      return false;
    }
  });
}

/** A process's VmHWM (peak resident set), in bytes; undefined when it has ended. */
function highWater(pid: number | 'self'): number | undefined {
  try {
    const kb = /^VmHWM:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** A process's CPU time (user + system), in ms; undefined when it has ended. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return undefined;
  }
}

function resetHighWater(pid: number | 'self'): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface PeakMemory {
  /** This process (the service and what else the bench runs in it). */
  serviceBytes: number;
  /** This process's resident set at the start. */
  serviceStartBytes: number;
  /** The largest peak of one image worker process (0: no worker ran). */
  workerBytes: number;
  /** The image workers' peaks added up (an upper bound of their peak together). */
  workersSumBytes: number;
  /** Image worker processes seen. */
  workers: number;
  /** Whether every peak was reset at the start (else some are since their process started). */
  reset: boolean;
  /** Each image worker's CPU time over the stretch (ms, largest first), and the stretch's wall time (ms). */
  workerCpuMs: number[];
  wallMs: number;
}

/** Starts measuring; `stop()` answers the peaks since. `exclude`: worker processes not to count (another instance's). */
export function measurePeakMemory(exclude: ReadonlySet<number> = new Set()): { stop(): PeakMemory } {
  if (process.platform !== 'linux') {
    const serviceStartBytes = process.memoryUsage.rss();
    return { stop: () => ({ serviceBytes: process.resourceUsage().maxRSS * 1024, serviceStartBytes, workerBytes: 0, workersSumBytes: 0, workers: 0, reset: false, workerCpuMs: [], wallMs: 0 }) };
  }
  const serviceStartBytes = process.memoryUsage.rss();
  let reset = resetHighWater('self');
  // Workers running now are reset; one started later has its whole life's peak, all of it within the stretch.
  const workers = () => imageWorkerPids().filter((pid) => !exclude.has(pid));
  for (const pid of workers()) if (!resetHighWater(pid)) reset = false;
  const peaks = new Map<number, number>();
  const cpu = new Map<number, { first: number; last: number }>();
  const startedAt = performance.now();
  // A worker alive now starts from its CPU time now; one started later from 0.
  for (const pid of workers()) {
    const ms = cpuMs(pid);
    if (ms !== undefined) cpu.set(pid, { first: ms, last: ms });
  }
  const sample = () => {
    for (const pid of workers()) {
      const hwm = highWater(pid);
      if (hwm !== undefined) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, hwm));
      const ms = cpuMs(pid);
      if (ms !== undefined) cpu.set(pid, { first: cpu.get(pid)?.first ?? 0, last: ms });
    }
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const values = [...peaks.values()];
      return {
        serviceBytes: highWater('self') ?? process.resourceUsage().maxRSS * 1024,
        serviceStartBytes,
        workerBytes: Math.max(0, ...values),
        workersSumBytes: values.reduce((a, b) => a + b, 0),
        workers: values.length,
        reset,
        workerCpuMs: [...cpu.values()].map((c) => c.last - c.first).sort((a, b) => b - a),
        wallMs: performance.now() - startedAt,
      };
    },
  };
}
