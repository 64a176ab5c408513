import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Project } from '../api/client';
import { useAction } from '../hooks/use-action';
import { formatUsd } from '../hooks/use-models';
import { projectSpendPath } from '../paths';
import '../spend.css';
import { Link } from '../router';
import { ConfirmDialog } from './confirm-dialog';
import { LastEdited } from './last-edited';
import { ProjectThumbnail } from './project-thumbnail';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

interface Props {
  project: Project;
  /** When it was last edited (ISO 8601). */
  editedAt: string;
  /** The canvas version, for its thumbnail (undefined: not known); `thumbnailReady`: the versions were asked for. */
  version: number | undefined;
  thumbnailReady: boolean;
  /** Just created on this page: marked, and scrolled into view. */
  highlighted?: boolean;
  /** What your generations in it cost (GET /api/user/spend); nothing is shown when it is 0 or unknown. */
  spentUsd?: number;
  onRename: (id: string, name: string) => Promise<void>;
  onDelete: (id: string) => Promise<void>;
}

export function ProjectItem({ project, editedAt, version, thumbnailReady, highlighted = false, spentUsd, onRename, onDelete }: Props) {
  const [editing, setEditing] = useState(false);
  const nameField = useRef<HTMLInputElement>(null);
  const item = useRef<HTMLLIElement>(null);
  // Rename starts with the whole name selected: typing replaces it.
  useEffect(() => {
    if (editing) nameField.current?.select();
  }, [editing]);
  useEffect(() => {
    if (highlighted) item.current?.scrollIntoView({ block: 'nearest' });
  }, [highlighted]);
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
    <li ref={item} className={highlighted ? 'project-item with-thumbnail just-created' : 'project-item with-thumbnail'} data-project-id={project.id}>
      <ProjectThumbnail projectId={project.id} href={href} version={version} ready={thumbnailReady} />
      {editing ? (
        <form className="rename-form" onSubmit={(event) => void save(event)} onKeyDown={(e) => e.key === 'Escape' && setEditing(false)}>
          <label htmlFor={`rename-${project.id}`} className="visually-hidden">
            Project name
          </label>
          <input
            ref={nameField}
            id={`rename-${project.id}`}
            className="input"
            value={name}
            maxLength={200}
            required
            autoFocus
            onChange={(e) => setName(e.target.value)}
          />
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
            {highlighted && <span className="badge new-badge">New</span>}
            <LastEdited at={editedAt} />
            <span className="muted small">Created {dateFormat.format(new Date(project.createdDate))}</span>
            {spentUsd !== undefined && spentUsd > 0 && (
              <Link className="muted small project-spend" href={projectSpendPath(project.id)} title="What your generations in this project cost: open its spend per person">
                {formatUsd(spentUsd)} spent
              </Link>
            )}
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
