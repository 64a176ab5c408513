// How many live documents one instance holds in memory (LIVE_MAX_OPEN_DOCUMENTS; docs/deploy.md "Live documents in
// memory"), as a hocuspocus extension. Each open document is a whole Yjs document on the main heap, with its editors'
// sockets: past the limit, a person's connection to a document not open here is refused (`too-many-documents`,
// ../protocol.ts) rather than loaded, so that the instance turns people away instead of running out of memory.
// Documents already open (or being loaded) take new connections as before, and room comes back as documents nobody
// is connected to are compacted and unloaded (./compaction.ts, hocuspocus's unloading).
//
// - The check runs in `onAuthenticate`, after ./authentication.ts let the person in: before hocuspocus answers the
//   document or creates it, so nothing of it is loaded or stored, and someone with no role on the project is told
//   so (not that the service is busy). Between this check and hocuspocus counting the document as loading there is
//   no I/O: only connections whose authentications end in the same instant can each take the last place, so the
//   limit is exceeded by at most those few.
// - On `/api/collab/<projectId>` (the web client) the socket serves this document alone: it is closed
//   (4503) before anything is answered on it, so the provider connects again by itself with its growing backoff
//   (1 s, 2 s, … 30 s: a refused provider whose socket had answered would come back every second). On COLLAB_PATH
//   (older clients, documents side by side on one socket) the document alone is refused, with the same reason.
// - The service's own connections (`open`: REST saves, runs, restores) never authenticate, so they are never refused:
//   they are short, and a REST save must work. They count among the open documents meanwhile, and may take the
//   instance past the limit for as long as they last (until their document's compaction after COLLAB_COMPACT_AFTER_MS).
import type { Extension, onAuthenticatePayload } from '@hocuspocus/server';
import { onceEvery } from '../../log-limiter.js';
import type { Metrics } from '../../metrics.js';
import { CLOSE, refusal } from '../protocol.js';
import type { SocketContext } from './authentication.js';

/** How often a refusal is logged while they go on (one line, then one with how many were left out). */
const TOLD_EVERY_MS = 30_000;

export interface CapacityDeps {
  /** Documents this instance holds before refusing people's connections to another; 0: no limit. */
  maxOpenDocuments: number;
  metrics?: Partial<Pick<Metrics, 'refusedDocument'>>;
  log: { warn(o: object, m: string): void };
}

export function capacity({ maxOpenDocuments, metrics, log }: CapacityDeps): Extension {
  const told = onceEvery(TOLD_EVERY_MS, (fields, m) => log.warn(fields, m));
  return {
    extensionName: 'capacity',

    async onAuthenticate({ documentName, context, instance }: onAuthenticatePayload<SocketContext>) {
      if (maxOpenDocuments === 0 || instance.documents.has(documentName) || instance.loadingDocuments.has(documentName)) return;
      const open = instance.documents.size + instance.loadingDocuments.size;
      if (open < maxOpenDocuments) return;
      metrics?.refusedDocument?.();
      told('too-many-documents', { projectId: documentName, openDocuments: open, limit: maxOpenDocuments }, 'live socket: a document was refused, this instance holds LIVE_MAX_OPEN_DOCUMENTS');
      // Closed now, hocuspocus's answer to the refusal is never sent (../socket-limits.ts sends nothing on a closing socket).
      if (context.project !== undefined) context.end?.(CLOSE.tooManyDocuments);
      throw refusal(CLOSE.tooManyDocuments);
    },
  };
}
