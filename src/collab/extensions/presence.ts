// Presence (Yjs awareness: who is here, their pointer and selection) as a hocuspocus extension. It belongs to
// whoever sends it, and shows people as the service knows them.
//
// A provider's awareness state is keyed by its Yjs client id (its document's `clientID`); y-protocols applies any
// client id's state from anyone, so a viewer could overwrite another person's presence. Here a document connection
// is bound to the first client id it announces in a presence frame (one that no other person's connection on this
// document holds, and no other instance's client shows: a state already there without a connection of that person
// here), and every later presence frame of that connection may set only that id's state: entries for other ids are
// dropped (a provider sends them legitimately only to clear peers it timed out, which the service does itself). A
// person's own second connection (a reconnect while the first is still here) may bind the same id. Each state's
// `user` then carries the connection's user id and name, whatever the client claimed.
//
// The hook payload's `states` is a scratch Awareness's, which also holds the scratch's own client id (an empty state
// at clock 0, which y-protocols then ignores): only ids the frame itself carries are kept, so it is dropped here too.
// Presence frames are bounded before hocuspocus sees them (../socket-limits.ts).
import type { beforeHandleAwarenessPayload, beforeHandleMessagePayload, Connection, Document, Extension } from '@hocuspocus/server';
import { framePresence, presenceEntries } from '../frames.js';

interface WithUser {
  user?: { id: string; name?: string | null } | null;
}

export function presence<Context extends WithUser>(): Extension<Context> {
  /** The client id each connection is bound to. */
  const bound = new WeakMap<Connection<Context>, number>();
  /** For the presence frame a connection is handling now (hocuspocus handles a connection's frames one at a time): the ids it may set. */
  const allowed = new WeakMap<Connection<Context>, Set<number>>();

  const userOf = (connection: Connection<Context>) => connection.context?.user?.id;
  /** Whether `client` is someone else's on this document. */
  function taken(document: Document, connection: Connection<Context>, client: number): boolean {
    let mine = false;
    for (const other of document.getConnections() as Array<Connection<Context>>) {
      if (other === connection || bound.get(other) !== client) continue;
      if (userOf(other) !== userOf(connection) || userOf(other) === undefined) return true;
      mine = true;
    }
    return !mine && document.awareness.getStates().has(client);
  }

  return {
    extensionName: 'presence',
    priority: 150,
    async beforeHandleMessage(payload: beforeHandleMessagePayload<Context>) {
      const update = framePresence(payload.update);
      if (!update) return;
      const { connection, document } = payload;
      const ids = new Set<number>();
      try {
        for (const { client, cleared } of presenceEntries(update)) {
          const own = bound.get(connection);
          if (own === client) ids.add(client);
          else if (own === undefined && !cleared && !taken(document, connection, client)) {
            bound.set(connection, client);
            ids.add(client);
          }
        }
      } catch {
        ids.clear(); // read whole in the message path already: cannot happen
      }
      allowed.set(connection, ids);
    },
    async beforeHandleAwareness({ connection, context, states }: beforeHandleAwarenessPayload<Context>) {
      if (connection) {
        const ids = allowed.get(connection) ?? new Set<number>();
        allowed.delete(connection);
        for (const client of [...states.keys()]) if (!ids.has(client)) states.delete(client);
      }
      // Presence shows who people are as the service knows them, not as their client says.
      const user = context?.user;
      if (connection && !user) {
        states.clear(); // a read-only link's holder (no one the service knows) is not shown, whatever it claims
        return;
      }
      if (!user) return;
      for (const state of states.values()) {
        const claimed = (typeof state.user === 'object' && state.user !== null ? state.user : {}) as Record<string, unknown>;
        state.user = { ...claimed, id: user.id, name: user.name };
      }
    },
  };
}
