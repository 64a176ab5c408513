// Repeated errors told once: a dependency that goes away (PostgreSQL restarting) makes its clients emit the same error
// many times a second (pg-boss's workers, supervisor and pool each, ~12 a second measured); the log tells each
// distinct error once, and again at most once every `windowMs` while it goes on, with how many were left out.

export type LimitedLog = (key: string, fields: Record<string, unknown>, msg: string) => void;

/** Keys remembered at most (distinct errors are few; a flood of distinct ones starts the count afresh). */
const MAX_KEYS = 200;

export function onceEvery(windowMs: number, log: (fields: Record<string, unknown>, msg: string) => void, now: () => number = Date.now): LimitedLog {
  const seen = new Map<string, { at: number; leftOut: number }>();
  return (key, fields, msg) => {
    const t = now();
    const last = seen.get(key);
    if (last && t - last.at < windowMs) {
      last.leftOut++;
      return;
    }
    if (!last && seen.size >= MAX_KEYS) seen.clear();
    seen.set(key, { at: t, leftOut: 0 });
    log(last?.leftOut ? { ...fields, repeated: last.leftOut } : fields, msg);
  };
}

/** The key of an error for onceEvery: its code and message (what tells one failure from another). */
export function errorKey(err: unknown): string {
  if (err !== null && typeof err === 'object') {
    const { code, message } = err as { code?: unknown; message?: unknown };
    return `${typeof code === 'string' ? code : ''}:${typeof message === 'string' ? message : ''}`;
  }
  return String(err);
}
