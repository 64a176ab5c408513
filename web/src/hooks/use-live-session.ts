// The live canvas session of a page (canvas/live-session.ts): opened when the page shows a project, closed
// (socket, presence, undo history) when it leaves; and its stores read as React state.
import { useEffect, useState, useSyncExternalStore } from 'react';
import { LiveSession, type Store } from '../canvas/live-session';
import { colorOf } from '../canvas/presence';

export function useLiveSession(projectId: string, user: { id: string; name?: string | null; email?: string | null }): LiveSession | null {
  const [session, setSession] = useState<LiveSession | null>(null);
  const name = user.name || user.email || 'Someone';
  useEffect(() => {
    const opened = new LiveSession(projectId, { id: user.id, name, color: colorOf(user.id) });
    setSession(opened);
    return () => {
      opened.destroy();
      setSession(null);
    };
  }, [projectId, user.id, name]);
  return session;
}

/** A session store's value, as state. */
export function useStore<T>(store: Store<T>): T {
  return useSyncExternalStore(store.subscribe, store.get);
}
