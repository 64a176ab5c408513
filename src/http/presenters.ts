// Rows become API shapes here, and only here.
import type {
  ApiToken,
  ListedTemplate,
  Member,
  ProjectActivity,
  SharedProjectRow,
  TemplateCanvasText,
  TemplateContentStats,
  TemplateWithCanvas,
  VersionRow,
} from '../db/repositories/index.js';
import type { GenerationJobView } from '../db/repositories/index.js';
import type { ProjectRow, UserRow } from '../db/schema.js';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { jobRecord, type JobRecord } from '../jobs/runner.js';
import { statusOf } from './error-handler.js';

export const presentProject = (row: Pick<ProjectRow, 'id' | 'userId' | 'name' | 'createdAt'>) => ({
  id: row.id,
  userId: row.userId,
  name: row.name,
  createdDate: row.createdAt.toISOString(),
});

/** When a project's canvas last changed, and its version (GET /api/user/project/activity). */
export const presentProjectActivity = (row: ProjectActivity) => ({ projectId: row.projectId, version: row.version, lastEditedAt: row.editedAt.toISOString() });

/** A project member: the email they were invited with (lower-cased), their role, when they were first invited. */
export const presentMember = (row: Member) => ({ email: row.email, role: row.role, createdAt: row.createdAt.toISOString() });

/** A project shared with the caller: the Project shape of `GET /api/user/project`, the caller's role and the owner. */
export const presentSharedProject = (row: SharedProjectRow) => ({
  ...presentProject(row),
  role: row.role,
  owner: { email: row.ownerEmail, name: row.ownerName },
});

export const presentUser = (row: UserRow) => ({
  id: row.id,
  email: row.email,
  name: row.name,
  image: row.image,
  createdAt: row.createdAt.toISOString(),
  isPro: row.isPro,
  provider: row.provider,
  ...(row.paymentsCustomerId ? { paymentsCustomerId: row.paymentsCustomerId } : {}),
  ...(row.subscriptionStatus ? { subscriptionStatus: row.subscriptionStatus } : {}),
});

/**
 * A listed template as JSON text in two parts around its `mine` value (`head + 'true'|'false' + tail`), so that
 * one rendering serves every caller (src/services/template-listing.ts). The shape of the original system's list
 * (`GET /api/upload/templates`): the author shows only as `{ name, image }` (never an id or email); nodes, edges
 * and viewport are the stored JSON texts (validated when published), sent as they are.
 */
export const presentTemplateParts = (row: ListedTemplate, canvas: Omit<TemplateCanvasText, 'id'>) => ({
  head:
    `{"id":${JSON.stringify(row.id)},"templateName":${JSON.stringify(row.name)},` +
    `"user":${JSON.stringify({ name: row.authorName, image: row.authorImage })},` +
    `"canvas":{"nodes":${canvas.nodes},"edges":${canvas.edges},"viewport":${canvas.viewport}},` +
    `"createdAt":${JSON.stringify(row.createdAt.toISOString())},"mine":`,
  tail: '}',
});

/** A template in our web client's listing (`GET /api/templates`), in two parts around `mine` as above. */
export const presentTemplateSummaryParts = (row: ListedTemplate, stats: Omit<TemplateContentStats, 'id' | 'bytes'>) => {
  const summary = {
    id: row.id,
    name: row.name,
    author: { name: row.authorName, image: row.authorImage },
    nodeCount: stats.nodeCount,
    edgeCount: stats.edgeCount,
    previewUrl: stats.previewUrl,
    createdAt: row.createdAt.toISOString(),
  };
  return { head: `${JSON.stringify(summary).slice(0, -1)},"mine":`, tail: '}' };
};

/** One template with its canvas (`GET /api/templates/:id`) as JSON text: the stored texts, sent as they are. */
export const presentTemplateCanvasJson = (row: TemplateWithCanvas): string =>
  `{"id":${JSON.stringify(row.id)},"name":${JSON.stringify(row.name)},"canvas":{"nodes":${row.nodes},"edges":${row.edges},"viewport":${row.viewport}}}`;

/** A version of a canvas's history (without its state). */
export const presentVersion = (row: VersionRow) => ({
  id: row.id,
  kind: row.kind,
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  createdBy: row.createdBy,
});

/** A personal API token as listed: never its secret or hash, only the prefix it starts with. */
export const presentApiToken = (row: ApiToken) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt?.toISOString() ?? null,
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
});

/** A job as the API answers it (GET /api/generations/:id, and each event of the stream): its error with the HTTP status POST /api/image would have answered. */
export type JobJson = Omit<JobRecord, 'error'> & { error: { status: number; error: string; details?: string } | null };

const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);

/**
 * A job's recorded error as the API shows it: the status its code maps to (statusOf). An event recorded before codes
 * were (it carries its `status`) is shown as it was.
 */
function presentJobError(error: { code?: unknown; status?: unknown; error: string; details?: string } | null): JobJson['error'] {
  if (!error) return null;
  const status = isErrorCode(error.code) ? statusOf(error.code) : typeof error.status === 'number' ? error.status : 500;
  return { status, error: error.error, ...(error.details ? { details: error.details } : {}) };
}

export const presentJob = (view: GenerationJobView): JobJson => presentJobEvent(jobRecord(view) as unknown as Record<string, unknown>);

/** A recorded job event (jobs/runner.ts JobRecord) as the API shows it. */
export function presentJobEvent(job: Record<string, unknown>): JobJson {
  const { error, ...rest } = job as unknown as JobRecord;
  return { ...(rest as Omit<JobRecord, 'error'>), error: presentJobError(error) };
}
