// Graph runs over HTTP (docs/api.md "Runs", issue 35): start a run of a node, of a node and what follows it, of a
// selection or of everything; ask what it would cost; read one run or the latest; cancel one. Typed from the
// service's OpenAPI document (./run-types.ts); every call answers `{ ok: true, value }` or the service's refusal in
// its own words (`error`, and the nodes it names), never throws.
import { NETWORK_ERROR, notifyUnauthorized } from './client';
import type { Estimate, RunBody, RunView } from './run-types';

export type * from './run-types';

export type RunAnswer<T> = { ok: true; value: T } | { ok: false; status: number; error: string; code?: string; nodeIds: string[] };

const runsPath = (projectId: string) => `/api/projects/${encodeURIComponent(projectId)}/runs`;

async function call<T>(path: string, init: { method: 'GET' | 'POST'; body?: unknown; signal?: AbortSignal }): Promise<RunAnswer<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method,
      credentials: 'same-origin',
      headers: init.body === undefined ? {} : { 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (err) {
    if (init.signal?.aborted) throw err;
    return { ok: false, status: 0, error: NETWORK_ERROR, nodeIds: [] };
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok) return { ok: true, value: body as T };
  if (response.status === 401) notifyUnauthorized();
  const { error, code, nodeIds } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return {
    ok: false,
    status: response.status,
    error: typeof error === 'string' && error ? error : `The service answered ${response.status}`,
    ...(typeof code === 'string' ? { code } : {}),
    nodeIds: Array.isArray(nodeIds) ? nodeIds.filter((id): id is string => typeof id === 'string') : [],
  };
}

export const startRun = (projectId: string, body: RunBody) => call<RunView>(runsPath(projectId), { method: 'POST', body });

export const estimateRun = (projectId: string, body: RunBody, signal?: AbortSignal) => call<Estimate>(`${runsPath(projectId)}/estimate`, { method: 'POST', body, signal });

export const getRun = (projectId: string, runId: string) => call<RunView>(`${runsPath(projectId)}/${encodeURIComponent(runId)}`, { method: 'GET' });

export const latestRuns = (projectId: string, limit: number) => call<{ items: RunView[] }>(`${runsPath(projectId)}?limit=${limit}`, { method: 'GET' });

export const cancelRun = (projectId: string, runId: string) => call<RunView>(`${runsPath(projectId)}/${encodeURIComponent(runId)}/cancel`, { method: 'POST', body: {} });
