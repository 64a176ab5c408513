// Runs of a project's graph (DESIGN.md §12 "Runs", "Cache"; docs/api.md "Runs"). `start` plans a run from the
// live document as it is now (src/kinds/graph.ts: graph, keys, plan; seeds drawn first for the nodes that have none),
// refuses a plan with a problem (naming its nodes) or over the budget with nothing queued, and stores the run and
// its steps — one per job, in topological order — in one transaction. Then `advance` moves it on, and is called
// again whenever one of its jobs ends (the runner's onJobEnded), at every heartbeat of the runner (so a run whose
// instance died goes on after a restart) and after a cancel. `advance` is idempotent and safe from any instance at
// any time: it works under a lock on the run's row, reads every step with its job's state, and for each step whose
// inputs are all made takes the output the project already has for its key (the cache: a `cached` job, no task,
// cost 0), or waits for an unfinished job of the same key or node (another run's, or one started alone), or queues
// its job on the runner; a step after a failed one is `skipped` with the reason. The run ends once every step has.
// A step's job id is chosen when it is planned, so a job is never queued twice for one step.
import { randomInt, randomUUID } from 'node:crypto';
import type { ProjectAccess } from '../auth/project-access.js';
import type { LiveDocuments } from '../collab/live-documents.js';
import type { Transactions, Tx } from '../db/index.js';
import type { CachedJob, CachedOutput, GenerationJobsRepository, GenerationJobView, NewRunJob, RunStepState, RunsRepository, StepChange } from '../db/repositories/index.js';
import type { RunJobStatus, RunRow } from '../db/schema.js';
import { invalidRun, runFinished, runNodeNotFound, runNotFound, tooManyJobs } from '../errors.js';
import { graphOf, keysOf, planRun, type CanvasLike, type JobInput, type Plan, type PlanProblem, type RunMode } from '../kinds/graph.js';
import { IMAGE_STEPS_TASK } from '../kinds/image-steps.js';
import { kindOf } from '../kinds/index.js';
import type { GenerationJobs, HandedJob, NewJob } from '../jobs/runner.js';
import { modelRoleProblem, type ModelCatalogue } from '../jobs/model-roles.js';
import type { Estimate, PricedStep } from './prices.js';
import type { NodeRunWrite, RunDocument } from './run-state.js';
import { DONE_OK, FINAL, nodeRunOf, presentRun, stepNow, type RunView, type StepNow } from './run-view.js';

export interface RunRequest {
  mode: RunMode;
  nodeIds?: string[];
}

export interface Runs {
  /** Plans and starts a run (editors and owners); its view once its first jobs are queued or taken from the cache. */
  start(userId: string, projectId: string, request: RunRequest): Promise<RunView>;
  /** What the run would cost now, per node (cached jobs cost nothing), without starting it. */
  estimate(userId: string, projectId: string, request: RunRequest): Promise<Estimate>;
  get(userId: string, projectId: string, runId: string): Promise<RunView>;
  /** The project's runs, newest first. */
  list(userId: string, projectId: string, limit: number): Promise<RunView[]>;
  /** Cancels the run: its unfinished jobs are canceled, its waiting steps too (409 once it has ended). */
  cancel(userId: string, projectId: string, runId: string): Promise<RunView>;
  /** Moves the run on (see above); resolves once this instance's advance of it is done. */
  advance(runId: string): Promise<void>;
  /** A job ended (the runner's onJobEnded): its run, and the project's other running runs (they may wait for it). */
  jobEnded(job: { id: string; runId: string | null; projectId: string | null }): void;
  /** Advances every running run (the runner's heartbeat; at boot). */
  advanceRunning(): Promise<void>;
}

