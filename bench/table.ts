// The benchmark's result rows and their markdown table. Every section returns rows; run.ts prints them.

export interface Row {
  case: string;
  inFlight: number;
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** The row this one is compared with, measured in the same run: ratio = reqPerSec / baseline.reqPerSec. */
  baseline?: Row;
  /** Other rows name this one as their baseline. */
  isBaseline?: boolean;
}

const fixed = (n: number, digits: number) => n.toFixed(digits);

function ratioCell(row: Row): string {
  const b = row.baseline;
  if (b) return `${fixed(row.reqPerSec / b.reqPerSec, 2)}× of "${b.case}"${b.inFlight === row.inFlight ? '' : ` (${b.inFlight} in flight)`}`;
  return row.isBaseline ? 'baseline' : '';
}

/** Rows as a markdown table (columns padded so it also reads as plain text). */
export function formatTable(rows: Row[]): string {
  const header = ['case', 'in flight', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'ratio vs baseline'];
  const right = [false, true, true, true, true, true, false];
  const cells = rows.map((r) => [
    r.case,
    String(r.inFlight),
    String(r.requests),
    fixed(r.reqPerSec, 0),
    fixed(r.p50Ms, 2),
    fixed(r.p99Ms, 2),
    ratioCell(r),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => `| ${c.map((v, i) => (right[i] ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...cells.map(line)].join('\n');
}

export function printTable(rows: Row[]): void {
  console.log(formatTable(rows));
}

/** A part of the benchmark: measures against the running service and appends its rows (kept on failure). */
export type Section<Context> = (ctx: Context, rows: Row[]) => Promise<void>;
