// The `image-steps` task: one task for every kind that edits an image (`crop`, `resize`, `adjust`, …; their `task`
// is `{ kind: 'image-steps', plan }`, src/kinds/image-steps.ts), so a new such kind adds no task. A job of it reads
// its node's type and data from the canvas as it is when the job runs, and its input image as the job recorded it
// when it was started (./node-inputs.ts: the image of the node wired into its image input), loaded as a generation
// loads its inputs (src/services/image-inputs.ts: our store, data: URLs, SSRF-guarded http(s)). The image workers
// run the kind's plan on it (src/imaging/steps.ts); the PNG is stored with its provenance (a classical edit: model
// output only when its input was, src/imaging/provenance.ts editSourceType) and recorded as a
// generation (its lineage: the input, the job, the node) in the transaction in which the job succeeds (ctx.commit;
// ./record-result.ts, shared with the compose task),
// so the runner shows it in the node like a generation's result. No model is called and nothing is charged: the
// lineage's model is the node's kind, its cost 0.
import type { LiveDocuments } from '../../collab/live-documents.js';
import type { Transactions } from '../../db/index.js';
import type { GenerationsRepository } from '../../db/repositories/index.js';
import { nodeSettingsUnusable, unusableImage } from '../../errors.js';
import type { ImageWorkers } from '../../imaging/pool.js';
import { editSourceType } from '../../imaging/provenance.js';
import { IMAGE_STEPS_TASK } from '../../kinds/image-steps.js';
import type { KindLimits } from '../../kinds/index.js';
import { resolveInputs, type InputDeps } from '../../services/image-inputs.js';
import type { ObjectStore } from '../../storage/index.js';
import type { Task } from '../task.js';
import { checkedData, jobNode } from './node-data.js';
import { recordResult, stopped } from './record-result.js';

export interface ImageStepsTaskDeps {
  /** The canvas as it is now: the node's type and data. */
  canvases: Pick<LiveDocuments, 'read'>;
  /** How inputs are read (as a generation's); `maxPixels` (INPUT_IMAGE_MAX_PIXELS) also bounds the result. */
  inputs: InputDeps;
  store: Pick<ObjectStore, 'put' | 'delete'>;
  /** The largest result stored (MODEL_OUTPUT_MAX_BYTES, as a generation's). */
  outputMaxBytes: number;
  runSteps: ImageWorkers['runSteps'];
  generations: Pick<GenerationsRepository, 'insert' | 'parentsOf' | 'canvasVersion'>;
  transactions: Transactions;
  /** The limits the kinds' data rules take (the node's data is checked by its kind before it runs). */
  limits: KindLimits;
}

export function createImageStepsTask(deps: ImageStepsTaskDeps): Task {
  const { store } = deps;

  return {
    kind: IMAGE_STEPS_TASK,
    async run({ job, user, signal, commit }) {
      const started = performance.now();
      const { projectId, nodeId } = job;
      if (projectId === null || nodeId === null || job.images.length !== 1) throw new Error('an image-steps job without its node or its one input');
      // The node's type and data, checked by its kind: as the run planned them (its `params`, its kind the job's
      // `model`), else as the canvas has them now.
      const node = await jobNode(deps.canvases, { projectId, nodeId, params: job.params }, job.model, { kind: IMAGE_STEPS_TASK, does: 'edit an image' });
      const type = node.type;
      const data = checkedData(deps.limits, type, job.params && job.model !== null ? { ...node.data, type } : node.data, nodeId);
      const canvasVersion = await deps.generations.canvasVersion(projectId);
      // The input as a generation reads it (our store, data: URLs, SSRF-guarded http(s); its header checked);
      // the image workers decode it anyway, so it is not decoded twice.
      const [input] = await resolveInputs(job.images, { ...deps.inputs, decodeProblem: async () => undefined }, user.id);
      if (signal.aborted) throw stopped();
      const answer = await deps.runSteps({ type, data, image: input.data, maxPixels: deps.inputs.maxPixels }, { owner: user.id, signal });
      if (signal.aborted) throw stopped();
      if (!answer.ok) {
        if (answer.kind === 'settings') throw nodeSettingsUnusable(answer.message, nodeId);
        if (answer.kind === 'input') throw unusableImage(answer.message, { index: 0, url: job.images[0] });
        throw new Error(`the image steps failed: ${answer.message}`); // internal
      }
      return recordResult(
        { store, outputMaxBytes: deps.outputMaxBytes, inputMaxBytes: deps.inputs.maxBytes, generations: deps.generations, transactions: deps.transactions },
        { job, user, commit },
        { type, png: answer.png, sourceType: editSourceType(input.data), inputs: [input], started, canvasVersion },
      );
    },
  };
}
