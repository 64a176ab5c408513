// Messages between the orchestrator (run.ts: the service and PostgreSQL) and the load client's own process
// (editors.ts). Everything here crosses the IPC channel, so it is plain data.

/** One simulated editor: a signed-in user's session cookie and one project of that user. */
export interface EditorSpec {
  userId: string;
  projectId: string;
  /** The Cookie header a browser would send to /api/user/project/canvas. */
  cookie: string;
  /** Seed of the editor's canvas (bench/api.ts makeCanvas): every editor has its own content. */
  seed: number;
}

export interface StepRequest {
  /** Editors 0..editors-1 take part. */
  editors: number;
  durationMs: number;
  /** How long to wait for saves still in flight when the step ends before they count as errors. */
  drainMs: number;
  /** Verification GETs in flight at once. */
  verifyConcurrency: number;
}

export interface StepResult {
  editors: number;
  durationMs: number;
  /** Ticks scheduled (one per editor per second of the step). */
  ticks: number;
  /** Acknowledged saves (2xx with the canvas and its new version). */
  saves: number;
  /** Ticks skipped because the editor's previous save was still in flight. */
  late: number;
  errors: number;
  /** Errors by kind ("409", "500", "timeout", "ECONNRESET", …). */
  errorKinds: Record<string, number>;
  firstErrors: string[];
  /** Latency percentiles of acknowledged saves, from the scheduled tick to the last response byte. */
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The same, from the moment the request was handed to undici (differs when the client lags). */
  sendP99Ms: number;
  /** How late the client's timers fired (scheduled tick → request start), p99 and max. */
  timerLagP99Ms: number;
  timerLagMaxMs: number;
  /** Editors whose stored version is lower than their last acknowledged one, or whose content differs at it. */
  lost: number;
  /** …of which: same version, other content. */
  contentMismatch: number;
  /** Editors whose stored version is higher than acknowledged (a save applied but its answer lost). */
  ahead: number;
  verifyErrors: number;
  verifyMs: number;
  /** Bytes of one save request body and of one canvas response (the first editor's). */
  requestBytes: number;
  responseBytes: number;
  /** The client process during the step: CPU seconds per second (1.0 = one core) and event-loop utilisation. */
  clientCpu: number;
  clientElu: number;
  clientRssMiB: number;
}

export type ToClient =
  | { type: 'add'; origin: string; editors: EditorSpec[] }
  | { type: 'step'; step: StepRequest }
  | { type: 'close' };

export type FromClient =
  | { type: 'ready' }
  | { type: 'added'; total: number }
  /** The load part of a step is over (the read-back comes next): the orchestrator's resource window ends. */
  | { type: 'loaded' }
  | { type: 'result'; result: StepResult }
  | { type: 'progress'; line: string }
  | { type: 'failed'; error: string };
