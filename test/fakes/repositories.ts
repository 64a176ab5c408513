// In-memory repositories for the services' unit tests, typed against the real repository interfaces
// (src/db/repositories/). They keep the rules the services rely on: ownership and roles in the same call, unique users,
// the canvas id namespace, running jobs that count while their heartbeat lives, live documents as snapshot + update log whose every change steps the
// canvas version, and transactions that roll back when their function throws.
// Times that PostgreSQL compares at microsecond precision are compared here at millisecond precision, and rows
// made one after another get increasing times even inside one transaction (where PostgreSQL's now() is one).
// The repository contract (test/contract/repositories/) holds them to the real repositories' behaviour: extend it
// with any behaviour a fake gains.
import { randomUUID } from 'node:crypto';
import type { Transactions, Tx } from '../../src/db/index.js';
import {
  CanvasIdTakenError,
  type CanvasesRepository,
  type CollabRepository,
  type CompactOptions,
  DEFAULT_HEARTBEAT_LAPSE_MS,
  type GenerationJobsRepository,
  type GenerationsRepository,
  type NewGeneration,
  type ProjectsRepository,
  type ProjectRole,
  type AccessRole,
  type Actor,
  type SharingRepository,
  type MemberRole,
  type Repositories,
  type SubscriptionsRepository,
  type TemplatesRepository,
  type UsersRepository,
  type WebhookReceiptsRepository,
  type SessionRevocation,
  type SessionRevocationsRepository,
} from '../../src/db/repositories/index.js';
import type { GenerationRow, ProjectRow, UserRow } from '../../src/db/schema.js';

interface CanvasRecord {
  id: string;
  projectId: string;
  version: number;
  /** The last change (canvases.updated_at); unset: when the row was made. */
  updatedAt?: Date;
  /** A canvas saved before live documents (migration 0011), not yet moved into its document. */
  legacy?: { nodes: unknown[]; edges: unknown[] } | null;
}

/** A project's live document as stored (collab_snapshots, collab_updates, collab_versions). */
interface CollabRecord {
  snapshot: Uint8Array | null;
  updates: Uint8Array[];
  /** Restore points (kind `auto`), oldest first. */
  restorePoints: { at: number; state: Uint8Array }[];
}

interface SubscriptionRecord {
  id: string;
  userId: string;
  productId: string | null;
  status: string | null;
  hasAccess: boolean;
  grantsPro: boolean;
  changedAt: string;
  /** Order of the last write (the database's clock_timestamp()). */
  updatedAt: number;
}

interface TemplateRecord {
  id: string;
  userId: string;
  name: string;
  nodes: string;
  edges: string;
  viewport: string;
  createdAt: Date;
}

interface JobRecord {
  userId: string;
  projectId: string | null;
  nodeId: string | null;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
  attempts: number;
  heartbeatAt: number | null;
  /** What it holds of the free quota while it runs (generations.reserve); null: nothing. */
  reservedUsd: number | null;
}

interface MemberRecord {
  projectId: string;
  email: string;
  role: MemberRole;
  invitedBy: string;
  createdAt: Date;
}

/** Everything the fakes store; `transaction` snapshots it and puts it back when the function throws. */
export interface FakeState {
  users: Map<string, UserRow>;
  projects: Map<string, ProjectRow>;
  /** By project id. */
  canvases: Map<string, CanvasRecord>;
  /** By project id. */
  collab: Map<string, CollabRecord>;
  generations: GenerationRow[];
  /** Generation jobs by id (what the repositories read of them): a running one counts while its heartbeat (ms) lives. */
  jobs: Map<string, JobRecord>;
  /** Model calls that recorded no generation (the free quota counts them for a day). */
  spentCalls: { userId: string; at: number; costUsd?: number }[];
  subscriptions: Map<string, SubscriptionRecord>;
  /** Webhook id → received at (ms). */
  webhooks: Map<string, { type: string; receivedAt: number }>;
  templates: Map<string, TemplateRecord>;
  /** By `<project id> <email>`. */
  members: Map<string, MemberRecord>;
  /** By project id. */
  links: Map<string, { tokenHash: string; createdBy: string; createdAt: Date }>;
}

