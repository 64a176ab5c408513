// The typed API client: the repository's client/ (openapi-fetch over the types generated from docs/openapi.json,
// client/schema.d.ts), here with the browser's session cookie, and the app's own helpers around it.
import type { Middleware } from 'openapi-fetch';
import { createImageCanvasClient, type components, type paths } from '../../../client';
import { JobEvents } from './job-events';

export type { components, paths };
export type Project = components['schemas']['Project'];
export type Canvas = components['schemas']['Canvas'];
export type ApiErrorBody = components['schemas']['Error'];
export type CanvasSaveBody = paths['/api/user/project/canvas']['post']['requestBody']['content']['application/json'];
// `nodes`/`edges` may be left out of a save (they are then empty); the client always sends both.
export type SavedNode = NonNullable<CanvasSaveBody['nodes']>[number];
export type SavedEdge = NonNullable<CanvasSaveBody['edges']>[number];
export type GenerateBody = paths['/api/image']['post']['requestBody']['content']['application/json'];
export type GenerateResult = paths['/api/image']['post']['responses'][200]['content']['application/json'];
export type UploadResult = paths['/api/upload']['post']['responses'][200]['content']['application/json'];
/** A template as our listing shows it (GET /api/templates): no canvas; that is read when one is used. */
export type TemplateSummary = components['schemas']['TemplateSummary'];
export type SharedProject = components['schemas']['SharedProject'];
export type ProjectMember = components['schemas']['ProjectMember'];
export type ShareRole = ProjectMember['role'];
/** What the signed-in user may do with a project: their own, or shared with them in a role. */
export type ProjectRole = 'owner' | ShareRole;
export type SharedCanvas = components['schemas']['SharedCanvas'];
export type TemplateBody = paths['/api/upload/templates']['post']['requestBody']['content']['application/json'];
export type ApiToken = components['schemas']['ApiToken'];
export type ApiTokenScope = ApiToken['scopes'][number];
export type CreatedApiToken = components['schemas']['CreatedApiToken'];
/** One image model this deployment runs (GET /api/models, docs/api.md "Models"). */
export type ImageModelInfo = components['schemas']['Model'];

const unauthorizedListeners = new Set<() => void>();

/** Called whenever the API answers 401: the session ended (expired, signed out in another tab). */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export function notifyUnauthorized(): void {
  for (const listener of unauthorizedListeners) listener();
}

const watchSession: Middleware = {
  onResponse({ response }) {
    if (response.status === 401) notifyUnauthorized();
  },
};

export const api = createImageCanvasClient({ baseUrl: window.location.origin });
api.use(watchSession);

/** The tab's one follower of the user's job events (GET /api/generations/events), open while a node holds it. */
export const jobEvents = new JobEvents(window.location.origin, notifyUnauthorized);

/** The service's own words for an error body `{ error, details? }`, or `fallback`. */
export function errorMessage(body: unknown, fallback: string): string {
  const error = (body as Partial<ApiErrorBody> | undefined)?.error;
  return typeof error === 'string' && error ? error : fallback;
}

export function errorDetails(body: unknown): string | undefined {
  const details = (body as Partial<ApiErrorBody> | undefined)?.details;
  return typeof details === 'string' && details ? details : undefined;
}

export const NETWORK_ERROR = 'Could not reach the server. Check your connection and try again.';

// ---------------------------------------------------------------------------------------------------------
// Generation jobs and a project's generations (docs/api.md "Generation jobs"; issue 17).

export type GenerationJob = components['schemas']['GenerationJob'];

/** One generation into a project (GET /api/projects/{id}/generations), newest first. */
export type ProjectGeneration = components['schemas']['ProjectGeneration'];
export type ProjectGenerationsPage = paths['/api/projects/{id}/generations']['get']['responses'][200]['content']['application/json'];

/** Where one of a project's generations downloads (a PNG named after the project and the prompt). */
export const generationDownloadPath = (projectId: string, generationId: string) =>
  `/api/projects/${encodeURIComponent(projectId)}/generations/${encodeURIComponent(generationId)}/download`;
