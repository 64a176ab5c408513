// Refused frames without hocuspocus's console. An extension of ours refuses a frame by throwing a Refusal from
// `beforeHandleMessage` (rate, content, storage); hocuspocus would then print "closing connection … because of
// exception" and the whole error, stack included, with console.error (it takes no logger). Here each extension's
// hook is wrapped: a refusal closes the document connection with its code and reason, as hocuspocus would (the
// provider is told the reason), logs one line through our logger, and leaves hocuspocus nothing to throw on — the
// frame it is about to read becomes a Close of that already closed connection, a no-op (./frames.ts neuter); so does
// every later frame of that connection still queued. The extensions after the refusing one in hocuspocus's chain
// see the neutered frame (a Close, which none of them reads).
//
// A failure (not a refusal) of `onAuthenticate` or `onLoadDocument` (the database, say) would be printed by
// hocuspocus too, its message as is: it is logged here and hocuspocus gets a refusal, which it answers as it answered
// the failure (`permission-denied`) without printing.
//
// This relies on hocuspocus 4.7's Connection.processMessages: a frame's message is read from the same bytes once
// every `beforeHandleMessage` hook has resolved.
import type { beforeHandleMessagePayload, Extension } from '@hocuspocus/server';
import { neuter } from './frames.js';
import { CLOSE, Refusal } from './protocol.js';

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

/**
 * The wrapper for the live server's extensions: `quiet(extension)` is the extension with its refusals handled as
 * above. One wrapper for all of them, so a connection refused by one is refused for every other.
 */
export function quietRefusals(log: RefusalLog) {
  const refused = new WeakSet<object>();
  return function quiet<E extends Extension>(extension: E): E {
    const before = extension.beforeHandleMessage?.bind(extension);
    const onAuthenticate = extension.onAuthenticate?.bind(extension);
    const onLoadDocument = extension.onLoadDocument?.bind(extension);
    return Object.assign(Object.create(extension) as E, {
      ...(onAuthenticate && { onAuthenticate: logged(log, 'an authentication', onAuthenticate) }),
      ...(onLoadDocument && { onLoadDocument: logged(log, 'loading a document', onLoadDocument) }),
      ...(before && {
        async beforeHandleMessage(payload: beforeHandleMessagePayload) {
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
      }),
    });
  };
}