export interface RunsDeps {
  runs: RunsRepository;
  jobs: Pick<GenerationJobsRepository, 'lockUser'>;
  runner: Pick<GenerationJobs, 'enqueue' | 'shown' | 'cancel' | 'runHanded' | 'dropHanded'>;
  transactions: Transactions;
  access: Pick<ProjectAccess, 'require'>;
  live: Pick<LiveDocuments, 'read'>;
  document: RunDocument;
  /** The estimate of a run's steps (./prices.ts estimateOf). */
  estimateOf: (steps: readonly PricedStep[], defaultModel: string) => Estimate;
  /** The daily budget (./budget.ts): throws 402 when the estimate would pass it. */
  budget: { check(userId: string, estimateUsd: number): Promise<void> };
  defaultModel: string;
  /** RUN_MAX_JOBS. */
  maxJobs: number;
  /** The models this deployment runs: a run of a node whose model does not do its kind's role is refused (../jobs/model-roles.ts). */
  models?: ModelCatalogue;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
}

/** Running runs advanced per heartbeat at most. */
const RUNNING_BATCH = 100;
/** A seed drawn for a node that has none: an integer in [0, 2^31 − 1]. */
const SEED_MAX = 2 ** 31 - 1;
const RUN_ID = /^run_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const q = (s: string) => JSON.stringify(s);

function problemError(problem: PlanProblem) {
  if (problem.code === 'node_not_found') return runNodeNotFound(problem.message, problem.nodeIds);
  if (problem.code === 'too_many_jobs') return tooManyJobs(problem.message, problem.nodeIds);
  return invalidRun(problem.message, problem.nodeIds);
}

const emptyCanvas: CanvasLike = { nodes: [], edges: [] };

