// One template on the projects page: a preview (its first image), name, author, size, "Use template", and
// Delete for the user's own.
import { useState } from 'react';
import type { TemplateSummary } from '../api/client';
import { useAction } from '../hooks/use-action';
import { ConfirmDialog } from './confirm-dialog';

interface Props {
  template: TemplateSummary;
  onStart: (template: TemplateSummary) => Promise<void>;
  /** Given for the user's own templates only. */
  onDelete?: (id: string) => Promise<void>;
}

const isWebUrl = (url: string) => /^https?:\/\//i.test(url) || url.startsWith('/');
const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

export function TemplateCard({ template, onStart, onDelete }: Props) {
  const { busy, error, run } = useAction<'start' | 'delete'>();
  const [confirming, setConfirming] = useState(false);
  const { name, author: user, nodeCount, edgeCount } = template;
  const preview = template.previewUrl && isWebUrl(template.previewUrl) ? template.previewUrl : undefined;

  const remove = async () => {
    if (onDelete && (await run('delete', () => onDelete(template.id)))) setConfirming(false);
  };

  return (
    <li className="template-card">
      <div className="template-preview" aria-hidden="true">
        {preview ? <img src={preview} alt="" loading="lazy" referrerPolicy="no-referrer" /> : <span>{count(nodeCount, 'node')}</span>}
      </div>
      <div className="template-body">
        <span className="template-name">{name}</span>
        <span className="template-author muted small">
          {user.image && isWebUrl(user.image) ? (
            <img className="avatar" src={user.image} alt="" width="18" height="18" referrerPolicy="no-referrer" />
          ) : (
            <span className="avatar" aria-hidden="true">
              {(user.name || '?').slice(0, 1).toUpperCase()}
            </span>
          )}
          <span>
            {user.name || 'Someone'}
            {template.mine ? ' (you)' : ''}
          </span>
        </span>
        <span className="muted small">
          {count(nodeCount, 'node')}, {count(edgeCount, 'connection')}
        </span>
      </div>
      <div className="row">
        <button type="button" className="button primary small" disabled={busy !== null} onClick={() => void run('start', () => onStart(template))} aria-label={`Start a project from ${name}`}>
          {busy === 'start' ? 'Starting…' : 'Use template'}
        </button>
        {onDelete && (
          <button type="button" className="button ghost danger small" disabled={busy !== null} onClick={() => setConfirming(true)} aria-label={`Delete template ${name}`}>
            Delete
          </button>
        )}
      </div>
      {error && (
        <p className="error small item-error" role="alert">
          {error}
        </p>
      )}
      {confirming && (
        <ConfirmDialog title={`Delete the template “${name}”?`} confirmLabel="Delete template" busy={busy === 'delete'} onCancel={() => setConfirming(false)} onConfirm={() => void remove()}>
          Nobody can start from it any more. Projects already started from it keep their canvas.
        </ConfirmDialog>
      )}
    </li>
  );
}
