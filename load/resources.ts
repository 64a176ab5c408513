// Where the CPU went during a step, from /proc (Linux): the service's process, our PostgreSQL server (the
// postmaster and its children), the load client's process, and the whole machine (so work outside this run,
// e.g. another test suite on the same cores, shows up as "other").
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** Clock ticks per second of /proc times (USER_HZ); 100 on every common Linux build. */
const HZ = 100;

interface ProcStat {
  ppid: number;
  /** utime + stime, seconds. */
  own: number;
  /** cutime + cstime: children already reaped, seconds. */
  reaped: number;
}

function procStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: field 3 (state) first.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), own: (Number(f[11]) + Number(f[12])) / HZ, reaped: (Number(f[13]) + Number(f[14])) / HZ };
  } catch {
    return undefined;
  }
}

export function parentPid(pid: number): number | undefined {
  return procStat(pid)?.ppid;
}

/** CPU seconds of a process, threads included. */
export function processCpu(pid: number): number {
  return procStat(pid)?.own ?? NaN;
}

/** CPU seconds of a process and all its children, alive or reaped (PostgreSQL: postmaster + backends). */
export function treeCpu(rootPid: number): number {
  const root = procStat(rootPid);
  if (!root) return NaN;
  let total = root.own + root.reaped;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = procStat(Number(name));
    if (s && s.ppid === rootPid) total += s.own + s.reaped;
  }
  return total;
}

/**
 * CPU seconds of a process's children (each with what it reaped), leaving out `except`: the service's own child
 * processes (image workers, any pool of processes it runs work in) without PostgreSQL or the load clients.
 */
export function childrenCpu(parentPid: number, except: ReadonlySet<number>): number {
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || except.has(Number(name))) continue;
    const s = procStat(Number(name));
    if (s && s.ppid === parentPid) total += s.own + s.reaped;
  }
  return total;
}

/** Write system calls a process has made so far (`syscw` of /proc/<pid>/io: each socket write is one); NaN if unreadable. */
export function writeCalls(pid: number | 'self' = 'self'): number {
  try {
    const line = readFileSync(`/proc/${pid}/io`, 'utf8').split('\n').find((l) => l.startsWith('syscw:'));
    return line ? Number(line.slice(6).trim()) : NaN;
  } catch {
    return NaN;
  }
}

/** Busy and total CPU seconds of the whole machine, all cores (from the first line of /proc/stat). */
export function machineCpu(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest is already inside user)
  const idle = f[3] + f[4];
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - idle) / HZ, total: total / HZ };
}

export function machineInfo(): string {
  const cpus = os.cpus();
  return (
    `Node ${process.version} on ${os.platform()} ${os.release()} (${os.arch()}), ${cpus.length} CPU × ${cpus[0]?.model.trim() ?? 'unknown'}, ` +
    `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${loadAverage()}`
  );
}

export const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
