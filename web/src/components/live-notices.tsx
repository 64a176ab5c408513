// What the live canvas could not take, said where it cannot be missed: a change the service refused (the page then
// dropped its copy of the canvas and loaded it again as the service has it: use-live-session.ts), and a change this
// tab did not make (too many nodes).
import type { LiveSession } from '../canvas/live-session';
import { useStore } from '../hooks/use-live-session';

export function LiveNotices({ session }: { session: LiveSession }) {
  const reloaded = useStore(session.reloaded);
  const notice = useStore(session.notice);
  if (!reloaded && !notice) return null;
  return (
    <div className="live-notices">
      {reloaded && (
        <p className="notice error" role="alert" data-testid="live-refused">
          The server refused a change: {reloaded}. The canvas was loaded again as the server has it; that change, and any
          made after it that were not saved yet, are gone.{' '}
          <button type="button" className="link-button small" onClick={() => session.reloaded.set(null)}>
            Dismiss
          </button>
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
