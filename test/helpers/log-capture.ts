// The app's JSON log lines, collected from the stream handed to buildApp (`logStream`), parsed.
import { Writable } from 'node:stream';

export interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method?: string; url?: string; remoteAddress?: string };
  [field: string]: unknown;
}

export function captureLogs(): { stream: Writable; lines: LogLine[]; line(match: (l: LogLine) => boolean): Promise<LogLine> } {
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  let pending = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as LogLine);
      for (const wake of [...waiters]) wake();
      done();
    },
  });
  /** Resolves with the first line (written so far or later) that `match` accepts. */
  const line = (match: (l: LogLine) => boolean) =>
    new Promise<LogLine>((resolve) => {
      const check = () => {
        const hit = lines.find(match);
        if (!hit) return;
        waiters.delete(check);
        resolve(hit);
      };
      waiters.add(check);
      check();
    });
  return { stream, lines, line };
}
