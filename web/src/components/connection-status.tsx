// The live canvas's connection, in the header: Connected (with Saved / Saving… while the service has not yet
// acknowledged this tab's changes as stored), Offline — changes kept (Offline with none waiting), Reconnecting…,
// Not saving — changes kept (the service says it cannot store changes right now: they still reach everyone, and
// nothing is lost), or Server busy — retrying… (it had no room to open one more canvas; the tab tries again by
// itself). Announced politely to screen readers; `data-state` and `data-saved` are for tests and styles. While the
// server's link to its other servers is down (the `relay` message), a notice says that collaborators there may not
// see changes yet.
import { connectionStatus, type ConnectionStatus as Status } from '../canvas/connection';
import type { LiveSession } from '../canvas/live-session';
import { useStore } from '../hooks/use-live-session';

const TEXT: Record<Status, string> = {
  connecting: 'Connecting…',
  connected: 'Connected',
  offline: 'Offline — changes kept',
  reconnecting: 'Reconnecting…',
  'not-saving': 'Not saving — changes kept',
  busy: 'Server busy — retrying…',
};

const TITLE: Record<Status, string> = {
  connecting: 'Opening the live canvas',
  connected: 'Changes are shared live and saved as you work',
  offline: 'No connection: your changes are kept in this tab and sent when it is back',
  reconnecting: 'The connection dropped; trying again',
  'not-saving': 'The server cannot save right now; your changes are kept and still reach everyone',
  busy: 'The server has as many canvases open as it can hold; this tab tries again until there is room, and keeps your changes',
};

const RELAY_DOWN = 'Collaborators connected to other servers may not see changes until the connection between servers is back; everything is still saved';

export function ConnectionStatus({ session, readOnly }: { session: LiveSession; readOnly?: boolean }) {
  const state = useStore(session.connection);
  const status = connectionStatus(state);
  const saved = state.unsynced === 0;
  return (
    <div className={`connection-status ${status}`} data-state={status} data-saved={String(saved)} title={TITLE[status]}>
      <span className="status-dot" aria-hidden="true" />
      <span role="status" aria-live="polite">
        {status === 'offline' && saved ? 'Offline' : TEXT[status]}
      </span>
      {status === 'connected' && !readOnly && <span className="status-detail">{saved ? 'Saved' : 'Saving…'}</span>}
      {status === 'connected' && !state.relayed && (
        <span className="status-detail status-relay" role="status" data-relay="down" title={RELAY_DOWN}>
          Some collaborators may not see your changes until the connection is back
        </span>
      )}
    </div>
  );
}