const emptyState = (): FakeState => ({
  users: new Map(),
  projects: new Map(),
  canvases: new Map(),
  collab: new Map(),
  generations: [],
  jobs: new Map(),
  spentCalls: [],
  subscriptions: new Map(),
  webhooks: new Map(),
  templates: new Map(),
  members: new Map(),
  links: new Map(),
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** A row as a value of its own (the real repositories answer new objects each time), or null. */
const copy = <T extends object>(row: T | undefined): T | null => (row ? { ...row } : null);

/** A foreign-key violation as PostgreSQL reports it (the driver's error carries the SQLSTATE in `code`). */
const foreignKeyViolation = (table: string) => Object.assign(new Error(`insert or update on table "${table}" violates foreign key constraint`), { code: '23503' });

/** Words much as `to_tsvector('simple', …)` and `prefixQuery` (src/db/repositories/generations.ts) find them: lower-cased runs of letters, marks and digits. */
const wordsOf = (text: string) => (text.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).slice(0, 32);
/** The prompt search: every word of `q` is a word of the prompt, the last one a prefix of one; no word matches nothing. */
function promptMatches(prompt: string, q: string): boolean {
  const wanted = wordsOf(q);
  const words = wordsOf(prompt);
  return wanted.length > 0 && wanted.every((w, i) => (i === wanted.length - 1 ? words.some((word) => word.startsWith(w)) : words.includes(w)));
}
/** The transaction handle the fakes pass around (they ignore it). */
const FAKE_TX = Object.freeze({ fake: 'transaction' }) as unknown as Tx;

export interface FakeRepositories extends Omit<Repositories, 'rateLimits' | 'versions' | 'apiTokens' | 'generationsGallery' | 'spend'> {
  generationJobs: Pick<GenerationJobsRepository, 'insert' | 'markRunning' | 'finish'>;
  state: FakeState;
  /** A user row as sign-in would create it. */
  addUser(values: Partial<UserRow> & { email: string }): UserRow;
}

/** `heartbeatLapseMs`: a running job whose heartbeat is older counts for nothing (JOBS_HEARTBEAT_LAPSE_MS). */
export function createFakeRepositories({ heartbeatLapseMs = DEFAULT_HEARTBEAT_LAPSE_MS } = {}): FakeRepositories {
  let state = emptyState();
  let clock = 0;
  const tick = () => ++clock;
  /** Now, strictly after the last time it answered: rows made one after another never share a creation time. */
  let lastNow = 0;
  const increasingNow = () => new Date((lastNow = Math.max(Date.now(), lastNow + 1)));

  const users: UsersRepository = {
    async findById(id) {
      return copy(state.users.get(id));
    },
    async findBySubject(provider, subject) {
      return copy([...state.users.values()].find((u) => u.provider === provider && u.providerSubject === subject));
    },
    async insertIfAbsent(values) {
      const taken = [...state.users.values()].some(
        (u) => u.email === values.email || (u.provider === values.provider && u.providerSubject === values.providerSubject),
      );
      if (taken) return null;
      return { ...addUser(values) };
    },
    async lockForUpdate(id) {
      const user = state.users.get(id);
      return user ? { isPro: user.isPro } : null;
    },
    async deriveSubscriptionState(id, paymentsCustomerId) {
      const user = state.users.get(id)!;
      const mine = [...state.subscriptions.values()].filter((s) => s.userId === id);
      const ordered = mine.sort(
        (a, b) => Number(b.grantsPro) - Number(a.grantsPro) || Date.parse(b.changedAt) - Date.parse(a.changedAt) || b.updatedAt - a.updatedAt,
      );
      user.isPro = mine.some((s) => s.grantsPro);
      user.subscriptionStatus = ordered[0]?.status ?? null;
      user.paymentsCustomerId = paymentsCustomerId;
      return { isPro: user.isPro, subscriptionStatus: user.subscriptionStatus };
    },
  };

  function addUser(values: Partial<UserRow> & { email: string }): UserRow {
    const row: UserRow = {
      id: randomUUID(),
      name: values.email.split('@')[0],
      image: '',
      provider: 'oauth',
      providerSubject: `sub-${values.email}`,
      createdAt: new Date(),
      isPro: false,
      paymentsCustomerId: null,
      subscriptionStatus: null,
      subscriptionEventAt: null,
      ...values,
    };
    state.users.set(row.id, row);
    return row;
  }

  const ownedProject = (userId: string, projectId: string) => {
    const project = state.projects.get(projectId);
    return project && project.userId === userId ? project : undefined;
  };
  const memberKey = (projectId: string, email: string) => `${projectId} ${email}`;
  /** The user's role on the project (src/db/repositories/project-access.ts `roleOf`), null when none. */
  const roleOn = (userId: string, projectId: string): ProjectRole | null => {
    const project = state.projects.get(projectId);
    if (!project) return null;
    if (project.userId === userId) return 'owner';
    const email = state.users.get(userId)?.email.toLowerCase();
    return (email && state.members.get(memberKey(projectId, email))?.role) || null;
  };
  /** What the actor holds on the project (./project-access.ts `accessRoleOf`), null when nothing. */
  const accessOn = (actor: Actor, projectId: string): AccessRole | null => {
    if ('userId' in actor) return roleOn(actor.userId, projectId);
    return state.links.get(projectId)?.tokenHash === actor.linkHash ? 'link' : null;
  };

  const projects: ProjectsRepository = {
    async insert({ userId, name }) {
      if (!state.users.has(userId)) return null;
      const row: ProjectRow = { id: randomUUID(), userId, name, createdAt: increasingNow() };
      state.projects.set(row.id, row);
      return { ...row };
    },
    async listByOwner(userId) {
      return [...state.projects.values()]
        .filter((p) => p.userId === userId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
        .map((p) => ({ ...p }));
    },
    async renameOwned(userId, projectId, name) {
      const project = ownedProject(userId, projectId);
      if (!project) return null;
      project.name = name;
      return { ...project };
    },
    async deleteOwned(userId, projectId) {
      if (!ownedProject(userId, projectId)) return false;
      state.projects.delete(projectId);
      state.canvases.delete(projectId);
      state.collab.delete(projectId);
      for (const [key, m] of state.members) if (m.projectId === projectId) state.members.delete(key);
      state.links.delete(projectId);
      for (const g of state.generations) if (g.projectId === projectId) g.projectId = null; // ON DELETE SET NULL
      return true;
    },
    async listActivity(userId) {
      return [...state.projects.values()]
        .filter((p) => roleOn(userId, p.id))
        .map((p) => {
          const c = state.canvases.get(p.id);
          return { projectId: p.id, version: c?.version ?? 0, editedAt: c?.updatedAt ?? p.createdAt };
        });
    },
  };

  /** A running job whose heartbeat has not lapsed (its instance is alive). */
  const live = (j: JobRecord) => j.status === 'running' && j.heartbeatAt !== null && j.heartbeatAt >= Date.now() - heartbeatLapseMs;
  const userRunning = (userId: string) => [...state.jobs.values()].some((j) => j.userId === userId && live(j));
  /** The user's live jobs that hold a reservation of the free quota. */
  const holding = (userId: string) => [...state.jobs.values()].filter((j) => j.userId === userId && live(j) && j.reservedUsd !== null);

  const canvases: CanvasesRepository = {
    async current(actor, projectId) {
      const role = accessOn(actor, projectId);
      if (!role) return null;
      const c = state.canvases.get(projectId);
      const editors = [...state.members.values()].filter((m) => m.projectId === projectId && m.role === 'editor').map((m) => m.email);
      const generating =
        ('userId' in actor && userRunning(actor.userId)) ||
        userRunning(state.projects.get(projectId)!.userId) ||
        [...state.users.values()].some((u) => editors.includes(u.email) && userRunning(u.id));
      return { id: c?.id ?? null, version: c?.version ?? null, generating, role };
    },
    async createEmpty({ id, projectId, userId, writers }) {
      // INSERT … ON CONFLICT (project_id) DO NOTHING: only the primary key (the id) can still conflict.
      const role = roleOn(userId, projectId);
      if (!role || !writers.includes(role) || state.canvases.has(projectId)) return;
      if ([...state.canvases.values()].some((c) => c.id === id)) throw new CanvasIdTakenError();
      state.canvases.set(projectId, { id, projectId, version: 0 });
    },
  };

  const documentOf = (projectId: string) => {
    let record = state.collab.get(projectId);
    if (!record) state.collab.set(projectId, (record = { snapshot: null, updates: [], restorePoints: [] }));
    return record;
  };

  /** Compactions of each project, one after another (the repository's advisory lock). */
  const compacting = new Map<string, Promise<unknown>>();
  const compactOnce = async (projectId: string, { merge, restorePointMs }: CompactOptions) => {
    const record = state.collab.get(projectId);
    if (!record || record.updates.length === 0) return 0;
    // What was read is merged and deleted, not what was appended while the merge ran.
    const read = record.updates.slice();
    record.snapshot = (await merge({ snapshot: record.snapshot, updates: read })).slice();
    record.updates = record.updates.slice(read.length);
    const newest = record.restorePoints.at(-1);
    if (!newest || newest.at <= Date.now() - restorePointMs) record.restorePoints.push({ at: Date.now(), state: record.snapshot });
    return read.length;
  };

  const collab: CollabRepository = {
    async append(changes) {
      // One statement: a change of a project that does not exist fails all of them.
      if (changes.some((c) => !state.projects.has(c.projectId))) throw foreignKeyViolation('collab_updates');
      const counts = new Map<string, number>();
      for (const { projectId, update } of changes) {
        if (update) documentOf(projectId).updates.push(update.slice());
        counts.set(projectId, (counts.get(projectId) ?? 0) + 1);
      }
      const versions = new Map<string, number>();
      for (const [projectId, n] of counts) {
        const c = state.canvases.get(projectId);
        if (c) Object.assign(c, { version: c.version + n, updatedAt: increasingNow() });
        else state.canvases.set(projectId, { id: randomUUID(), projectId, version: n, updatedAt: increasingNow() });
        versions.set(projectId, state.canvases.get(projectId)!.version);
      }
      return versions;
    },
    async load(projectId) {
      const record = state.collab.get(projectId);
      const legacy = state.canvases.get(projectId)?.legacy;
      return {
        snapshot: record?.snapshot?.slice() ?? null,
        updates: (record?.updates ?? []).map((u) => u.slice()),
        legacy: legacy ? structuredClone(legacy) : null,
        version: state.canvases.get(projectId)?.version ?? 0,
      };
    },
    async migrateLegacy(projectId, documentState) {
      const c = state.canvases.get(projectId);
      if (!c?.legacy) return false;
      c.legacy = null;
      documentOf(projectId).snapshot = documentState.slice();
      return true;
    },
    compact(projectId, options) {
      const compacted = (compacting.get(projectId) ?? Promise.resolve()).catch(() => undefined).then(() => compactOnce(projectId, options));
      compacting.set(projectId, compacted);
      return compacted;
    },
  };

  const generations: GenerationsRepository = {
    async insert(generation: NewGeneration) {
      if (state.generations.some((g) => g.id === generation.id)) throw new Error(`duplicate generation id ${generation.id}`);
      if (!state.users.has(generation.userId)) throw foreignKeyViolation('generations');
      const lineage = { jobId: null, projectId: null, nodeId: null, canvasVersion: null, modelVersion: null, inputs: null, outputSha256: null, outputBytes: null, queuedMs: null, modelMs: null, totalMs: null, cost: null, parentIds: [], promptInMetadata: false, modelText: null };
      state.generations.push({ createdAt: new Date(), ...lineage, ...generation, modelText: generation.modelText ?? null, cacheKey: generation.cacheKey ?? null, seed: generation.seed ?? null });
    },
    async listByUser(userId, { after, limit, q, projectId, model }) {
      const key = (g: { createdAt: Date; id: string }) => [g.createdAt.getTime(), g.id] as const;
      const before = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) => {
        const [at, ai] = key(a);
        const [bt, bi] = key(b);
        return at < bt || (at === bt && ai < bi);
      };
      return state.generations
        .filter((g) => g.userId === userId && (!after || before(g, after)))
        .filter((g) => (q === undefined || promptMatches(g.prompt, q)) && (projectId === undefined || g.projectId === projectId) && (model === undefined || g.model === model))
        .sort((a, b) => (before(a, b) ? 1 : before(b, a) ? -1 : 0))
        .slice(0, limit)
        .map((g) => structuredClone(g));
    },
    async monthSpend(userId) {
      const now = new Date();
      const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
      const mine = state.generations.filter((g) => g.userId === userId && g.createdAt.getTime() >= start);
      const priced = mine.filter((g) => g.cost?.currency === 'USD');
      return { month: now.toISOString().slice(0, 7), generations: mine.length, priced: priced.length, usd: priced.reduce((sum, g) => sum + g.cost!.amount, 0) };
    },
    async countLastDayWithRunning(userId) {
      const since = Date.now() - DAY_MS;
      const recorded = state.generations.filter((g) => g.userId === userId && g.createdAt.getTime() > since).length;
      const spent = state.spentCalls.filter((c) => c.userId === userId && c.at > since).length;
      return recorded + spent + holding(userId).length;
    },
    async monthBudgetUsed(userId) {
      const now = new Date();
      const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
      const recorded = state.generations.filter((g) => g.userId === userId && g.createdAt.getTime() >= start && g.cost?.currency === 'USD').reduce((sum, g) => sum + g.cost!.amount, 0);
      const spent = state.spentCalls.filter((c) => c.userId === userId && c.at >= start).reduce((sum, c) => sum + (c.costUsd ?? 0), 0);
      const running = holding(userId).reduce((sum, j) => sum + (j.reservedUsd ?? 0), 0);
      return recorded + spent + running;
    },
    async reserve(jobId, usd) {
      const job = state.jobs.get(jobId);
      if (job?.status !== 'running') return false;
      job.reservedUsd = usd;
      return true;
    },
    async release(jobId) {
      const job = state.jobs.get(jobId);
      if (job) job.reservedUsd = null;
    },
    async recordSpentCall(userId, _tx, costUsd) {
      if (!state.users.has(userId)) throw foreignKeyViolation('spent_model_calls');
      const now = new Date();
      const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
      const kept = state.spentCalls.filter((c) => c.at > Date.now() - DAY_MS || (c.costUsd !== undefined && c.at >= monthStart));
      state.spentCalls = [...kept, { userId, at: Date.now(), costUsd }];
    },
    async canvasVersion(projectId) {
      return state.canvases.get(projectId)?.version ?? null;
    },
    async parentsOf(urls, { userId, projectId }) {
      return state.generations
        .filter((g) => urls.includes(g.outputImageUrl) && (g.userId === userId || (projectId && g.projectId === projectId)))
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
        .map((g) => g.id);
    },
  };

  // The part of the generation-jobs repository the others read: a job's state and heartbeat.
  const generationJobs: Pick<GenerationJobsRepository, 'insert' | 'markRunning' | 'finish'> = {
    async insert(job) {
      if (!state.users.has(job.userId)) return false;
      if (state.jobs.has(job.id)) throw new Error(`duplicate job id ${job.id}`);
      state.jobs.set(job.id, { userId: job.userId, projectId: job.projectId ?? null, nodeId: job.nodeId ?? null, status: 'queued', attempts: 0, heartbeatAt: null, reservedUsd: null });
      return true;
    },
    async markRunning(id) {
      const job = state.jobs.get(id);
      if (job?.status !== 'queued') return null;
      Object.assign(job, { status: 'running', attempts: job.attempts + 1, heartbeatAt: Date.now(), reservedUsd: null });
      return job.attempts;
    },
    async finish(id, attempt, outcome) {
      const job = state.jobs.get(id);
      if (job?.status !== 'running' || job.attempts !== attempt) return false;
      Object.assign(job, { status: outcome.status, heartbeatAt: null });
      return true;
    },
  };

  const subscriptions: SubscriptionsRepository = {
    async findOrdered(id, at) {
      const s = state.subscriptions.get(id);
      return s ? { userId: s.userId, hasAccess: s.hasAccess, newer: Date.parse(s.changedAt) > Date.parse(at), changedAt: s.changedAt } : null;
    },
    async findPreUpgrade(id, at, createdAt) {
      const s = state.subscriptions.get(id);
      if (!s) return null;
      const covers = createdAt === null ? true : Date.parse(createdAt) <= Date.parse(s.changedAt);
      return { hasAccess: s.hasAccess, newer: Date.parse(s.changedAt) > Date.parse(at), covers, changedAt: s.changedAt };
    },
    async update(id, values) {
      const s = state.subscriptions.get(id);
      if (s) Object.assign(s, values, { updatedAt: tick() });
    },
    async insert(id, userId, values) {
      if (state.subscriptions.has(id)) throw new Error(`subscription ${id} exists`);
      if (!state.users.has(userId)) throw foreignKeyViolation('subscriptions');
      state.subscriptions.set(id, { id, userId, ...values, updatedAt: tick() });
    },
    async stopGranting(id) {
      const s = state.subscriptions.get(id);
      if (s?.grantsPro) Object.assign(s, { grantsPro: false, updatedAt: tick() });
    },
  };

  const webhookReceipts: WebhookReceiptsRepository = {
    async record(id, type) {
      if (state.webhooks.has(id)) return false;
      state.webhooks.set(id, { type, receivedAt: Date.now() });
      return true;
    },
    async pruneOlderThan(days, limit) {
      const expired = [...state.webhooks].filter(([, w]) => w.receivedAt < Date.now() - days * DAY_MS).slice(0, limit);
      for (const [id] of expired) state.webhooks.delete(id);
      return expired.length;
    },
  };

  const newestTemplates = (limit: number) =>
    [...state.templates.values()].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).slice(0, limit);
  const templates: TemplatesRepository = {
    async insert(template) {
      if (!state.users.has(template.userId)) return null;
      const row: TemplateRecord = { id: randomUUID(), ...template, createdAt: increasingNow() };
      state.templates.set(row.id, row);
      return { id: row.id };
    },
    async lockUser(userId) {
      return state.users.has(userId);
    },
    async countByUser(userId) {
      return [...state.templates.values()].filter((t) => t.userId === userId).length;
    },
    async fingerprint(limit) {
      const rows = newestTemplates(limit).map((t) => [t.id, state.users.get(t.userId)!.name, state.users.get(t.userId)!.image]);
      return rows.length ? JSON.stringify(rows) : 'none';
    },
    snapshot(fn) {
      return fn(FAKE_TX);
    },
    async listNewest(limit) {
      return newestTemplates(limit).map((t) => {
        const author = state.users.get(t.userId)!;
        return { id: t.id, userId: t.userId, name: t.name, createdAt: t.createdAt, authorName: author.name, authorImage: author.image };
      });
    },
    async contentStats(ids) {
      return ids.flatMap((id) => {
        const t = state.templates.get(id);
        if (!t) return [];
        const nodes = JSON.parse(t.nodes) as Array<{ data?: { image?: unknown } }>;
        const isWebUrl = (v: unknown): v is string => typeof v === 'string' && v.length <= 2048 && (/^https?:\/\//i.test(v) || v.startsWith('/'));
        const previewUrl = nodes.map((n) => n.data?.image).find(isWebUrl) ?? null;
        const bytes = Buffer.byteLength(t.nodes) + Buffer.byteLength(t.edges) + Buffer.byteLength(t.viewport);
        return [{ id, bytes, nodeCount: nodes.length, edgeCount: (JSON.parse(t.edges) as unknown[]).length, previewUrl }];
      });
    },
    async canvases(ids) {
      return ids.flatMap((id) => {
        const t = state.templates.get(id);
        return t ? [{ id, nodes: t.nodes, edges: t.edges, viewport: t.viewport }] : [];
      });
    },
    async findWithCanvas(templateId) {
      const t = state.templates.get(templateId);
      return t ? { id: t.id, name: t.name, userId: t.userId, nodes: t.nodes, edges: t.edges, viewport: t.viewport } : null;
    },
    async findAuthor(templateId) {
      const t = state.templates.get(templateId);
      return t ? { userId: t.userId } : null;
    },
    async deleteOwned(userId, templateId) {
      if (state.templates.get(templateId)?.userId !== userId) return false;
      return state.templates.delete(templateId);
    },
  };

  const sharing: SharingRepository = {
    async access(actor, projectId) {
      const role = accessOn(actor, projectId);
      if (!role) return null;
      const project = state.projects.get(projectId)!;
      const owner = state.users.get(project.userId)!;
      return { role, projectName: project.name, ownerId: owner.id, ownerEmail: owner.email, ownerName: owner.name };
    },
    async lockProject(projectId) {
      return state.projects.has(projectId);
    },
    async listMembers(projectId) {
      return [...state.members.values()]
        .filter((m) => m.projectId === projectId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.email < b.email ? -1 : 1))
        .map(({ email, role, createdAt }) => ({ email, role, createdAt }));
    },
    async upsertMember(member) {
      if (!state.projects.has(member.projectId)) throw foreignKeyViolation('project_members');
      if (member.email !== member.email.toLowerCase()) throw Object.assign(new Error('new row for relation "project_members" violates check constraint'), { code: '23514' });
      const key = memberKey(member.projectId, member.email);
      const existing = state.members.get(key);
      if (existing) existing.role = member.role;
      else state.members.set(key, { ...member, createdAt: increasingNow() });
      const { email, role, createdAt } = state.members.get(key)!;
      return { member: { email, role, createdAt }, created: !existing };
    },
    async removeMember(projectId, email) {
      return state.members.delete(memberKey(projectId, email));
    },
    async listSharedWith(userId) {
      const email = state.users.get(userId)?.email.toLowerCase();
      return [...state.members.values()]
        .filter((m) => m.email === email)
        .map((m) => {
          const p = state.projects.get(m.projectId)!;
          const owner = state.users.get(p.userId)!;
          return { id: p.id, userId: p.userId, name: p.name, createdAt: p.createdAt, role: m.role, ownerEmail: owner.email, ownerName: owner.name };
        })
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    },
    async replaceLink(projectId, tokenHash, createdBy) {
      if (!state.projects.has(projectId)) throw foreignKeyViolation('project_share_links');
      state.links.set(projectId, { tokenHash, createdBy, createdAt: new Date() });
    },
    async deleteLink(projectId) {
      return state.links.delete(projectId);
    },
    async findLink(tokenHash) {
      const found = [...state.links].find(([, l]) => l.tokenHash === tokenHash);
      if (!found) return null;
      const project = state.projects.get(found[0])!;
      return { projectId: project.id, projectName: project.name, ownerId: project.userId };
    },
  };

  /** Revocations live outside `state`: a rolled-back transaction never records one in the service code. */
  const revocations: SessionRevocation[] = [];
  const sessionRevocations: SessionRevocationsRepository = {
    async add(values) {
      if (!state.users.has(values.userId)) throw foreignKeyViolation('session_revocations');
      const row = { ...values, revokedAt: new Date() };
      revocations.push(row);
      return row;
    },
    async since(after) {
      const now = Date.now();
      return revocations.filter((r) => r.expiresAt.getTime() > now && (!after || r.revokedAt > after));
    },
    async pruneExpired() {
      const now = Date.now();
      const before = revocations.length;
      revocations.splice(0, revocations.length, ...revocations.filter((r) => r.expiresAt.getTime() > now));
      return before - revocations.length;
    },
  };

  const transactions: Transactions = {
    async transaction(fn) {
      const before = structuredClone(state);
      try {
        return await fn(FAKE_TX);
      } catch (err) {
        state = before;
        throw err;
      }
    },
  };

  return {
    get state() {
      return state;
    },
    addUser,
    users,
    projects,
    canvases,
    collab,
    generations,
    generationJobs,
    subscriptions,
    webhookReceipts,
    sessionRevocations,
    templates,
    sharing,
    transactions,
  };
}
