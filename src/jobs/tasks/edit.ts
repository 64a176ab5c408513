// The `edit` task (src/kinds/edit.ts): an edit node's job — its image changed inside its mask (inpaint) or extended
// on its sides (outpaint) by a model that takes a mask. It reads the job's image and mask by the input port each
// reached (./node-inputs.ts imagesByPort), the node's data as a run planned it (`job.params`) or else as the canvas
// has it now, its prompt from the job, its model from the job. The image workers make the inputs ready
// (src/imaging/edit-prepare.ts: a mask of another size resized and said so, an empty mask refused, the image
// extended to outpaint within INPUT_IMAGE_MAX_PIXELS) before any model call; then it runs through
// GenerationService.generate with the mask (GenerateRequest.mask), so the free quota, storing, provenance, the
// lineage (its inputs: the image and the mask), the cost, the seed and a run's variants are the generation's. Each
// failure is a failed job with its reason; nothing is stored.
import type { LiveDocuments } from '../../collab/live-documents.js';
import { nodeSettingsUnusable, unusableImage } from '../../errors.js';
import type { ImageWorkers } from '../../imaging/pool.js';
import { EDIT_TASK, type EditMode, type OutpaintSides } from '../../kinds/edit.js';
import type { KindLimits } from '../../kinds/index.js';
import type { GenerateResponse, GenerationService } from '../../services/generation.js';
import { imagesByPort } from '../node-inputs.js';
import type { Task } from '../task.js';
import { checkedData, jobNode } from './node-data.js';

export interface EditTaskDeps {
  generation: Pick<GenerationService, 'generate'>;
  /** The canvas as it is now: the node's data when the job has none planned. */
  canvases: Pick<LiveDocuments, 'read'>;
  prepareEdit: ImageWorkers['prepareEdit'];
  /** INPUT_IMAGE_MAX_PIXELS: the most pixels the image, its mask and the result may have. */
  maxPixels: number;
  /** The limits the kinds' data rules take (the node's data is checked by its kind before it runs). */
  limits: KindLimits;
  /** The model a job that names none runs (the edit kind's default). */
  defaultModel: string;
}

type Rec = Record<string, unknown>;

export function createEditTask(deps: EditTaskDeps): Task<GenerateResponse> {
  /** The node's data, checked by the edit kind: as a run's job was planned with (its `params`), else the canvas's now. */
  async function dataOf(projectId: string, nodeId: string, params: Rec | null): Promise<{ mode: EditMode; outpaint?: OutpaintSides }> {
    const node = await jobNode(deps.canvases, { projectId, nodeId, params }, EDIT_TASK, { kind: EDIT_TASK, does: 'edit' });
    const checked = checkedData(deps.limits, 'edit', { mode: 'inpaint', ...node.data, type: 'edit' }, nodeId);
    const out = checked as { mode?: EditMode; outpaint?: OutpaintSides };
    return { mode: out.mode ?? 'inpaint', ...(out.outpaint ? { outpaint: out.outpaint } : {}) };
  }

  return {
    kind: EDIT_TASK,
    async run({ job, user, signal, progress, commit }) {
      const { projectId, nodeId } = job;
      if (projectId === null || nodeId === null) throw new Error('an edit job without its node');
      const { mode, outpaint } = await dataOf(projectId, nodeId, job.params);
      const ports = imagesByPort(job, 'image');
      const image = ports.get('image')?.[0];
      const mask = mode === 'inpaint' ? ports.get('mask')?.[0] : undefined;
      if (!image) throw nodeSettingsUnusable('no image is connected to its image input', nodeId);
      if (mode === 'inpaint' && !mask) throw nodeSettingsUnusable('no mask is connected to its mask input (an inpaint needs one; an outpaint does not)', nodeId);
      let note: string | undefined;
      const response = await deps.generation.generate(user, {
        images: [image],
        prompt: job.prompt,
        projectId,
        nodeId,
        signal,
        promptInMetadata: job.promptInMetadata,
        model: job.model ?? deps.defaultModel,
        onProgress: progress,
        ...(job.runId ? { run: { cacheKey: job.cacheKey, seed: job.seed } } : {}),
        lineage: { jobId: job.id, queuedMs: Math.max(0, Date.now() - job.createdAt.getTime()) },
        edit: {
          ...(mask ? { mask } : {}),
          prepare: async (inputs) => {
            const answer = await deps.prepareEdit(
              { mode, ...(outpaint ? { outpaint } : {}), image: inputs.images[0].data, ...(inputs.mask ? { mask: inputs.mask.data } : {}), maxPixels: deps.maxPixels },
              { owner: user.id, signal },
            );
            if (!answer.ok) {
              if (answer.kind === 'settings') throw nodeSettingsUnusable(answer.message, nodeId);
              if (answer.kind === 'input') throw unusableImage(answer.message, { index: answer.index, url: answer.index === 0 ? image : mask! });
              throw new Error(`preparing the edit failed: ${answer.message}`); // internal
            }
            if (answer.note) {
              note = answer.note;
              progress({ message: note });
            }
            return { images: [{ data: Buffer.from(answer.image), mimeType: 'image/png' }], mask: { data: Buffer.from(answer.mask), mimeType: 'image/png' } };
          },
        },
        commit: (tx, made) => {
          const text = [note, made.text].filter((t): t is string => t !== undefined && t.length > 0).join('\n');
          return commit(tx, { imageUrl: made.imageUrl, generationId: made.generationId, model: made.model, ...(text ? { text } : {}) });
        },
      });
      return { output: { imageUrl: response.imageUrl, ...(response.generationId ? { generationId: response.generationId } : {}) }, response };
    },
  };
}
