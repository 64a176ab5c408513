// "Share" (the owner's, from the editor toolbar): invite people by email as editor or viewer, see and remove
// members, and make, copy or revoke the read-only link. The link's address is shown once, right after it is
// made (the service keeps only a hash of its token). Refusals are shown here, in the service's words.
import { useId, useRef, useState, type FormEvent } from 'react';
import type { ShareRole } from '../api/client';
import { useProjectSharing } from '../hooks/use-sharing';
import { LoadError } from './load-error';
import { DialogFooter, Modal } from './modal';

interface Props {
  projectId: string;
  projectName: string;
  onClose: () => void;
}

const ROLE_TEXT: Record<ShareRole, string> = { editor: 'Editor', viewer: 'Viewer' };

export function ShareDialog({ projectId, projectName, onClose }: Props) {
  const titleId = useId();
  const emailId = useId();
  const roleId = useId();
  const linkId = useId();
  const sharing = useProjectSharing(projectId);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<ShareRole>('viewer');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [link, setLink] = useState<string | null>(null);
  const linkInput = useRef<HTMLInputElement>(null);

  /** Runs one change at a time; its refusal (or `done`) is shown in the dialog. */
  const run = async (action: () => Promise<string | void>) => {
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const done = await action();
      if (done) setNote(done);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const invite = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const member = await sharing.invite(email.trim(), role);
      setEmail('');
      return `${member.email} can now ${member.role === 'editor' ? 'edit' : 'view'} this project`;
    });
  };

  const createLink = () =>
    void run(async () => {
      setLink(await sharing.createLink());
      return 'Link made: copy it now, it is shown only once';
    });

  const revokeLink = () =>
    void run(async () => {
      await sharing.revokeLink();
      setLink(null);
      return 'The read-only link no longer works';
    });

  const removeMember = (memberEmail: string) =>
    void run(async () => {
      await sharing.remove(memberEmail);
      return `${memberEmail} no longer has access`;
    });

  const copy = async () => {
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
      setNote('Link copied');
    } catch {
      linkInput.current?.select();
      setNote('Select the link and copy it (Ctrl+C)');
    }
  };

  const { state } = sharing;
  return (
    <Modal labelledBy={titleId} className="dialog share-dialog" onClose={onClose}>
      <h2 id={titleId}>Share “{projectName}”</h2>

      <form className="share-invite" onSubmit={invite} noValidate>
        <div className="field">
          <label htmlFor={emailId}>Email</label>
          <input id={emailId} className="input" type="email" autoComplete="off" value={email} maxLength={254} autoFocus onChange={(e) => setEmail(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={roleId}>Role</label>
          <select id={roleId} className="input" value={role} onChange={(e) => setRole(e.target.value as ShareRole)}>
            <option value="viewer">Viewer (can look)</option>
            <option value="editor">Editor (can edit)</option>
          </select>
        </div>
        <button type="submit" className="button primary" disabled={busy || email.trim() === ''}>
          Invite
        </button>
      </form>

      <section aria-labelledby={`${titleId}-people`}>
        <h3 id={`${titleId}-people`}>People with access</h3>
        {state.status === 'loading' && <p className="muted small">Loading…</p>}
        {state.status === 'error' && (
          <LoadError className="error small" message={state.message} onRetry={() => void sharing.reload()} />
        )}
        {state.status === 'ready' && (
          <ul className="member-list" aria-label="Members">
            <li className="member">
              <span className="member-email" title={state.owner.email}>
                {state.owner.name || state.owner.email}
              </span>
              <span className="muted small">Owner</span>
            </li>
            {state.members.map((member) => (
              <li key={member.email} className="member">
                <span className="member-email">{member.email}</span>
                <span className="muted small">{ROLE_TEXT[member.role]}</span>
                <button type="button" className="button small ghost danger" disabled={busy} aria-label={`Remove ${member.email}`} onClick={() => removeMember(member.email)}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby={`${titleId}-link`}>
        <h3 id={`${titleId}-link`}>Read-only link</h3>
        <p className="muted small">Anyone with the link sees the canvas without signing in, and cannot change it. A new link replaces the old one.</p>
        {link && (
          <div className="row share-link">
            <label htmlFor={linkId} className="visually-hidden">
              Read-only link
            </label>
            <input id={linkId} ref={linkInput} className="input" value={link} readOnly onFocus={(e) => e.target.select()} />
            <button type="button" className="button" onClick={() => void copy()}>
              Copy
            </button>
          </div>
        )}
        <div className="row">
          <button type="button" className="button" onClick={createLink} disabled={busy}>
            {link ? 'Make a new link' : 'Create link'}
          </button>
          <button type="button" className="button ghost danger" onClick={revokeLink} disabled={busy}>
            Revoke link
          </button>
        </div>
      </section>

      <DialogFooter error={error} note={note} onClose={onClose} />
    </Modal>
  );
}
