// What a run would cost before it runs (DESIGN.md §12 "Prices"; POST /api/projects/{id}/runs/estimate): each job's
// price from the catalogue (src/models/catalogue.ts `price`), 0 for a job the cache answers, for the offline models
// and for the kinds that only transform an image on our own machines; null when the model has no published price.
import { COMPOSE_TASK } from '../kinds/compose.js';
import { EDIT_TASK } from '../kinds/edit.js';
import { IMAGE_STEPS_TASK } from '../kinds/image-steps.js';
import { GENERATION_TASK_KIND } from '../kinds/kind.js';
import { MODEL_INFO, isImageModelName, type ModelInfo } from '../models/catalogue.js';

/** A run's estimate, per node (in the order the steps name them) and in total. */
export interface Estimate {
  /** The sum of the priced jobs' costs in US dollars (a job without a price adds nothing: see `unpriced`). */
  totalUsd: number;
  /** Jobs that would call a model with no published price: the total leaves them out. */
  unpriced: number;
  nodes: EstimateNode[];
}

export interface EstimateNode {
  nodeId: string;
  /** The node's jobs in the run. */
  jobs: number;
  /** Every job of the node would come from the cache (and so costs nothing). */
  cached: boolean;
  /** Its jobs' costs together; null when one that would run has no published price. */
  costUsd: number | null;
}

/** One job as the estimate sees it: a plan step (src/kinds/graph.ts PlanStep) and whether the cache would answer it. */
export interface PricedStep {
  nodeId: string;
  taskKind: string;
  /** null: the deployment's default model. */
  model: string | null;
  cached: boolean;
}

/** Sums of prices in USD, to the millionth (the precision generations store them with). */
export const roundUsd = (n: number): number => Math.round(n * 1e6) / 1e6;

/** What one image of the model costs by its published price; null when it has none usable per image. */
export function perImageUsd(info: ModelInfo): number | null {
  if (info.offline) return 0;
  const price = info.price;
  if (!price) return null;
  if (price.perImageUsd !== undefined) return price.perImageUsd;
  if (price.per1kTokensUsd !== undefined && price.tokensPerImage !== undefined) return roundUsd((price.per1kTokensUsd * price.tokensPerImage) / 1000);
  return null; // per second (video) needs a duration an image job does not have
}

/**
 * What one job of a run would cost, in US dollars: the `generation` and `edit` tasks by their model's price (null:
 * the default), 0 for the image-steps kinds (crop, resize, adjust) and `compose` (our own image workers); null when the model is unknown or has
 * no published price, and for a task kind this module does not know (it cannot say what it costs).
 */
export function jobCostUsd(step: { taskKind: string; model: string | null }, defaultModel: string): number | null {
  if (step.taskKind === IMAGE_STEPS_TASK || step.taskKind === COMPOSE_TASK) return 0;
  if (step.taskKind !== GENERATION_TASK_KIND && step.taskKind !== EDIT_TASK) return null;
  const id = step.model ?? defaultModel;
  return isImageModelName(id) ? perImageUsd(MODEL_INFO[id]) : null;
}

/** The estimate of a run's steps: a cached job costs 0; a node's cost is its jobs' sum, null when one is unpriced. */
export function estimateOf(steps: readonly PricedStep[], defaultModel: string): Estimate {
  const nodes = new Map<string, { jobs: number; cached: number; usd: number; unpriced: boolean }>();
  let totalUsd = 0;
  let unpriced = 0;
  for (const step of steps) {
    let node = nodes.get(step.nodeId);
    if (!node) nodes.set(step.nodeId, (node = { jobs: 0, cached: 0, usd: 0, unpriced: false }));
    node.jobs += 1;
    if (step.cached) {
      node.cached += 1;
      continue;
    }
    const cost = jobCostUsd(step, defaultModel);
    if (cost === null) {
      node.unpriced = true;
      unpriced += 1;
    } else {
      node.usd += cost;
      totalUsd += cost;
    }
  }
  return {
    totalUsd: roundUsd(totalUsd),
    unpriced,
    nodes: [...nodes].map(([nodeId, n]) => ({ nodeId, jobs: n.jobs, cached: n.cached === n.jobs, costUsd: n.unpriced ? null : roundUsd(n.usd) })),
  };
}
