// A compose node's result as a layered PSD (GET /api/projects/{id}/nodes/{nodeId}/psd, docs/api.md "Node kinds"):
// the generation the node shows now (its `data.image`), its job's inputs (its layers and masks, read from the store
// as a generation's are) and data (the job's planned `params`; a job started without a run: the node's data now),
// handed to the image workers (src/imaging/compose.ts composePsd) with the stored composite. One PSD layer per image,
// hidden ones kept hidden, each with its name, position, opacity and blend mode; its mask is baked into its alpha.
// Owner and members (viewers too) may download; anyone else gets 404 Project not found. The PSD is built whole in
// the workers and refused (413 psd_too_large, naming its size) past PSD_MAX_BYTES, so nothing is half-sent.
import type { ProjectAccess } from '../auth/project-access.js';
import type { LiveDocuments } from '../collab/live-documents.js';
import type { GenerationsGalleryRepository, GenerationsRepository } from '../db/repositories/index.js';
import type { GenerationJobsRepository } from '../db/repositories/generation-jobs.js';
import { AppError, invalidRequest, nodeNotFound, nodeSettingsUnusable, psdTooLarge, unusableImage } from '../errors.js';
import type { ImageWorkers } from '../imaging/pool.js';
import { composeDataOf, composeInputs } from './tasks/compose.js';
import { imagesByPort } from './node-inputs.js';
import { COMPOSE_TASK } from '../kinds/compose.js';
import { kindOf, type KindLimits } from '../kinds/index.js';
import { resolveInputs, type InputDeps } from '../services/image-inputs.js';

export interface ComposePsdService {
  /** The node's layered PSD and the name to save it under. */
  psd(userId: string, projectId: string, nodeId: string): Promise<{ psd: Buffer; fileName: string }>;
}

export interface ComposePsdDeps {
  access: Pick<ProjectAccess, 'require'>;
  canvases: Pick<LiveDocuments, 'read'>;
  generations: Pick<GenerationsRepository, 'parentsOf'>;
  gallery: Pick<GenerationsGalleryRepository, 'findInProject'>;
  jobs: Pick<GenerationJobsRepository, 'get'>;
  inputs: InputDeps;
  /** The largest stored result read back (MODEL_OUTPUT_MAX_BYTES). */
  outputMaxBytes: number;
  psd: ImageWorkers['psd'];
  /** PSD_MAX_BYTES. */
  maxBytes: number;
  limits: KindLimits;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

const noResult = (nodeId: string) => new AppError('generation_not_found', 'Generation not found', { details: `node ${JSON.stringify(nodeId.slice(0, 200))} has no result yet: run it first` });

export function createComposePsdService(deps: ComposePsdDeps): ComposePsdService {
  return {
    async psd(userId, projectId, nodeId) {
      await deps.access.require({ userId }, projectId, 'read');
      const canvas = await deps.canvases.read(projectId);
      const node = (canvas?.nodes ?? []).find((n): n is Rec => isRec(n) && n.id === nodeId);
      if (!node) throw nodeNotFound(nodeId);
      if (kindOf(node.type)?.task?.kind !== COMPOSE_TASK) throw invalidRequest(`Invalid nodeId: node ${JSON.stringify(nodeId.slice(0, 200))} is a ${JSON.stringify(String(node.type).slice(0, 100))} node, not a compose node`);
      const image = isRec(node.data) && typeof node.data.image === 'string' ? node.data.image : undefined;
      // The generation the node shows: the newest made into this project with that output.
      const ids = image ? await deps.generations.parentsOf([image], { userId, projectId }) : [];
      const generation = ids.length > 0 ? await deps.gallery.findInProject(projectId, ids[ids.length - 1]) : null;
      const job = generation?.jobId ? await deps.jobs.get(generation.jobId) : null;
      if (!generation || !job || job.taskKind !== COMPOSE_TASK) throw noResult(nodeId);
      const data = await composeDataOf(deps, { projectId, nodeId, params: job.params });
      const inputs = await composeInputs(job, data.layers, deps.inputs, userId);
      const [composite] = await resolveInputs([generation.outputImageUrl], { ...deps.inputs, maxBytes: Math.max(deps.inputs.maxBytes, deps.outputMaxBytes), decodeProblem: async () => undefined }, userId);
      const byPort = imagesByPort({ images: job.images.map((_, i) => String(i)), inputPorts: job.inputPorts }, 'images');
      const of = (port: string) => (byPort.get(port) ?? []).map((i) => inputs[Number(i)].data);
      const answer = await deps.psd({ images: of('images'), masks: of('masks'), ...data, maxPixels: deps.inputs.maxPixels, composite: composite.data, maxBytes: deps.maxBytes }, { owner: userId });
      if (!answer.ok) {
        if (answer.kind === 'too-large') throw psdTooLarge(`the PSD of node ${JSON.stringify(nodeId.slice(0, 200))}: ${answer.message}`);
        if (answer.kind === 'input') {
          const index = Number((byPort.get(answer.port) ?? [])[answer.index] ?? 0);
          throw unusableImage(answer.message, { index, url: job.images[index] ?? '' });
        }
        if (answer.kind === 'settings') throw nodeSettingsUnusable(answer.message, nodeId);
        throw new Error(`the PSD could not be made: ${answer.message}`); // internal
      }
      return { psd: Buffer.from(answer.psd), fileName: 'compose.psd' };
    },
  };
}
