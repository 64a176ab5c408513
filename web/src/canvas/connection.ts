// The live canvas's connection to the service, as the header says it (components/connection-status.tsx): the
// state LiveSession keeps from the provider's events, and the one status word it makes.

export interface ConnectionState {
  /** The WebSocket: connected, trying to connect, or closed (between attempts, or while the browser is offline). */
  socket: 'connecting' | 'connected' | 'disconnected';
  /** In step with the service: synced since the socket last opened. */
  synced: boolean;
  /** Synced at least once: the document holds the canvas and can be shown. */
  loaded: boolean;
  /** Changes of this tab the service has not yet acknowledged as stored (the provider's `unsyncedChanges`). */
  unsynced: number;
  /** False while the service says it cannot store changes (they still reach everyone, and are kept). */
  saving: boolean;
  /**
   * False while the service says changes made here may not reach collaborators connected to its other servers (its
   * link to them, Redis, is down); they are still saved and reach everyone once it is back.
   */
  relayed: boolean;
  /** What the service allows on this document: `readonly` for a viewer. */
  scope: 'read-write' | 'readonly' | null;
  /** The service refused the document (not shared with this user, or gone). */
  denied: boolean;
  /**
   * The service had no room to open the document (`too-many-documents`): the provider connects again by itself, with
   * its backoff, until it is let in; changes made meanwhile are kept here.
   */
  busy: boolean;
  /** The browser says it has a network. */
  online: boolean;
}

/** What the header shows, from the connection's state. */
export type ConnectionStatus = 'connecting' | 'connected' | 'offline' | 'reconnecting' | 'not-saving' | 'busy';

export function connectionStatus(state: ConnectionState): ConnectionStatus {
  // Without a network, being offline is what to say; otherwise the wait is the service's, until it lets us in.
  if (state.busy && state.online) return 'busy';
  if (!state.loaded) return 'connecting';
  if (!state.saving) return 'not-saving';
  if (state.socket === 'connected' && state.synced) return 'connected';
  // Not in step: changes of ours are waiting (kept here), or the browser has no network; else we are retrying.
  return state.unsynced > 0 || !state.online ? 'offline' : 'reconnecting';
}