export function createRuns(deps: RunsDeps): Runs {
  const { runs, transactions, log } = deps;
  const seeded = (type: string) => kindOf(type)?.seeded === true;

  function plan(canvas: CanvasLike | null, request: RunRequest) {
    const graph = graphOf(canvas ?? emptyCanvas);
    const keys = keysOf(graph);
    const planned: Plan = planRun(graph, keys, { mode: request.mode, nodeIds: request.nodeIds, maxJobs: deps.maxJobs });
    if (!planned.ok) throw problemError(planned.problem);
    return { graph, keys, plan: planned };
  }

  /** The estimate of a plan, with the outputs the project already has (one query). */
  async function estimateFor(projectId: string, steps: ReadonlyArray<{ nodeId: string; taskKind: string; model: string | null; key: string }>) {
    const cache = await runs.cachedOutputs(projectId, [...new Set(steps.map((s) => s.key))]);
    return deps.estimateOf(steps.map((s) => ({ nodeId: s.nodeId, taskKind: s.taskKind, model: s.model, cached: cache.has(s.key) })), deps.defaultModel);
  }

  async function readable(userId: string, projectId: string, runId: string): Promise<RunRow> {
    await deps.access.require({ userId }, projectId, 'read');
    const run = RUN_ID.test(runId) ? await runs.get(runId) : null;
    if (!run || run.projectId !== projectId) throw runNotFound();
    return run;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Advancing

  /** This instance's advances under way, by run: a call while one runs makes it go round once more. */
  const advancing = new Map<string, { again: boolean; handOff: boolean; done: Promise<void> }>();

  /** `handOff`: a job of the run ended on this instance, whose worker may take the next ready step at once. */
  function advance(runId: string, handOff = false): Promise<void> {
    const current = advancing.get(runId);
    if (current) {
      current.again = true;
      current.handOff ||= handOff;
      return current.done;
    }
    const entry = { again: false, handOff, done: Promise.resolve() };
    entry.done = (async () => {
      try {
        do {
          entry.again = false;
          const handing = entry.handOff;
          entry.handOff = false;
          await advanceOnce(runId, handing);
        } while (entry.again);
      } finally {
        advancing.delete(runId);
      }
    })();
    advancing.set(runId, entry);
    return entry.done;
  }

  /**
   * A step's job input: the images it takes and the input port each reaches, and its texts joined after its prompt,
   * from the steps before it or the document; its model as planned (the node's, else its kind's default).
   */
  function jobInputOf(step: RunStepState, made: ReadonlyMap<string, string | null>): NewJob {
    const images: string[] = [];
    const inputPorts: string[] = [];
    const texts: string[] = [];
    for (const input of step.inputs as JobInput[]) {
      const source = input.source;
      const value = 'text' in source ? source.text : 'image' in source ? source.image : made.get(`${source.nodeId}#${source.instance}`) ?? null;
      if (value === null) continue;
      if (input.value === 'text') texts.push(value);
      else {
        images.push(value);
        inputPorts.push(input.port);
      }
    }
    const params = step.params;
    const base = { nodeId: step.nodeId, taskKind: step.taskKind };
    if (step.taskKind === IMAGE_STEPS_TASK) return { ...base, images: images.slice(0, 1), prompt: '', model: step.nodeType };
    const prompt = [typeof params.prompt === 'string' ? params.prompt : undefined, ...texts].filter((p): p is string => p !== undefined && p.trim().length > 0).join('\n');
    // A kind that runs no model (compose) records its own type as the job's model, as the image-steps kinds do.
    const model = step.model ?? (kindOf(step.nodeType)?.task?.models ? undefined : step.nodeType);
    return { ...base, images, inputPorts, prompt, ...(model ? { model } : {}) };
  }

  interface Advanced {
    run: RunRow;
    handed?: HandedJob;
    enqueued: GenerationJobView[];
    nodes: NodeRunWrite[];
  }

  async function advanceOnce(runId: string, handOff: boolean): Promise<void> {
    let out: Advanced | null;
    let handed: HandedJob | undefined;
    try {
      out = await transactions.transaction(async (tx) => {
        const advanced = await advanceIn(runId, tx, handOff);
        handed = advanced?.handed;
        return advanced;
      });
    } catch (err) {
      if (handed) deps.runner.dropHanded(handed);
      log.error({ err, runId }, 'a run could not be advanced (it is tried again at the next heartbeat)');
      return;
    }
    if (!out) return;
    // The handed job runs now (before the node states are written: they follow while it runs).
    if (out.handed) deps.runner.runHanded(out.handed);
    for (const view of out.enqueued) if (view.id !== out.handed?.row.id) deps.runner.shown(view);
    await deps.document.write(out.run.projectId, out.nodes);
  }

  async function advanceIn(runId: string, tx: Tx, handOff = false): Promise<Advanced | null> {
    const run = await runs.lock(runId, tx);
    if (!run || run.status !== 'running') return null;
    // The project's runs advance one at a time (two runs started together never both queue one key), then the
    // user's job lock: the order every transaction that takes both keeps.
    await runs.lockProject(run.projectId, tx);
    await deps.jobs.lockUser(run.userId, tx);
    const steps = await runs.steps(runId, tx);
    const now: StepNow[] = steps.map(stepNow);
    const before: RunJobStatus[] = steps.map((s) => s.status); // as last stored: a job's end since shows as a change
    const changes = new Map<number, StepChange>();
    const change = (idx: number, next: StepNow) => {
      now[idx] = next;
      changes.set(idx, { idx, ...next });
    };
    // The steps' statuses as their jobs say, stored with the step (a job's end recorded here once).
    steps.forEach((s, i) => {
      const stored = { status: s.status, reason: s.reason, imageUrl: s.imageUrl, costUsd: s.costUsd === null ? null : Number(s.costUsd) };
      if (JSON.stringify(stored) !== JSON.stringify(now[i])) change(i, now[i]);
    });

    const waiting = steps.filter((_, i) => now[i].status === 'waiting');
    const cache = waiting.length > 0 ? await runs.cachedOutputs(run.projectId, [...new Set(waiting.map((s) => s.key))], tx) : new Map<string, CachedOutput>();
    const busy = waiting.length > 0 ? await runs.busy(run.projectId, [...new Set(waiting.map((s) => s.key))], [...new Set(waiting.map((s) => s.nodeId))], tx) : [];
    const madeBy = new Map<string, string | null>(); // `${nodeId}#${instance}` → its image
    steps.forEach((s, i) => madeBy.set(`${s.nodeId}#${s.instance}`, now[i].imageUrl));
    const queuedKeys = new Map<string, string>(); // key → job id queued in this advance
    const cached: CachedJob[] = [];
    const enqueued: GenerationJobView[] = [];
    const positions = new Map<number, number | null>();
    const toQueue: Array<{ idx: number; input: Parameters<GenerationJobs['enqueue']>[1][number] }> = [];

    for (let i = 0; i < steps.length; i++) {
      const step = steps[i];
      if (now[i].status !== 'waiting') continue;
      const deps_ = step.deps.map((d) => ({ step: steps[d], now: now[d] }));
      const broken = deps_.find((d) => d.now.status === 'failed' || d.now.status === 'skipped' || d.now.status === 'canceled');
      if (broken) {
        const why = broken.now.status === 'failed' ? `node ${q(broken.step.nodeId)} failed: ${broken.now.reason ?? 'Failed'}` : (broken.now.reason ?? `node ${q(broken.step.nodeId)} was ${broken.now.status}`);
        change(i, { status: broken.now.status === 'canceled' ? 'canceled' : 'skipped', reason: why, imageUrl: null, costUsd: null });
        continue;
      }
      if (!deps_.every((d) => DONE_OK.has(d.now.status))) continue; // its inputs are not all made yet
      const hit = cache.get(step.key);
      if (hit) {
        cached.push({ id: step.jobId, userId: run.userId, projectId: run.projectId, nodeId: step.nodeId, runId, taskKind: step.taskKind, model: hit.model, cacheKey: step.key, seed: step.seed, params: step.params, generationId: hit.generationId, outputUrl: hit.outputUrl });
        change(i, { status: 'cached', reason: null, imageUrl: hit.outputUrl, costUsd: 0 });
        madeBy.set(`${step.nodeId}#${step.instance}`, hit.outputUrl);
        continue;
      }
      // A node never runs twice at once for one key: the step waits for the job making it, then takes it from the cache.
      const sameKey = busy.find((b) => b.cacheKey === step.key)?.id ?? queuedKeys.get(step.key);
      const sameNode = busy.find((b) => b.nodeId === step.nodeId && b.runId !== runId)?.id;
      const waitFor = sameKey ?? sameNode;
      if (waitFor) {
        const reason = sameKey ? `waiting for job ${waitFor}, which makes the same result` : `waiting for job ${waitFor} of node ${q(step.nodeId)} to end`;
        if (now[i].reason !== reason) change(i, { ...now[i], reason });
        continue;
      }
      const input = jobInputOf(step, madeBy);
      toQueue.push({ idx: i, input: { ...input, projectId: run.projectId, run: { runId, jobId: step.jobId, cacheKey: step.key, seed: step.seed, params: step.params } } });
      queuedKeys.set(step.key, step.jobId);
      change(i, { status: 'queued', reason: null, imageUrl: null, costUsd: null });
    }
    // Every ready step's job in one batch (a few statements however many: a list of 100 prompts is queued at once).
    const views = await deps.runner.enqueue(run.userId, toQueue.map((t) => t.input), tx, { handOff });
    views.forEach((view, k) => {
      enqueued.push(view);
      positions.set(toQueue[k].idx, view.queuePosition);
    });

    await runs.insertCachedJobs(cached, tx);
    if (cached.length > 0) {
      const at = new Date().toISOString();
      await runs.recordJobEvents(
        run.userId,
        cached.map((c) => ({
          id: c.id,
          job: { id: c.id, status: 'succeeded', queuePosition: null, createdAt: at, startedAt: at, finishedAt: at, error: null, output: { imageUrl: c.outputUrl }, projectId: c.projectId, nodeId: c.nodeId, model: c.model, attempts: 0, progress: null },
        })),
        tx,
      );
    }
    // Enqueued steps' job rows exist now: stored as `queued` so the run's state matches its jobs.
    await runs.updateSteps(runId, [...changes.values()], tx);

    let ended: RunRow['status'] = 'running';
    if (now.every((n) => FINAL.has(n.status))) {
      ended = now.some((n) => n.status === 'failed' || n.status === 'skipped') ? 'failed' : now.some((n) => n.status === 'canceled') ? 'canceled' : 'succeeded';
    }
    const cost = now.reduce((s, n) => s + (n.costUsd ?? 0), 0);
    if (ended !== 'running' || changes.size > 0) await runs.finish(runId, ended, Math.round(cost * 1e6) / 1e6, tx);
    const roundedCost = Math.round(cost * 1e6) / 1e6;
    const after: RunRow = ended === 'running' ? { ...run, costUsd: String(roundedCost) } : { ...run, status: ended, costUsd: String(roundedCost), finishedAt: new Date() };
    if (changes.size > 0 || ended !== 'running') await runs.recordEvent(run.userId, runId, presentRun(after, steps, { nows: now, positions }) as unknown as Record<string, unknown>, tx);

    // The nodes whose jobs changed: their run state, and their result once all their jobs are made.
    const touched = new Set([...changes.keys()].filter((i) => before[i] !== now[i].status || changes.get(i)!.reason !== steps[i].reason).map((i) => steps[i].nodeId));
    if (!steps.some((s) => s.job !== null) && before.every((b) => b === 'waiting')) for (const s of steps) touched.add(s.nodeId); // the run's first advance
    const estimate = after.estimate as unknown as Estimate;
    const nodes: NodeRunWrite[] = [];
    for (const nodeId of touched) {
      const idxs = steps.map((s, i) => (s.nodeId === nodeId ? i : -1)).filter((i) => i >= 0);
      const nows = idxs.map((i) => now[i]);
      const write: NodeRunWrite = { nodeId, run: nodeRunOf(runId, nows, estimate?.nodes?.find((n) => n.nodeId === nodeId)?.costUsd) };
      const justMade = idxs.some((i) => changes.has(i) && before[i] !== now[i].status);
      if (justMade && nows.every((n) => DONE_OK.has(n.status) && n.imageUrl)) {
        const urls = nows.map((n) => n.imageUrl!);
        write.result = { image: urls[0], resultKey: steps[idxs[0]].nodeKey, ...(urls.length > 1 ? { results: urls } : {}) };
      }
      nodes.push(write);
    }
    return { run: after, enqueued, nodes, ...(views.handed ? { handed: views.handed } : {}) };
  }

  // ---------------------------------------------------------------------------------------------------------

  async function view(runId: string): Promise<RunView> {
    const run = await runs.get(runId);
    if (!run) throw runNotFound();
    return presentRun(run, await runs.steps(runId));
  }

  return {
    async start(userId, projectId, request) {
      await deps.access.require({ userId }, projectId, 'generate'); // viewers 403, strangers 404, before the canvas is read
      let canvas = await deps.live.read(projectId);
      let planned = plan(canvas, request);
      // Seeds first: a planned node of a kind with a seed and none yet gets one, written into the document (every
      // editor sees it), and the run is planned again from what was written.
      const seeds = new Map<string, number>();
      for (const nodeId of planned.plan.nodeIds) {
        const node = planned.graph.nodes.get(nodeId);
        if (node && seeded(node.type) && !Number.isInteger(node.data.seed)) seeds.set(nodeId, randomInt(0, SEED_MAX));
      }
      if (seeds.size > 0) {
        canvas = await deps.document.drawSeeds(projectId, seeds);
        planned = plan(canvas, request);
      }
      const { keys, plan: p } = planned;
      const models = deps.models;
      for (const step of models ? p.steps : []) {
        const problem = modelRoleProblem(models!, { id: step.nodeId, type: step.type }, step.model);
        if (problem) throw invalidRun(problem, [step.nodeId]);
      }
      const estimate = await estimateFor(projectId, p.steps);
      await deps.budget.check(userId, estimate.totalUsd);
      const runId = `run_${randomUUID()}`;
      const steps: NewRunJob[] = p.steps.map((s, idx) => ({
        runId,
        idx,
        nodeId: s.nodeId,
        instance: s.instance,
        jobId: `job_${randomUUID()}`,
        nodeType: s.type,
        key: s.key,
        nodeKey: keys.get(s.nodeId)?.key ?? s.key,
        seed: s.seed,
        taskKind: s.taskKind,
        model: s.model,
        params: { ...s.params },
        inputs: s.inputs as unknown[],
        deps: [...s.deps],
      }));
      await transactions.transaction((tx) =>
        runs.insert({ id: runId, projectId, userId, mode: request.mode, nodeIds: request.nodeIds ?? [], estimate: estimate as unknown as Record<string, unknown> }, steps, tx),
      );
      await advance(runId);
      return view(runId);
    },

    async estimate(userId, projectId, request) {
      await deps.access.require({ userId }, projectId, 'read');
      const { plan: p } = plan(await deps.live.read(projectId), request);
      return estimateFor(projectId, p.steps);
    },

    async get(userId, projectId, runId) {
      const run = await readable(userId, projectId, runId);
      return presentRun(run, await runs.steps(run.id));
    },

    async list(userId, projectId, limit) {
      await deps.access.require({ userId }, projectId, 'read');
      const rows = await runs.listByProject(projectId, limit);
      const steps = await runs.stepsOfRuns(rows.map((r) => r.id));
      return rows.map((r) => presentRun(r, steps.get(r.id) ?? []));
    },

    async cancel(userId, projectId, runId) {
      await deps.access.require({ userId }, projectId, 'generate');
      const found = RUN_ID.test(runId) ? await runs.get(runId) : null;
      if (!found || found.projectId !== projectId) throw runNotFound();
      // The run and its steps that have no job yet end at once; its unfinished jobs are canceled by the runner.
      const unfinished = await transactions.transaction(async (tx) => {
        const run = await runs.lock(runId, tx);
        if (!run || run.status !== 'running') throw runFinished(run?.status ?? 'ended');
        await deps.jobs.lockUser(run.userId, tx);
        const steps = await runs.steps(runId, tx);
        const changes: StepChange[] = [];
        const jobs: string[] = [];
        steps.forEach((s, i) => {
          const n = stepNow(s);
          if (n.status === 'waiting') changes.push({ idx: i, status: 'canceled', reason: 'Canceled', imageUrl: null, costUsd: null });
          else if (n.status === 'queued' || n.status === 'running') jobs.push(s.jobId);
        });
        await runs.updateSteps(runId, changes, tx);
        const cost = steps.reduce((sum, s) => sum + (stepNow(s).costUsd ?? 0), 0);
        await runs.finish(runId, 'canceled', Math.round(cost * 1e6) / 1e6, tx);
        const after = (await runs.lock(runId, tx))!;
        await runs.recordEvent(run.userId, runId, presentRun(after, await runs.steps(runId, tx)) as unknown as Record<string, unknown>, tx);
        return { jobs, userId: run.userId, steps };
      });
      for (const jobId of unfinished.jobs) {
        await deps.runner.cancel(unfinished.userId, jobId).catch((err: unknown) => log.warn({ err, runId, jobId }, "a run's job could not be canceled (it had ended)"));
      }
      const canceled = await view(runId);
      // Every node of the run shows how it ended.
      const byNode = new Map<string, number[]>();
      canceled.jobs.forEach((j, i) => byNode.set(j.nodeId, [...(byNode.get(j.nodeId) ?? []), i]));
      const estimate = canceled.estimate;
      await deps.document.write(
        projectId,
        [...byNode].map(([nodeId, idxs]) => ({
          nodeId,
          run: nodeRunOf(runId, idxs.map((i) => ({ status: canceled.jobs[i].status, reason: canceled.jobs[i].reason, imageUrl: canceled.jobs[i].imageUrl, costUsd: canceled.jobs[i].costUsd })), estimate?.nodes?.find((n) => n.nodeId === nodeId)?.costUsd),
        })),
      );
      return canceled;
    },

    advance,

    jobEnded(job) {
      const go = async () => {
        if (job.runId) await advance(job.runId, true);
        if (job.projectId === null) return;
        // Another run of the project may wait for this job (the same key, or the same node).
        for (const other of await runs.running(RUNNING_BATCH, job.projectId)) if (other.id !== job.runId) await advance(other.id);
      };
      go().catch((err: unknown) => log.warn({ err, jobId: job.id }, "could not advance a job's run"));
    },

    async advanceRunning() {
      for (const run of await runs.running(RUNNING_BATCH)) await advance(run.id);
    },
  };
}
