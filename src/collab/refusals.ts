// Refused frames without hocuspocus's console. A hook of ours refuses a frame by throwing a Refusal from
// `beforeHandleMessage` (rate, content, storage); hocuspocus would then print "closing connection … because of
// exception" and the whole error, stack included, with console.error (it takes no logger). Here the hook is wrapped:
// a refusal closes the document connection with its code and reason, as hocuspocus would (the provider is told the
// reason), logs one line through our logger, and leaves hocuspocus nothing to throw on — the frame it is about to
// read becomes a Close of that already closed connection, a no-op (./frames.ts neuter); so does every later frame
// of that connection still queued.
//
// A failure (not a refusal) of `onAuthenticate` or `onLoadDocument` (the database, say) would be printed by
// hocuspocus too, its message as is: it is logged here and hocuspocus gets a refusal, which it answers as it answered
// the failure (`permission-denied`) without printing.
import type { beforeHandleMessagePayload, Configuration, Connection } from '@hocuspocus/server';
import { CLOSE, Refusal } from './protocol.js';
import { neuter } from './frames.js';

export interface RefusalLog {
  warn(o: object, m: string): void;
  error(o: object, m: string): void;
}


/**
 * `hook` whose failures on a client's connection are logged and become a silent `permission-denied` (the service's
 * own connections, with no user in their context, get the failure itself).
 */
function logged<P extends { documentName: string; context?: unknown }, R>(log: RefusalLog, what: string, hook: ((payload: P) => Promise<R>) | undefined) {
  if (!hook) return undefined;
  return async (payload: P): Promise<R> => {
    try {
      return await hook(payload);
    } catch (err) {
      const client = typeof payload.context === 'object' && payload.context !== null && ('byToken' in payload.context || (payload.context as { user?: unknown }).user);
      if (err instanceof Refusal || !client) throw err;
      log.error({ err, projectId: payload.documentName }, `live socket: ${what} failed`);
      throw new Refusal(CLOSE.permissionDenied.reason, CLOSE.permissionDenied.code);
    }
  };
}

export function quietRefusals<Context>(log: RefusalLog, config: Partial<Configuration<Context>>): Partial<Configuration<Context>> {
  const before = config.beforeHandleMessage;
  if (!before) return config;
  const refused = new WeakSet<Connection<Context>>();
  return {
    ...config,
    onAuthenticate: logged(log, 'an authentication', config.onAuthenticate),
    onLoadDocument: logged(log, 'loading a document', config.onLoadDocument),
    async beforeHandleMessage(payload: beforeHandleMessagePayload<Context>) {
      const { connection, update: frame, document } = payload;
      if (refused.has(connection)) return neuter(frame);
      try {
        await before(payload);
      } catch (err) {
        refused.add(connection);
        if (err instanceof Refusal) log.warn({ projectId: document.name, code: err.code, reason: err.reason }, 'live socket: a frame was refused');
        else log.error({ err, projectId: document.name }, 'live socket: a frame could not be handled');
        const { code, reason } = err instanceof Refusal ? err : CLOSE.failed;
        connection.close({ code, reason });
        neuter(frame);
      }
    },
  };
}
