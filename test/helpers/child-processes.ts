// This test process's children, read from /proc (Linux): the image workers the app under test started.
import { readFileSync, readdirSync } from 'node:fs';
import { isProcessAlive } from '../../src/data-dir.js';

function stat(pid: number): { state: string; ppid: number } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' '); // after the name: state, ppid, …
  return { state, ppid: Number(ppid) };
}

/** Children of this process started through tinypool's process runtime (its entry script is in the command line). */
export function imageWorkerPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return stat(pid).ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('tinypool');
      } catch {
        return false; // it ended while we looked
      }
    });
}

/** Running or stopped, not ended (a zombie not yet reaped counts as ended). */
export function isRunning(pid: number): boolean {
  try {
    return isProcessAlive(pid) && stat(pid).state !== 'Z';
  } catch {
    return false;
  }
}

/** Polls until `check` holds, bounded by the test's timeout: waits for an event (a process exiting), not a time. */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}
