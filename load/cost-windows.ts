// The live cost section's arithmetic (live-cost.ts), kept apart so it can be checked without a service: a window
// with edits against an adjacent window of the same length without them, on the same open documents.
//
// Why pairs: an idle rate taken once and subtracted from every round was taken while the service was still busy
// (documents being compacted after their seeding, 33 ms/s), and 4 rounds of 6 came out negative. A window without
// edits next to each window with them holds the same background work (the open rooms' awareness, timers, whatever
// else the service does then), so their difference is what the edits cost. The order alternates from round to round
// (with edits first, then without first), so work that spills from one window into the next — a store or a garbage
// collection that comes due just after — lands once on each side and widens the spread instead of biasing it.
// Nothing here hides a negative figure: it is reported with the round's own readings.

/** CPU seconds used so far (the service's, PostgreSQL's) at a moment (performance.now(), ms). */
export interface CpuReading {
  at: number;
  service: number;
  postgres: number;
}

/** What a part of a window used: its length (s) and the CPU seconds spent in it. */
export interface CpuSpent {
  wallS: number;
  service: number;
  postgres: number;
}

export function spent(from: CpuReading, to: CpuReading): CpuSpent {
  return { wallS: (to.at - from.at) / 1000, service: to.service - from.service, postgres: to.postgres - from.postgres };
}

/**
 * CPU seconds per edit: what the window with edits spent beyond the window without them, divided by the edits
 * acknowledged. The window without edits is as long as the one with them; when a drain ran late and they differ,
 * its use is scaled to the length of the one with edits (equal lengths: the plain difference). NaN without edits.
 */
export function perEdit(withEdits: CpuSpent, without: CpuSpent, edits: number): { service: number; postgres: number } {
  if (!(edits > 0) || !(without.wallS > 0)) return { service: NaN, postgres: NaN };
  const scale = withEdits.wallS / without.wallS;
  return {
    service: (withEdits.service - without.service * scale) / edits,
    postgres: (withEdits.postgres - without.postgres * scale) / edits,
  };
}

/** Which window of round `round` (0-based) comes first: the two orders alternate from round to round. */
export const withEditsFirst = (round: number): boolean => round % 2 === 0;

/** The figures of several rounds: their median, lowest and highest, and how many came out negative. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  rounds: number;
  negative: number;
}

export function spreadOf(values: number[]): Spread {
  const xs = values.filter(Number.isFinite).sort((a, b) => a - b);
  const n = xs.length;
  const median = n === 0 ? NaN : n % 2 ? xs[(n - 1) / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
  return { median, min: n ? xs[0] : NaN, max: n ? xs[n - 1] : NaN, rounds: n, negative: xs.filter((x) => x < 0).length };
}

/** The ratio of two medians; NaN unless both are positive (a ratio of a negative figure measures nothing). */
export const ratioOfMedians = (a: Spread, b: Spread): number => (a.median > 0 && b.median > 0 ? a.median / b.median : NaN);

/** Microseconds, as the cost lines print them ("–" for nothing measured). */
export const us = (seconds: number): string => (Number.isFinite(seconds) ? (seconds * 1e6).toFixed(0) : '–');

/** `median µs (min–max over N rounds)`, and how many rounds were negative when some were. */
export function spreadText(s: Spread): string {
  if (s.rounds === 0) return '– (no round)';
  const range = s.rounds > 1 ? ` (${us(s.min)}–${us(s.max)} over ${s.rounds} rounds${s.negative ? `, ${s.negative} NEGATIVE` : ''})` : s.negative ? ' (NEGATIVE)' : '';
  return `${us(s.median)} µs${range}`;
}

/** What a window held besides the service's CPU, to explain a round that came out negative. */
export interface WindowNotes {
  /** Live documents compacted (their snapshot written) within the window. */
  compactions: number;
  /** The service process's garbage-collection pauses within the window, ms. */
  gcMs: number;
}

/**
 * Why a round's cost per edit came out negative, from the two windows' readings: the window without edits spent more
 * than the one with them, and what fell into it that the edits did not cause (compactions, garbage collection), or,
 * when neither did, that the edits' cost is below the service's background variation at this rate.
 */
export function negativeReason(what: 'service' | 'postgres', withEdits: CpuSpent & WindowNotes, without: CpuSpent & WindowNotes): string {
  const name = what === 'service' ? "the service's" : "PostgreSQL's";
  const ms = (s: number) => `${(s * 1000).toFixed(0)} ms`;
  const causes: string[] = [];
  if (without.compactions > withEdits.compactions) causes.push(`${without.compactions} document(s) compacted in it against ${withEdits.compactions} in the window with edits`);
  if (what === 'service' && without.gcMs > withEdits.gcMs) causes.push(`${without.gcMs.toFixed(0)} ms of garbage collection in it against ${withEdits.gcMs.toFixed(0)} ms`);
  const seen =
    `the window without edits used ${ms(without[what])} of ${name} CPU in ${without.wallS.toFixed(1)} s, the one with them ${ms(withEdits[what])} in ${withEdits.wallS.toFixed(1)} s`;
  return causes.length
    ? `${seen}: work these edits did not cause fell into it (${causes.join('; ')})`
    : `${seen}, and no compaction or garbage collection explains it: the edits' cost is below the variation of ${name} background work at this rate (raise LOAD_COST_RATE or LOAD_COST_SECONDS)`;
}
