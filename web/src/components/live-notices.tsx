// What the live canvas could not take, said where it cannot be missed: a change the service refused (the provider
// resends it on every reconnect, so nothing of this tab's is saved until the page is reloaded; an undo does not help:
// the undone change still travels with the undo), and a change this tab did not make (too many nodes).
import type { LiveSession } from '../canvas/live-session';
import { useStore } from '../hooks/use-live-session';

export function LiveNotices({ session }: { session: LiveSession }) {
  const refused = useStore(session.refused);
  const notice = useStore(session.notice);
  if (!refused && !notice) return null;
  return (
    <div className="live-notices">
      {refused && (
        <p className="notice error" role="alert" data-testid="live-refused">
          The server refused a change: {refused}. Your changes since then are not being saved.{' '}
          <button type="button" className="link-button" onClick={() => window.location.reload()}>
            Reload
          </button>{' '}
          to discard them and keep editing.
        </p>
      )}
      {notice && (
        <p className="notice" role="status" data-testid="live-notice">
          {notice}{' '}
          <button type="button" className="link-button small" onClick={() => session.notice.set(null)}>
            Dismiss
          </button>
        </p>
      )}
    </div>
  );
}
