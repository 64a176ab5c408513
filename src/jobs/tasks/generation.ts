// The `generation` task: a job's images and prompt through GenerationService.generate (quota, inputs, the model,
// storing the result, the generation's lineage record). The job succeeds in the transaction that records the
// generation (ctx.commit), so a cancel committed first wins and nothing is recorded.
import type { GenerateResponse, GenerationService } from '../../services/generation.js';
import type { Task } from '../task.js';

export const GENERATION_TASK = 'generation';

export interface GenerationTaskDeps {
  generation: Pick<GenerationService, 'generate'>;
  /** The model a job that names none runs (recorded in the job when it is queued). */
  defaultModel: string;
}

export function createGenerationTask({ generation, defaultModel }: GenerationTaskDeps): Task<GenerateResponse> {
  return {
    kind: GENERATION_TASK,
    async run({ job, user, signal, progress, commit }) {
      const node = job.projectId !== null && job.nodeId !== null ? { projectId: job.projectId, nodeId: job.nodeId } : {};
      const response = await generation.generate(user, {
        images: job.images,
        prompt: job.prompt,
        ...node,
        signal,
        promptInMetadata: job.promptInMetadata,
        // The default runs as the default (SPEC's limits, its fallback); another model by its name.
        ...(job.model && job.model !== defaultModel ? { model: job.model } : {}),
        onProgress: progress,
        ...(job.runId ? { run: { cacheKey: job.cacheKey, seed: job.seed } } : {}),
        lineage: { jobId: job.id, queuedMs: Math.max(0, Date.now() - job.createdAt.getTime()) },
        commit: (tx, made) => commit(tx, { imageUrl: made.imageUrl, generationId: made.generationId, model: made.model, ...(made.text ? { text: made.text } : {}) }),
      });
      return { output: { imageUrl: response.imageUrl, ...(response.generationId ? { generationId: response.generationId } : {}) }, response };
    },
  };
}
