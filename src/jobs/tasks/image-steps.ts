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
import { nodeNotFound, nodeSettingsUnusable, unusableImage } from '../../errors.js';
import type { ImageWorkers } from '../../imaging/pool.js';
import { editSourceType } from '../../imaging/provenance.js';
import { IMAGE_STEPS_TASK } from '../../kinds/image-steps.js';
import { kindData, kindOf, type KindLimits } from '../../kinds/index.js';
import { resolveInputs, type InputDeps } from '../../services/image-inputs.js';
import type { ObjectStore } from '../../storage/index.js';
import type { Task } from '../task.js';
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

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

export function createImageStepsTask(deps: ImageStepsTaskDeps): Task {
  const { store } = deps;

  /**
   * The node's type and data, checked by its kind: as a run's job was planned with (its `params`, its kind its
   * `model`), else as the canvas has them now.
   */
  async function nodeOf(projectId: string, nodeId: string, planned: { type: string | null; params: Rec | null }): Promise<{ type: string; data: Rec }> {
    let node: Rec | undefined;
    if (planned.params && planned.type !== null) node = { type: planned.type, data: { ...planned.params, type: planned.type } };
    else {
      const canvas = await deps.canvases.read(projectId);
      node = (canvas?.nodes ?? []).find((n): n is Rec => isRec(n) && n.id === nodeId);
    }
    if (!node) throw nodeNotFound(nodeId);
    const kind = kindOf(node.type);
    if (kind?.task?.kind !== IMAGE_STEPS_TASK) throw nodeSettingsUnusable(`the node is now a ${JSON.stringify(String(node.type))} node, which does not edit an image`, nodeId);
    const checked = kindData(deps.limits).get(kind.type)!.schema.safeParse(isRec(node.data) ? node.data : {});
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw nodeSettingsUnusable(`data.${issue.path.join('.')}: ${issue.message}`, nodeId);
    }
    return { type: kind.type, data: checked.data };
  }

  return {
    kind: IMAGE_STEPS_TASK,
    async run({ job, user, signal, commit }) {
      const started = performance.now();
      const { projectId, nodeId } = job;
      if (projectId === null || nodeId === null || job.images.length !== 1) throw new Error('an image-steps job without its node or its one input');
      const { type, data } = await nodeOf(projectId, nodeId, { type: job.model, params: job.params });
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
