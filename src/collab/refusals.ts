// Refused frames without hocuspocus's console. A hook of ours refuses a frame by throwing a Refusal from
// `beforeHandleMessage` (rate, content, storage); hocuspocus would then print "closing connection … because of
// exception" and the whole error, stack included, with console.error (it takes no logger). Here the hook is wrapped:
// a refusal closes the document connection with its code and reason, as hocuspocus would (the provider is told the
// reason), logs one line through our logger, and leaves hocuspocus nothing to throw on — the frame it is about to
// read becomes a Close of that already closed connection, a no-op (./frames.ts neuter); so does every later frame
// of that connection still queued.
import type { beforeHandleMessagePayload, Configuration, Connection } from '@hocuspocus/server';
import { Refusal } from './close-codes.js';
import { neuter } from './frames.js';

export interface RefusalLog {
  warn(o: object, m: string): void;
  error(o: object, m: string): void;
}

/** Connections that could not handle a frame: whether the service failed, not the client. */
const FAILED = { code: 4500, reason: 'failed' };

export function quietRefusals<Context>(log: RefusalLog, config: Partial<Configuration<Context>>): Partial<Configuration<Context>> {
  const before = config.beforeHandleMessage;
  if (!before) return config;
  const refused = new WeakSet<Connection<Context>>();
  return {
    ...config,
    async beforeHandleMessage(payload: beforeHandleMessagePayload<Context>) {
      const { connection, update: frame, document } = payload;
      if (refused.has(connection)) return neuter(frame);
      try {
        await before(payload);
      } catch (err) {
        refused.add(connection);
        if (err instanceof Refusal) log.warn({ projectId: document.name, code: err.code, reason: err.reason }, 'live socket: a frame was refused');
        else log.error({ err, projectId: document.name }, 'live socket: a frame could not be handled');
        const { code, reason } = err instanceof Refusal ? err : FAILED;
        connection.close({ code, reason });
        neuter(frame);
      }
    },
  };
}
