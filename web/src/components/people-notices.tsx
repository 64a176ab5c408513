// What other people did that changes this canvas for us, said in words where it cannot be missed (issue 34 point 7):
// someone changed what we may do here ("Ana removed you from this project", "You can now only view this canvas",
// "You can now edit") and someone restored a version ("Ana restored the version of 14:02") — the person who restored
// can undo it here (Undo, or Ctrl+Z right after: LiveSession.undo). From the service's stateless messages
// (src/collab/protocol.ts AccessMessage, RestoredMessage), kept by the live session until dismissed.
import type { AccessMessage, RestoredMessage } from '../../../src/collab/protocol';
import type { LiveSession } from '../canvas/live-session';
import { useStore } from '../hooks/use-live-session';
import { useUser } from '../hooks/use-session';

/** What changed for us, in words: who did it when the service said. */
export function accessText(message: AccessMessage): string {
  const { access, by, deleted } = message;
  if (access === 'none') {
    if (deleted) return by ? `${by} deleted this project.` : 'This project was deleted.';
    return by ? `${by} removed you from this project.` : 'You were removed from this project.';
  }
  const now = access === 'view' ? 'You can now only view this canvas.' : 'You can now edit this canvas.';
  return by ? `${by} changed your role. ${now}` : now;
}

const sameDay = (a: Date, b: Date) => a.toDateString() === b.toDateString();

/** "the version of 14:02" (a restore point; with its date when not today), or "“Moodboard v2”" (a named one). */
export function restoredLabel(message: Pick<RestoredMessage, 'name' | 'createdAt'>, now = new Date()): string {
  if (message.name) return `“${message.name}”`;
  const date = new Date(message.createdAt);
  if (Number.isNaN(date.getTime())) return 'a version';
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return sameDay(date, now) ? `the version of ${time}` : `the version of ${date.toLocaleDateString(undefined, { dateStyle: 'medium' })} ${time}`;
}

/** Our role changed while we were here (a removal shows as the page itself: canvas-page.tsx). */
export function AccessNotice({ session }: { session: LiveSession }) {
  const access = useStore(session.access);
  if (!access || access.access === 'none') return null;
  return (
    <p className="notice people-notice" role="status" data-testid="access-notice">
      {accessText(access)}{' '}
      <button type="button" className="link-button small" onClick={() => session.access.set(null)}>
        Dismiss
      </button>
    </p>
  );
}

/** Someone restored a version: who, and which; ours with Undo. */
export function RestoreNotice({ session, canEdit }: { session: LiveSession; canEdit: boolean }) {
  const restored = useStore(session.restored);
  const me = useUser();
  if (!restored) return null;
  const mine = restored.userId === me.id;
  return (
    <p className="notice people-notice" role="status" data-testid="restore-notice">
      {mine ? 'You' : restored.by || 'Someone'} restored {restoredLabel(restored)}.{' '}
      {mine && canEdit && (
        <button type="button" className="button small" onClick={() => void session.undoRestore(restored)}>
          Undo
        </button>
      )}{' '}
      <button type="button" className="link-button small" onClick={() => session.restored.set(null)}>
        Dismiss
      </button>
    </p>
  );
}
