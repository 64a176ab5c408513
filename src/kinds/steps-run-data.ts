// The data fields a steps kind's node (`crop`, `resize`, `adjust`, …: ./image-steps.ts) has for its last run, as a
// generation node has them (./spec-data.ts).
import type { DataFields } from './kind.js';
import { booleanField, imageField } from './values.js';

/**
 * The data fields of a steps node's last run, as a generation node has them: its result (`image`, written by the job
 * runner and fed to the nodes wired to its output) and whether it is running. Each steps kind spreads them into its
 * data, so a save keeps them.
 */
export const stepsRunData = (): DataFields => ({
  image: imageField('invalid-image', { description: 'The result of its last run (written by the service)' }),
  isGenerating: booleanField('invalid-is-generating', { description: 'Whether its job is queued or running (written by the service)' }),
});
