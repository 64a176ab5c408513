// The upload tray (hooks/use-uploads.ts): over the canvas's top-left corner, each file on its way to a new node
// with its progress, and each file refused or failed with why ("big.png is over 4 MB", "notes.txt is not an
// accepted image (PNG, JPEG, …)", "dot.png was not uploaded: you are offline.") and what can be done: Downscale
// and upload (an image over the limit), Try again, Dismiss; files not sent yet are one line (upload-queue-status.tsx:
// "Waiting for the upload limit — 40 left"). Also the highlight shown while files are dragged over the canvas.
import { useSyncExternalStore } from 'react';
import type { TrayEntry } from '../canvas/upload-tray';
import { acceptedNames, fileName, formatBytes, type UploadRules } from '../canvas/upload-rules';
import type { Uploads } from '../hooks/use-uploads';
import { ProgressBar } from './progress-bar';
import { UploadQueueStatus } from './upload-queue-status';
import './canvas-feedback.css';

/** Entries the tray shows one by one: a file going into an existing node shows its progress there; queued files are one line. */
const shownInTray = (e: TrayEntry) => e.state !== 'queued' && (e.state !== 'uploading' || 'position' in e.destination);

function Entry({ entry, uploads }: { entry: TrayEntry; uploads: Uploads }) {
  const name = fileName(entry.file);
  if (entry.state === 'uploading') {
    return (
      <li className="upload-entry">
        <ProgressBar value={entry.progress ?? 0} label={`Uploading ${name}`} />
      </li>
    );
  }
  if (entry.state === 'downscaling') {
    return (
      <li className="upload-entry">
        <p className="muted small" role="status">
          Making {name} smaller…
        </p>
      </li>
    );
  }
  return (
    <li className="upload-entry problem node-error">
      <p role="alert">{entry.message}</p>
      <div className="upload-entry-actions">
        {entry.offer === 'downscale' && (
          <button type="button" className="button small primary" onClick={() => uploads.downscale(entry.id)}>
            Downscale and upload
          </button>
        )}
        {entry.offer === 'retry' && (
          <button type="button" className="button small" onClick={() => uploads.retry(entry.id)}>
            Try again
          </button>
        )}
        <button type="button" className="button small ghost" aria-label={`Dismiss: ${entry.message ?? name}`} onClick={() => uploads.dismiss(entry.id)}>
          Dismiss
        </button>
      </div>
    </li>
  );
}

export function UploadTrayPanel({ uploads }: { uploads: Uploads }) {
  const all = useSyncExternalStore(uploads.tray.subscribe, uploads.tray.get);
  const entries = all.filter(shownInTray);
  if (entries.length === 0 && !all.some((e) => e.state === 'queued')) return null;
  return (
    <section className="upload-tray" aria-label="Uploads">
      <ul>
        <UploadQueueStatus entries={all} />
        {entries.map((entry) => (
          <Entry key={entry.id} entry={entry} uploads={uploads} />
        ))}
      </ul>
    </section>
  );
}

/** Shown while files are dragged over the canvas: where they go, and what is taken. */
export function DropHighlight({ rules }: { rules: UploadRules }) {
  return (
    <div className="drop-highlight" data-testid="drop-highlight" aria-hidden="true">
      <p>
        <strong>Drop images to add them</strong>
        <span>
          {acceptedNames(rules)} · up to {formatBytes(rules.maxBytes)}
        </span>
      </p>
    </div>
  );
}
