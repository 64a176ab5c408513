// The data fields a steps kind's node (`crop`, `resize`, `adjust`, …: ./image-steps.ts) has for its last run, as a
// generation node has them (./spec-data.ts).
import type { DataFields } from './kind.js';
import { booleanField, imageField, imageListField, keyField } from './values.js';

/** The most results a fanned node keeps (`data.results`: one per job of the node, ./graph.ts). */
export const RESULTS_MAX = 1000;

/**
 * The fields of a runnable node's result that a run writes (./graph.ts "marks"): the key its result was made for and,
 * for a node fanned out over a list, every result in item order (`image` is the first). The service writes them.
 */
export const runResultData = (): DataFields => ({
  resultKey: keyField('invalid-result-key', { description: 'The key (SHA-256 hex) of the node its current result was made for (written by the service)' }),
  results: imageListField(RESULTS_MAX, 'invalid-results', { description: `A node fanned out over a list: its results in item order, at most ${RESULTS_MAX} (written by the service)` }),
});

/**
 * The data fields of a steps node's last run, as a generation node has them: its result (`image`, written by the job
 * runner and fed to the nodes wired to its output) and whether it is running. Each steps kind spreads them into its
 * data, so a save keeps them.
 */
export const stepsRunData = (): DataFields => ({
  image: imageField('invalid-image', { description: 'The result of its last run (written by the service)' }),
  isGenerating: booleanField('invalid-is-generating', { description: 'Whether its job is queued or running (written by the service)' }),
  ...runResultData(),
});
