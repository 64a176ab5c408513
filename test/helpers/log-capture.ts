// The app's JSON log lines, collected from the stream handed to buildApp (`logStream`), parsed.
import { Writable } from 'node:stream';

export interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  req?: { method?: string; url?: string; remoteAddress?: string };
  [field: string]: unknown;
}

export function captureLogs(): { stream: Writable; lines: LogLine[] } {
  const lines: LogLine[] = [];
  let pending = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as LogLine);
      done();
    },
  });
  return { stream, lines };
}
