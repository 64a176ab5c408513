import type { SaveStatus as Status } from '../hooks/use-autosave';

const TEXT: Record<Status['kind'], string> = {
  saved: 'Saved',
  saving: 'Saving…',
  retrying: 'Offline, retrying',
  conflict: 'Changed in another tab — reload',
  failed: 'Not saved',
};

/** The auto-save state, announced politely to screen readers; a conflict offers a reload. */
export function SaveStatus({ status, version }: { status: Status; version: number }) {
  const text =
    status.kind === 'failed' ? status.message : status.kind === 'retrying' && !status.offline ? 'Save failed, retrying' : TEXT[status.kind];
  return (
    <div className={`save-status ${status.kind}`} data-state={status.kind} data-version={version}>
      <span className="save-dot" aria-hidden="true" />
      <span role="status" aria-live="polite">
        {text}
      </span>
      {status.kind === 'conflict' && (
        <button type="button" className="button small" onClick={() => window.location.reload()}>
          Reload
        </button>
      )}
    </div>
  );
}
