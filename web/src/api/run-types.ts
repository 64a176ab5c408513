// The shapes of graph runs over HTTP (docs/api.md "Runs"): what ./runs.ts sends and answers, from the types generated
// from docs/openapi.json (client/schema.d.ts). Type-only, so pure modules (canvas/runs.ts) and their unit tests use them.
import type { components, paths } from '../../../client/schema.js';

type Schemas = components['schemas'];

export type RunView = Schemas['Run'];
export type RunJob = Schemas['RunJob'];
export type Estimate = Schemas['RunEstimate'];
export type EstimateNode = Estimate['nodes'][number];
/** The body of POST /api/projects/{id}/runs (and …/estimate). */
export type RunBody = NonNullable<paths['/api/projects/{id}/runs']['post']['requestBody']>['content']['application/json'];
export type RunMode = RunBody['mode'];
export type RunStatus = RunView['status'];
export type RunJobStatus = RunJob['status'];
