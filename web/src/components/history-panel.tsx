// "History" (from the editor toolbar): the canvas's restore points (the service keeps one every few minutes of
// editing) and named versions, newest first; name the canvas as it is now; preview any version read-only, and
// restore it — a new change of the live canvas that everyone sees at once (nothing in the history is rewritten).
import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { getVersion, listVersions, nameVersion, restoreVersion, type CanvasVersion, type VersionCanvas } from '../hooks/use-versions';
import { fromSavedEdge, fromSavedNode } from '../canvas/model';
import { StaticCanvasView } from './canvas-view';
import { LoadError } from './load-error';
import { DialogFooter, Modal } from './modal';

interface Props {
  projectId: string;
  /** Names of the people we know by id (you, who is here): who named a version. */
  names: ReadonlyMap<string, string>;
  onClose: () => void;
  /** After a restore: the restored version's title. */
  onRestored: (title: string) => void;
}

type ListState = { status: 'loading' } | { status: 'ready'; versions: CanvasVersion[] } | { status: 'error'; message: string };
type Preview = { version: CanvasVersion; canvas: VersionCanvas | null; error?: string };

export const versionTitle = (version: CanvasVersion) => version.name ?? 'Restore point';

const when = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
};

export function HistoryPanel({ projectId, names, onClose, onRestored }: Props) {
  const titleId = useId();
  const nameId = useId();
  const [list, setList] = useState<ListState>({ status: 'loading' });
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);

  const load = useCallback(async () => {
    setList({ status: 'loading' });
    try {
      setList({ status: 'ready', versions: await listVersions(projectId) });
    } catch (err) {
      setList({ status: 'error', message: (err as Error).message });
    }
  }, [projectId]);
  useEffect(() => {
    void load();
  }, [load]);

  /** Runs one change at a time; its refusal is shown in the dialog. */
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      await action();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const save = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const version = await nameVersion(projectId, name.trim());
      setName('');
      setList((s) => (s.status === 'ready' ? { ...s, versions: [version, ...s.versions.filter((v) => v.id !== version.id)] } : s));
      setNote(`Saved as “${versionTitle(version)}”`);
    });
  };

  const open = (version: CanvasVersion) => {
    setError(null);
    setNote(null);
    setPreview({ version, canvas: null });
    getVersion(projectId, version.id).then(
      ({ canvas }) => setPreview((p) => (p?.version.id === version.id ? { version, canvas } : p)),
      (err: Error) => setPreview((p) => (p?.version.id === version.id ? { version, canvas: null, error: err.message } : p)),
    );
  };

  const restore = (version: CanvasVersion) =>
    void run(async () => {
      await restoreVersion(projectId, version.id);
      onRestored(versionTitle(version));
    });

  return (
    <Modal labelledBy={titleId} className="dialog history-dialog" onClose={preview ? () => setPreview(null) : onClose}>
      {preview ? (
        <>
          <h2 id={titleId}>
            {versionTitle(preview.version)} <span className="muted small">{when(preview.version.createdAt)}</span>
          </h2>
          <div className="version-preview" aria-label="Preview of this version">
            {preview.canvas ? (
              <StaticCanvasView nodes={preview.canvas.nodes.map(fromSavedNode)} edges={preview.canvas.edges.map(fromSavedEdge)} overview={false} />
            ) : preview.error ? (
              <LoadError className="error small" message={preview.error} onRetry={() => open(preview.version)} />
            ) : (
              <p className="muted small" role="status">
                Loading…
              </p>
            )}
          </div>
          <p className="muted small">Restoring replaces the canvas with this version for everyone, as a new change; the canvas as it is now is kept in the history first.</p>
          {error && (
            <p className="error small" role="alert">
              {error}
            </p>
          )}
          <div className="row end">
            <button type="button" className="button ghost" onClick={() => setPreview(null)}>
              Back to the history
            </button>
            <button type="button" className="button primary" onClick={() => restore(preview.version)} disabled={busy || !preview.canvas}>
              {busy ? 'Restoring…' : 'Restore this version'}
            </button>
          </div>
        </>
      ) : (
        <>
          <h2 id={titleId}>History</h2>
          <form className="row history-name" onSubmit={save} noValidate>
            <label htmlFor={nameId} className="visually-hidden">
              Version name
            </label>
            <input id={nameId} className="input" value={name} maxLength={100} placeholder="Name the canvas as it is now" autoFocus onChange={(e) => setName(e.target.value)} />
            <button type="submit" className="button" disabled={busy || name.trim() === ''}>
              Name this version
            </button>
          </form>
          {list.status === 'loading' && <p className="muted small">Loading…</p>}
          {list.status === 'error' && <LoadError className="error small" message={list.message} onRetry={() => void load()} />}
          {list.status === 'ready' && list.versions.length === 0 && (
            <p className="muted small">No versions yet: restore points appear as the canvas changes, and you can name one above.</p>
          )}
          {list.status === 'ready' && list.versions.length > 0 && (
            <ul className="version-list" aria-label="Versions">
              {list.versions.map((version) => (
                <li key={version.id} className={`version ${version.kind}`}>
                  <span className="version-title">{versionTitle(version)}</span>
                  <span className="muted small">
                    {when(version.createdAt)}
                    {version.createdBy && names.has(version.createdBy) ? ` · by ${names.get(version.createdBy)}` : ''}
                  </span>
                  <button type="button" className="button small ghost" onClick={() => open(version)} aria-label={`Preview ${versionTitle(version)} of ${when(version.createdAt)}`}>
                    Preview
                  </button>
                </li>
              ))}
            </ul>
          )}
          <DialogFooter error={error} note={note} onClose={onClose} />
        </>
      )}
    </Modal>
  );
}
