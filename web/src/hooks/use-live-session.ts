// The live canvas session of a page (canvas/live-session.ts): opened when the page shows a project, closed
// (socket, presence, undo history) when it leaves; and its stores read as React state.
//
// A change the service refuses (docs/api.md, the rules table) would be resent by the provider on every reconnect and
// refused again, and nothing after it saved: the session is then dropped — its document, with the refused change
// and anything not yet sent — and the project's document opened again as the service holds it. The new session
// says why (`reloaded`, shown by live-notices.tsx).
import { useEffect, useState, useSyncExternalStore } from 'react';
import { LiveSession, type Store } from '../canvas/live-session';
import { colorOf } from '../canvas/presence';

export function useLiveSession(projectId: string, user: { id: string; name?: string | null; email?: string | null }): LiveSession | null {
  const [session, setSession] = useState<LiveSession | null>(null);
  /** Bumped to open the document again; with the refusal that made it so, for the project it was in. */
  const [reload, setReload] = useState<{ count: number; projectId: string; why: string | null }>({ count: 0, projectId, why: null });
  const name = user.name || user.email || 'Someone';
  const reloadedAfter = reload.projectId === projectId ? reload.why : null;
  useEffect(() => {
    const opened = new LiveSession(projectId, { id: user.id, name, color: colorOf(user.id) }, reloadedAfter);
    setSession(opened);
    const stop = opened.refused.subscribe(() => {
      const why = opened.refused.get();
      if (why) setReload((r) => ({ count: r.count + 1, projectId, why }));
    });
    return () => {
      stop();
      opened.destroy();
      setSession(null);
    };
  }, [projectId, user.id, name, reload.count, reloadedAfter]);
  return session;
}

/** A session store's value, as state. */
export function useStore<T>(store: Store<T>): T {
  return useSyncExternalStore(store.subscribe, store.get);
}
