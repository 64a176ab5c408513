// A generation's lineage as the API shows it (docs/api.md "Lineage"): what made it — job, project, node, canvas
// version, model and the provider's model version, each input's URL, SHA-256 and size, the output's, durations,
// its cost (stated or list price), parent generations — and whether its PNG carries the prompt. Used by the project
// gallery (./project-generations.ts) and by GET /api/generations/:id (./generations.ts; `lineageOf` of the
// generations gallery repository reads one for its author or the project's members).
import { z } from 'zod';
import type { GenerationRow } from '../db/schema.js';

const Digest = z.object({
  url: z.string(),
  sha256: z.string().nullable().describe('SHA-256 of the bytes, hex; null on generations recorded before lineage'),
  bytes: z.number().int().nullable().describe('Size in bytes; null on generations recorded before lineage'),
});

export const Lineage = z
  .object({
    generationId: z.string(),
    jobId: z.string().nullable().describe('The generation job that made it (POST /api/generations); null for POST /api/image'),
    projectId: z.string().nullable().describe('The project it was made into; null without one (or once that project is deleted)'),
    nodeId: z.string().nullable(),
    canvasVersion: z.number().int().nullable().describe("The project's canvas version when the generation started"),
    model: z.string(),
    modelVersion: z.string().nullable().describe("The provider's model version when its answer states one, else the model id"),
    inputs: z.array(Digest).describe('Each input as the model received it'),
    output: Digest,
    durations: z.object({
      queuedMs: z.number().int().nullable().describe('Waiting in the job queue; null when not made by a job'),
      modelMs: z.number().int().nullable().describe('The model call'),
      totalMs: z.number().int().nullable().describe('From the request (or the job) to the record, queue included'),
    }),
    cost: z
      .object({ amount: z.number(), currency: z.string(), basis: z.enum(['provider', 'list price']).optional().describe('provider: stated for this call; list price: the model’s price per image') })
      .nullable()
      .describe("What the call cost: as the provider stated it, else the model's list price per image; null when neither is known"),
    parentIds: z.array(z.string()).describe("Generations (the author's own, or of the same project) whose output is one of the inputs"),
    promptInMetadata: z.boolean().describe("The output PNG's XMP carries the prompt (opted in)"),
  })
  .meta({ id: 'Lineage' });

export type LineageView = z.infer<typeof Lineage>;

/** A generation's lineage; rows recorded before lineage (migration 0016) show their input URLs with null digests. */
export function presentLineage(g: GenerationRow): LineageView {
  return {
    generationId: g.id,
    jobId: g.jobId,
    projectId: g.projectId,
    nodeId: g.nodeId,
    canvasVersion: g.canvasVersion,
    model: g.model,
    modelVersion: g.modelVersion,
    inputs: g.inputs ?? g.inputImages.map((url) => ({ url, sha256: null, bytes: null })),
    output: { url: g.outputImageUrl, sha256: g.outputSha256, bytes: g.outputBytes },
    durations: { queuedMs: g.queuedMs, modelMs: g.modelMs, totalMs: g.totalMs },
    cost: g.cost,
    parentIds: g.parentIds,
    promptInMetadata: g.promptInMetadata,
  };
}
