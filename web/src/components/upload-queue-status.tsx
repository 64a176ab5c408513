// The upload tray's line for files not sent yet (canvas/upload-pacer.ts): "4 more waiting to upload" while a few are
// on their way, or "Waiting for the upload limit — 40 left, going on in 12 s" while the service holds them (429's
// Retry-After); it goes on by itself, nothing to press.
import type { TrayEntry } from '../canvas/upload-tray';
import { useSecondsUntil } from '../hooks/use-seconds-until';

/** `entries`: the tray's entries; nothing when none is queued. */
export function UploadQueueStatus({ entries }: { entries: readonly TrayEntry[] }) {
  const queued = entries.filter((e) => e.state === 'queued');
  const until = queued.find((e) => e.retryAt !== undefined)?.retryAt;
  const seconds = useSecondsUntil(until);
  if (queued.length === 0) return null;
  const left = queued.length + entries.filter((e) => e.state === 'uploading').length;
  return (
    <li className="upload-entry upload-queue">
      <p className="small" role="status">
        {until === undefined
          ? `${queued.length} more waiting to upload`
          : `Waiting for the upload limit — ${left} left${seconds ? `, going on in ${seconds} s` : ''}`}
      </p>
    </li>
  );
}
