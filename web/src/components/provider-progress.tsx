// What a running job's model provider last reported (canvas/job.ts `progressDisplay`), under the job's status: the
// model's latest preview of the image (OpenAI's partial images), a step bar, its own queue ("Waiting at the
// provider: 2nd in line"), and its latest log line on one line, cut with an ellipsis, the whole line in its title.
import { progressDisplay, type JobProgress } from '../canvas/job';
import { ProgressBar } from './progress-bar';

export function ProviderProgress({ progress }: { progress: JobProgress }) {
  const { step, queue, message } = progressDisplay(progress);
  return (
    <div className="provider-progress">
      {progress.preview && <img className="provider-preview" src={progress.preview} alt="Preview of the image being generated" />}
      {step && <ProgressBar value={step.value} label="Generation steps" valueText={step.text} />}
      {queue && (
        <p className="provider-queue small" role="status">
          {queue}
        </p>
      )}
      {message && (
        <p className="provider-message muted small" title={message}>
          {message}
        </p>
      )}
    </div>
  );
}
