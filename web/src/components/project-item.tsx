import { useState, type FormEvent } from 'react';
import type { Project } from '../api/client';
import { useAction } from '../hooks/use-action';
import { Link } from '../router';
import { ConfirmDialog } from './confirm-dialog';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

interface Props {
  project: Project;
  onRename: (id: string, name: string) => Promise<void>;
  onDelete: (id: string) => Promise<void>;
}

export function ProjectItem({ project, onRename, onDelete }: Props) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(project.name);
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useAction<'rename' | 'delete'>();
  const href = `/projects/${encodeURIComponent(project.id)}`;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === project.name) return setEditing(false);
    if (await run('rename', () => onRename(project.id, name))) setEditing(false);
  };

  const remove = async () => {
    if (await run('delete', () => onDelete(project.id))) setConfirming(false);
  };

  return (
    <li className="project-item">
      {editing ? (
        <form className="rename-form" onSubmit={(event) => void save(event)} onKeyDown={(e) => e.key === 'Escape' && setEditing(false)}>
          <label htmlFor={`rename-${project.id}`} className="visually-hidden">
            Project name
          </label>
          <input id={`rename-${project.id}`} className="input" value={name} maxLength={200} autoFocus onChange={(e) => setName(e.target.value)} />
          <button type="submit" className="button primary" disabled={busy !== null}>
            Save
          </button>
          <button type="button" className="button ghost" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <div className="project-main">
            <Link className="project-name" href={href}>
              {project.name}
            </Link>
            <span className="muted small">Created {dateFormat.format(new Date(project.createdDate))}</span>
          </div>
          <div className="row">
            <Link className="button" href={href} aria-label={`Open ${project.name}`}>
              Open
            </Link>
            <button type="button" className="button ghost" onClick={() => (setName(project.name), setEditing(true))} aria-label={`Rename ${project.name}`}>
              Rename
            </button>
            <button type="button" className="button ghost danger" onClick={() => setConfirming(true)} aria-label={`Delete ${project.name}`}>
              Delete
            </button>
          </div>
        </>
      )}
      {error && (
        <p className="error small item-error" role="alert">
          {error}
        </p>
      )}
      {confirming && (
        <ConfirmDialog
          title={`Delete “${project.name}”?`}
          confirmLabel="Delete project"
          busy={busy !== null}
          onCancel={() => setConfirming(false)}
          onConfirm={() => void remove()}
        >
          Its canvas goes with it. This cannot be undone.
        </ConfirmDialog>
      )}
    </li>
  );
}
