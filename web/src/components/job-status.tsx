// A generation node's job as everyone in the room sees it (from the live document's `data.job`, or, until that
// shows it, what the service answered this tab): "Queued · #3" with the queue position, "Running · 12 s" ticking
// from when it started — with, under it, what the model's provider last reported (provider-progress.tsx) —, and
// Cancel (not on a read-only canvas). A refused cancel is shown, never thrown.
import type { NodeActivity } from '../canvas/activity';
import type { JobProgress } from '../canvas/job';
import { useElapsedSeconds } from '../hooks/use-elapsed-seconds';
import { ProviderProgress } from './provider-progress';

export interface ShownJob {
  id: string;
  /** Null: not known yet (a job a refused start named, until the document shows it). */
  status: 'queued' | 'running' | null;
  queuePosition: number | null;
  startedAt: string | null;
  /** While running: the provider's last report (only the document's job has it). */
  progress?: JobProgress;
}

interface Props {
  /** The job, or none when all we know is that the node is generating (`isGenerating`, e.g. POST /api/image). */
  job: ShownJob | undefined;
  /** What this tab is doing about the node's job: asking for one (no answer yet), canceling it, a refused cancel. */
  activity: Pick<NodeActivity, 'starting' | 'canceling' | 'cancelError'>;
  /** Absent on a read-only canvas. */
  onCancel?: (jobId: string) => void;
}

export function JobStatus({ job, activity, onCancel }: Props) {
  const starting = activity.starting === true;
  const canceling = activity.canceling === true;
  // A refused cancel is shown while the job it was about is.
  const cancelError = job && activity.cancelError?.jobId === job.id ? activity.cancelError.message : undefined;
  const started = job?.status === 'running' && job.startedAt ? Date.parse(job.startedAt) : undefined;
  const elapsed = useElapsedSeconds(started);
  const text = !job
    ? starting
      ? 'Starting…'
      : 'Generating…'
    : job.status === null
      ? 'Generating…'
      : job.status === 'queued'
        ? job.queuePosition !== null
          ? `Queued · #${job.queuePosition}`
          : 'Queued'
        : elapsed !== undefined
          ? `Running · ${elapsed} s`
          : 'Running…';

  return (
    <div className="job-status" data-status={job?.status ?? (starting ? 'starting' : 'generating')}>
      <p className="generating" role="status">
        <span className="spinner small" aria-hidden="true" /> {text}
      </p>
      {job && onCancel && (
        <button type="button" className="button small ghost nodrag" aria-label="Cancel generation" onClick={() => onCancel(job.id)} disabled={canceling}>
          {canceling ? 'Canceling…' : 'Cancel'}
        </button>
      )}
      {job?.status === 'running' && job.progress && <ProviderProgress progress={job.progress} />}
      {cancelError && (
        <p className="node-error small" role="alert">
          Could not cancel: {cancelError}
        </p>
      )}
    </div>
  );
}
