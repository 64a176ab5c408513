// What a task that reads its node's settings shares (the image-steps, compose and edit tasks): the node's type and
// data as a run planned the job (its `params`), else as the canvas has them now — which must still be a node of a kind
// this task runs — and that data checked by its kind's rules, a refusal naming the field.
import type { LiveDocuments } from '../../collab/live-documents.js';
import { nodeNotFound, nodeSettingsUnusable } from '../../errors.js';
import { kindData, kindOf, type KindLimits } from '../../kinds/index.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The job's node: `{ type: plannedType, data: params }` when the run planned it (a planned type and params), else the
 * node on the canvas now (404 when it is gone). Either must be of a kind whose task is `task` (else the job fails:
 * "the node is now a "x" node, which does not <does>").
 */
export async function jobNode(
  canvases: Pick<LiveDocuments, 'read'>,
  job: { projectId: string; nodeId: string; params: Rec | null },
  plannedType: string | null,
  task: { kind: string; does: string },
): Promise<{ type: string; data: Rec }> {
  let node: Rec | undefined;
  if (job.params && plannedType !== null) node = { type: plannedType, data: job.params };
  else {
    const canvas = await canvases.read(job.projectId);
    node = (canvas?.nodes ?? []).find((n): n is Rec => isRec(n) && n.id === job.nodeId);
  }
  if (!node) throw nodeNotFound(job.nodeId);
  const kind = kindOf(node.type);
  if (kind?.task?.kind !== task.kind) throw nodeSettingsUnusable(`the node is now a ${JSON.stringify(String(node.type))} node, which does not ${task.does}`, job.nodeId);
  return { type: kind.type, data: isRec(node.data) ? node.data : {} };
}

/** `data` checked by the rules of the kind `type` (its zod schema): the parsed data, or the job fails naming the field. */
export function checkedData(limits: KindLimits, type: string, data: Rec, nodeId: string): Rec {
  const checked = kindData(limits).get(type)!.schema.safeParse(data);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw nodeSettingsUnusable(`data.${issue.path.join('.')}: ${issue.message}`, nodeId);
  }
  return checked.data;
}
