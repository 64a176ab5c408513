// The typed client's runs of a project's graph (docs/api.md "Runs"): start one, estimate one, read one, cancel one, and
// follow one to its end through the user's event stream (`event: run` on GET /api/generations/events, with the same
// reconnection and Last-Event-ID as the job events). createImageCanvasClient (index.ts) wires it in as `runs`.
import type { components, paths } from './schema.js';

export type RunView = components['schemas']['Run'];
export type RunJob = components['schemas']['RunJob'];
export type RunEstimate = components['schemas']['RunEstimate'];
export type RunStatus = RunView['status'];
export type RunJobStatus = RunJob['status'];
export type RunMode = NonNullable<paths['/api/projects/{id}/runs']['post']['requestBody']>['content']['application/json']['mode'];

/** What to run: `node` (the node after whatever it depends on that is stale), `downstream` (the node and everything
 * after it), `selection` (those nodes, after what they depend on that is stale), `all` (every runnable node). */
export interface RunRequest {
  mode: RunMode;
  /** `node` and `downstream`: exactly one id; `selection`: at least one; `all`: none. */
  nodeIds?: string[];
}

/** The states a run does not leave. */
export const FINISHED_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'canceled'];
export const isRunFinished = (run: Pick<RunView, 'status'>): boolean => FINISHED_RUN_STATUSES.includes(run.status);

export interface FollowRunOptions {
  signal?: AbortSignal;
  /** Every state of the run seen on the way (the same state may be reported twice), the last one finished. */
  onUpdate?: (run: RunView) => void;
}

export interface RunsHelpers {
  /** `POST /api/projects/{projectId}/runs`: plans the run and queues its first jobs → the run (`running`, or already
   * `succeeded` when every job came from the cache). Refusals throw ImageCanvasError (400 `invalid_run`, 402 budget…). */
  start(projectId: string, run: RunRequest, options?: { signal?: AbortSignal }): Promise<RunView>;
  /** `POST /api/projects/{projectId}/runs/estimate`: what the same run would cost, per node and in total; nothing runs. */
  estimate(projectId: string, run: RunRequest, options?: { signal?: AbortSignal }): Promise<RunEstimate>;
  /** `GET /api/projects/{projectId}/runs/{runId}`. */
  get(projectId: string, runId: string, options?: { signal?: AbortSignal }): Promise<RunView>;
  /** `POST /api/projects/{projectId}/runs/{runId}/cancel` → the run, `canceled` (409 `run_finished` once it ended). */
  cancel(projectId: string, runId: string, options?: { signal?: AbortSignal }): Promise<RunView>;
  /** The run once it has ended (`succeeded`, `failed` or `canceled`), followed through its events; it reads the run
   * each time the stream opens, so a change made before the stream listened is not waited for in vain. A run's events
   * go to the stream of whoever started it: for a run someone else started, read it with `get`. */
  follow(projectId: string, runId: string, options?: FollowRunOptions): Promise<RunView>;
}

/** What the runs need of the client they are part of (index.ts). */
export interface RunsDeps {
  baseUrl: string;
  auth: Record<string, string>;
  send: (request: Request) => Promise<Response>;
  /** The error a refused answer is thrown as (ImageCanvasError). */
  refusal: (res: Response) => Promise<Error>;
  /** The user's event stream, handing over each `run` event. */
  followRunEvents: (options: { signal: AbortSignal; onOpen: () => Promise<void>; onRun: (run: RunView) => void }) => Promise<void>;
}

export function createRuns({ baseUrl, auth, send, refusal, followRunEvents }: RunsDeps): RunsHelpers {
  const runsOf = (projectId: string) => `${baseUrl}/api/projects/${encodeURIComponent(projectId)}/runs`;

  async function call<T>(method: 'GET' | 'POST', url: string, body: unknown, signal: AbortSignal | undefined): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...auth };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await send(new Request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal }));
    if (!res.ok) throw await refusal(res);
    return (await res.json()) as T;
  }
  const bodyOf = ({ mode, nodeIds }: RunRequest) => (nodeIds === undefined ? { mode } : { mode, nodeIds });

  const get = (projectId: string, runId: string, { signal }: { signal?: AbortSignal } = {}) =>
    call<RunView>('GET', `${runsOf(projectId)}/${encodeURIComponent(runId)}`, undefined, signal);

  async function follow(projectId: string, runId: string, { signal, onUpdate }: FollowRunOptions = {}): Promise<RunView> {
    const following = new AbortController();
    const stop = () => following.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    let finished: RunView | undefined;
    const see = (run: RunView) => {
      if (run.id !== runId || finished) return;
      onUpdate?.(run);
      if (isRunFinished(run)) {
        finished = run;
        following.abort();
      }
    };
    try {
      signal?.throwIfAborted();
      await followRunEvents({ signal: following.signal, onOpen: async () => see(await get(projectId, runId, { signal: following.signal })), onRun: see });
    } catch (err) {
      if (!finished) throw err;
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    if (finished) return finished;
    throw signal?.reason ?? new Error('runs.follow was aborted');
  }

  return {
    start: (projectId, run, { signal } = {}) => call<RunView>('POST', runsOf(projectId), bodyOf(run), signal),
    estimate: (projectId, run, { signal } = {}) => call<RunEstimate>('POST', `${runsOf(projectId)}/estimate`, bodyOf(run), signal),
    get,
    cancel: (projectId, runId, { signal } = {}) => call<RunView>('POST', `${runsOf(projectId)}/${encodeURIComponent(runId)}/cancel`, undefined, signal),
    follow,
  };
}
