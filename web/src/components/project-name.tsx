// The project's name in the canvas header (after "Projects /"), renamed in place by its owner as in Figma: a click,
// Enter or F2 on the name opens a field holding it, all selected; Enter (or leaving the field) saves it through
// PATCH /api/user/project/{id}, Escape cancels; a refusal (an empty name, or the service's reason) is shown under
// the field, which stays open. Members (editors, viewers) see the name as text: only the owner may rename
// (docs/api.md "Sharing"). A long name ends in an ellipsis and is whole in its title. The page's title follows it.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useDocumentTitle } from '../hooks/use-document-title';
import { call } from '../hooks/use-projects';
import './project-name.css';

interface Props {
  projectId: string;
  name: string;
  canRename: boolean;
  /** The service renamed it (its name as stored). */
  onRenamed: (name: string) => void;
}

export function ProjectName({ projectId, name, canRename, onRenamed }: Props) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  const closing = useRef(false);
  const errorId = useId();
  useDocumentTitle(name);

  useEffect(() => {
    if (editing) field.current?.select();
    else if (refocus.current) {
      refocus.current = false;
      button.current?.focus();
    }
  }, [editing]);

  const start = () => {
    closing.current = false;
    setDraft(name);
    setError(null);
    setEditing(true);
  };
  const stop = (focusName: boolean) => {
    closing.current = true;
    refocus.current = focusName;
    setError(null);
    setEditing(false);
  };

  const save = async (event?: FormEvent) => {
    event?.preventDefault();
    if (busy) return;
    const trimmed = draft.trim();
    if (trimmed === name) return stop(event !== undefined);
    if (!trimmed) return setError('Give the project a name.');
    setBusy(true);
    setError(null);
    try {
      const project = await call(api.PATCH('/api/user/project/{projectId}', { params: { path: { projectId } }, body: { name: trimmed } }), 'Could not rename the project');
      onRenamed(project.name);
      stop(event !== undefined);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  if (!canRename) {
    return (
      <span className="breadcrumb-current" aria-current="page" title={name}>
        {name}
      </span>
    );
  }
  if (!editing) {
    return (
      <button
        ref={button}
        type="button"
        className="breadcrumb-current project-name-button"
        aria-current="page"
        title={`${name} — click or press F2 to rename`}
        onClick={start}
        onKeyDown={(event) => {
          if (event.key === 'F2') {
            event.preventDefault();
            start();
          }
        }}
      >
        {name}
      </button>
    );
  }
  return (
    <form className="project-name-form" onSubmit={(event) => void save(event)}>
      <input
        ref={field}
        className="input project-name-input"
        aria-label="Project name"
        value={draft}
        maxLength={200}
        readOnly={busy}
        aria-invalid={error !== null || undefined}
        aria-describedby={error ? errorId : undefined}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.preventDefault();
            stop(true);
          }
        }}
        // Leaving the field saves a changed name (and keeps the field open if it is refused).
        onBlur={() => {
          if (!closing.current && !error) void save();
        }}
      />
      {error && (
        <span id={errorId} className="error small project-name-error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}
