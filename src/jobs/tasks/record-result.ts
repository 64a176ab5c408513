// The part every task that makes an image without a model shares (the image-steps task, the compose task): the PNG
// stored with its provenance, each input kept as a URL (a data-URL input stored as an object first, as a
// generation's), and the result recorded as a generation — its lineage: the inputs, the job, the node, the kind as
// its model, cost 0 — in the transaction in which the job succeeds (ctx.commit). Nothing half-done stays behind: on
// any failure the objects written for the job are deleted.
import { createHash, randomBytes } from 'node:crypto';
import type { Transactions } from '../../db/index.js';
import type { GenerationsRepository } from '../../db/repositories/index.js';
import { nodeSettingsUnusable, storageUnavailable } from '../../errors.js';
import { safeFileName, uniquePrefix } from '../../imaging/object-names.js';
import { withProvenance } from '../../imaging/provenance.js';
import { kindOf } from '../../kinds/index.js';
import type { ResolvedInput } from '../../services/image-inputs.js';
import { ObjectTooLargeError, type ObjectStore } from '../../storage/index.js';
import type { TaskContext, TaskResult } from '../task.js';

export interface RecordResultDeps {
  store: Pick<ObjectStore, 'put' | 'delete'>;
  /** The largest result stored (MODEL_OUTPUT_MAX_BYTES, as a generation's). */
  outputMaxBytes: number;
  /** The largest input stored when a data-URL input is kept as an object (INPUT_IMAGE_MAX_BYTES). */
  inputMaxBytes: number;
  generations: Pick<GenerationsRepository, 'insert' | 'parentsOf'>;
  transactions: Transactions;
}

export interface MadeResult {
  /** The node's kind: the lineage's model. */
  type: string;
  png: Uint8Array;
  /** The provenance's digital source type (src/imaging/provenance.ts). */
  sourceType: string;
  /** The inputs in the job's order, as read (resolveInputs). */
  inputs: ResolvedInput[];
  /** When the task started (performance.now()). */
  started: number;
  canvasVersion: number | null;
}

const PNG = 'image/png';
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** A canceled job: the runner records it as canceled (this error is never shown). */
export const stopped = () => new Error('the job was canceled');

/** Stores and records a task's result for its job (see the top of this file); throws `stopped()` when the job was canceled meanwhile. */
export async function recordResult(deps: RecordResultDeps, { job, user, commit }: Pick<TaskContext, 'job' | 'user' | 'commit'>, made: MadeResult): Promise<TaskResult> {
  const { store } = deps;
  const { type } = made;
  const projectId = job.projectId!;
  const nodeId = job.nodeId!;
  const put = async (name: string, data: Buffer, contentType: string, maxBytes: number) =>
    store.put(name, data, { contentType, maxBytes }).catch((err: unknown): never => {
      if (err instanceof ObjectTooLargeError) throw nodeSettingsUnusable(`the result is larger than the ${maxBytes} bytes stored`, nodeId);
      throw storageUnavailable('the result image could not be stored');
    });
  const stamp = Date.now();
  const generationId = `gen-${stamp}-${randomBytes(6).toString('hex')}`;
  const png = withProvenance(Buffer.from(made.png), { generationId, model: type, sourceType: made.sourceType });
  const written: string[] = [];
  try {
    const output = await put(`generated-${stamp}-${randomBytes(6).toString('hex')}.png`, png, PNG, deps.outputMaxBytes);
    written.push(output.name);
    // The record keeps URLs only: a data-URL input is stored as an object first (as a generation's).
    const inputUrls: string[] = [];
    for (const input of made.inputs) {
      if (input.url) {
        inputUrls.push(input.url);
        continue;
      }
      const stored = await put(`${uniquePrefix()}-${safeFileName('input', input.mimeType)}`, input.data, input.mimeType, deps.inputMaxBytes);
      written.push(stored.name);
      inputUrls.push(stored.url);
    }
    const queuedMs = Math.max(0, Math.round((job.startedAt ?? new Date()).getTime() - job.createdAt.getTime()));
    const committed = await deps.transactions.transaction(async (tx) => {
      if (!(await commit(tx, { imageUrl: output.url, generationId, model: type }))) return false;
      const parentIds = await deps.generations.parentsOf(inputUrls, { userId: user.id, projectId }, tx);
      await deps.generations.insert({
        id: generationId,
        userId: user.id,
        userEmail: user.email,
        prompt: '',
        inputImages: inputUrls,
        outputImageUrl: output.url,
        model: type,
        createdAt: new Date(stamp),
        jobId: job.id,
        projectId,
        nodeId,
        canvasVersion: made.canvasVersion,
        modelVersion: `${type}@${kindOf(type)!.version}`,
        inputs: made.inputs.map((input, i) => ({ url: inputUrls[i], sha256: sha256(input.data), bytes: input.data.length })),
        outputSha256: sha256(png),
        outputBytes: png.length,
        queuedMs,
        modelMs: 0,
        totalMs: Math.round(performance.now() - made.started) + queuedMs,
        cost: { amount: 0, currency: 'USD', basis: 'list price' },
        parentIds,
        promptInMetadata: false,
        cacheKey: job.cacheKey,
        seed: job.seed,
      }, tx);
      return true;
    });
    if (!committed) throw stopped();
    return { output: { imageUrl: output.url, generationId, model: type } };
  } catch (err) {
    await Promise.all(written.map((name) => store.delete(name).catch(() => {})));
    throw err;
  }
}
