// A task: what a job of one kind does (graphile-worker's task list, Immich's job handlers). The runner
// (./runner.ts) owns everything around it — the job row and its states, the heartbeat, the per-user limits, retries,
// cancels, progress, events and the node's run state in the live document — and resolves the task by the job's
// `task_kind`. A node kind that runs names its task's kind (src/kinds/: `task: { kind }`).
//
// A task gets its job and a context, and either returns its output — which it records through `ctx.commit`, in the
// transaction that records its result (an image stored, a variant, a lineage record), so a job ends succeeded with
// its result recorded or canceled with none — or throws: an AppError (src/errors.ts) is recorded as its code, message
// and details; anything else as `internal` with a reason. A task never writes the job row or the node itself.
import type { Tx } from '../db/index.js';
import type { GenerationJobRow } from '../db/schema.js';
import type { ModelProgress } from '../models/index.js';

/** What a job made: its image and, when it recorded one, its generation (lineage record). */
export interface TaskOutput {
  imageUrl: string;
  generationId?: string;
  /** The model that made it (after a fallback, the fallback). */
  model?: string;
  /** Text beside the image (a model's words). */
  text?: string;
}

export interface TaskContext {
  /** The job as its row stands now (running, attempt `attempts`). */
  job: GenerationJobRow;
  user: { id: string; email: string };
  /** Aborted when the job is canceled (on any instance) or the runner stops. */
  signal: AbortSignal;
  /** Reports progress (shown in the job and its node at most once a second; a preview image is made small). */
  progress: (p: ModelProgress) => void;
  /**
   * Marks the job succeeded with `output`, in `tx` (the task's own transaction that records its result): false when
   * the job was canceled meanwhile — the task must then roll back and throw (nothing recorded).
   */
  commit: (tx: Tx, output: TaskOutput) => Promise<boolean>;
}

/** What a task answers: its output, and what a request held for the job is answered (POST /api/image's body). */
export interface TaskResult<R = unknown> {
  output: TaskOutput;
  response?: R;
}

export interface Task<R = unknown> {
  /** The job kind it runs: a job row's `task_kind`. */
  kind: string;
  run(ctx: TaskContext): Promise<TaskResult<R>>;
}

/** The runner's task list, keyed by kind; a kind registered twice is a programming error. */
export function taskList(tasks: Task[]): ReadonlyMap<string, Task> {
  const list = new Map<string, Task>();
  for (const task of tasks) {
    if (list.has(task.kind)) throw new Error(`two tasks of kind ${JSON.stringify(task.kind)}`);
    list.set(task.kind, task);
  }
  return list;
}
