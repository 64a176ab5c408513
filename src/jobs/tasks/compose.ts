// The `compose` task (src/kinds/compose.ts): a compose node's layers — the images wired into its `images` input, in
// canvas order, bottom first — placed, scaled, masked (by the masks wired into its `masks` input), faded and blended
// over its background into one PNG. The node's data is the job's as a run planned it (its `params`), else the
// canvas's as it is when the job runs; its inputs are the job's (`images`, each with its port: imagesByPort). Each
// input is read as a generation's (our store, data: URLs, SSRF-guarded http(s); its header checked), a broken one
// failing the job with a reason naming its layer; the image workers do the pixel work (src/imaging/compose.ts), and
// the result is stored and recorded as a generation (./record-result.ts, shared with the image-steps task): its
// lineage every layer and mask as an input, the model `compose`, cost 0.
import type { LiveDocuments } from '../../collab/live-documents.js';
import type { Transactions } from '../../db/index.js';
import type { GenerationsRepository } from '../../db/repositories/index.js';
import { AppError, isAppError, nodeSettingsUnusable, unusableImage } from '../../errors.js';
import type { ImageWorkers } from '../../imaging/pool.js';
import { editSourceType, TRAINED_ALGORITHMIC_MEDIA } from '../../imaging/provenance.js';
import { layerAt, layerName } from '../../imaging/compose-plan.js';
import { COMPOSE_TASK, type Layer } from '../../kinds/compose.js';
import type { KindLimits } from '../../kinds/index.js';
import { resolveInputs, type InputDeps, type ResolvedInput } from '../../services/image-inputs.js';
import type { ObjectStore } from '../../storage/index.js';
import { imagesByPort } from '../node-inputs.js';
import type { Task } from '../task.js';
import { checkedData, jobNode } from './node-data.js';
import { recordResult, stopped } from './record-result.js';

export interface ComposeTaskDeps {
  /** The canvas as it is now: the node's data when the job has no planned params. */
  canvases: Pick<LiveDocuments, 'read'>;
  /** How inputs are read (as a generation's); `maxPixels` (INPUT_IMAGE_MAX_PIXELS) bounds each input and the result. */
  inputs: InputDeps;
  store: Pick<ObjectStore, 'put' | 'delete'>;
  /** The largest result stored (MODEL_OUTPUT_MAX_BYTES). */
  outputMaxBytes: number;
  compose: ImageWorkers['compose'];
  generations: Pick<GenerationsRepository, 'insert' | 'parentsOf' | 'canvasVersion'>;
  transactions: Transactions;
  limits: KindLimits;
}

/** IPTC's Digital Source Types of a composite: of model output when any layer is, else of plain images. */
const COMPOSITE = 'http://cv.iptc.org/newscodes/digitalsourcetype/composite';
const COMPOSITE_WITH_MODEL = 'http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia';

type Rec = Record<string, unknown>;

export interface ComposeData {
  layers?: Layer[];
  width?: number;
  height?: number;
  background?: string;
}

/**
 * A compose node's data, checked by its kind: the job's planned `params` when it has them, else the node's on the
 * canvas now. Also read by the PSD download (src/jobs/compose-psd.ts).
 */
export async function composeDataOf(
  deps: { canvases: Pick<LiveDocuments, 'read'>; limits: KindLimits },
  job: { projectId: string; nodeId: string; params: Rec | null },
): Promise<ComposeData> {
  const node = await jobNode(deps.canvases, job, COMPOSE_TASK, { kind: COMPOSE_TASK, does: 'compose' });
  const d = checkedData(deps.limits, 'compose', { ...node.data, type: 'compose' }, job.nodeId);
  return { layers: d.layers as Layer[] | undefined, width: d.width as number | undefined, height: d.height as number | undefined, background: d.background as string | undefined };
}

/** Where job image `index` goes: "layer 2 ("Sky")" or "mask 1". */
export function inputName(job: { images: readonly string[]; inputPorts: readonly string[] | null }, index: number, layers: readonly Layer[] | undefined): string {
  const port = job.inputPorts?.[index] ?? 'images';
  const within = job.images.slice(0, index).filter((_, i) => (job.inputPorts?.[i] ?? 'images') === port).length;
  return port === 'masks' ? `mask ${within + 1}` : `layer ${within + 1} (${JSON.stringify(layerName(layerAt(layers, within), within))})`;
}

/**
 * Reads a compose job's inputs in its order (as a generation reads them, no decode: the workers decode), a broken or
 * unreachable one failing with its layer or mask named.
 */
export async function composeInputs(job: { images: string[]; inputPorts: string[] | null }, layers: readonly Layer[] | undefined, inputs: InputDeps, owner: string): Promise<ResolvedInput[]> {
  const deps: InputDeps = { ...inputs, maxTotalPixels: Number.MAX_SAFE_INTEGER, decodeProblem: async () => undefined };
  return Promise.all(
    job.images.map(async (url, index) => {
      try {
        return (await resolveInputs([url], deps, owner))[0];
      } catch (err) {
        if (isAppError(err, 'unusable_image')) {
          throw new AppError('unusable_image', err.message.replace(/^Invalid image: /, `Invalid image: ${inputName(job, index, layers)}: `), { details: `images[${index}]: ${url.length > 100 ? `${url.slice(0, 100)}…` : url}` });
        }
        throw err;
      }
    }),
  );
}

export function createComposeTask(deps: ComposeTaskDeps): Task {
  return {
    kind: COMPOSE_TASK,
    async run({ job, user, signal, commit }) {
      const started = performance.now();
      const { projectId, nodeId } = job;
      if (projectId === null || nodeId === null) throw new Error('a compose job without its node');
      const data = await composeDataOf(deps, { projectId, nodeId, params: job.params });
      const canvasVersion = await deps.generations.canvasVersion(projectId);
      const inputs = await composeInputs(job, data.layers, deps.inputs, user.id);
      if (signal.aborted) throw stopped();
      // The job's images by port (layers from `images`, alphas from `masks`), as indices into its inputs.
      const byPort = imagesByPort({ images: job.images.map((_, i) => String(i)), inputPorts: job.inputPorts }, 'images');
      const indices = (port: string) => (byPort.get(port) ?? []).map(Number);
      const of = (port: string) => indices(port).map((i) => inputs[i].data);
      const jobIndex = (port: string, within: number) => indices(port)[within] ?? 0;
      const answer = await deps.compose({ images: of('images'), masks: of('masks'), ...data, maxPixels: deps.inputs.maxPixels }, { owner: user.id, signal });
      if (signal.aborted) throw stopped();
      if (!answer.ok) {
        if (answer.kind === 'input') {
          const index = jobIndex(answer.port, answer.index);
          throw unusableImage(answer.message, { index, url: job.images[index] });
        }
        if (answer.kind === 'settings' || answer.kind === 'too-large') throw nodeSettingsUnusable(answer.message, nodeId);
        throw new Error(`the composition failed: ${answer.message}`); // internal
      }
      const sourceType = inputs.some((input) => editSourceType(input.data) === TRAINED_ALGORITHMIC_MEDIA) ? COMPOSITE_WITH_MODEL : COMPOSITE;
      return recordResult(
        { store: deps.store, outputMaxBytes: deps.outputMaxBytes, inputMaxBytes: deps.inputs.maxBytes, generations: deps.generations, transactions: deps.transactions },
        { job, user, commit },
        { type: 'compose', png: answer.png, sourceType, inputs, started, canvasVersion },
      );
    },
  };
}
