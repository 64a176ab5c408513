// The data-access layer: a repository per aggregate, each method taking an optional transaction (`Tx`).
// Services receive `Pick<>` slices of these and the `Transactions` port, never a pool or drizzle.
import { createTransactions, type Db, type Transactions } from '../index.js';
import { createApiTokensRepository, type ApiTokensRepository } from './api-tokens.js';
import { createCanvasesRepository, type CanvasesRepository } from './canvases.js';
import { createCollabRepository, type CollabRepository } from './collab.js';
import { DEFAULT_HEARTBEAT_LAPSE_MS } from './generation-jobs.js';
import { createGenerationsRepository, type GenerationsRepository } from './generations.js';
import { createGenerationsGalleryRepository, type GenerationsGalleryRepository } from './generations-gallery.js';
import { createProjectsRepository, type ProjectsRepository } from './projects.js';
import { createRateLimitsRepository, type RateLimitsRepository } from './rate-limits.js';
import { createSessionRevocationsRepository, type SessionRevocationsRepository } from './session-revocations.js';
import { createSharingRepository, type SharingRepository } from './sharing.js';
import { createSpendRepository, type SpendRepository } from './spend.js';
import { createSubscriptionsRepository, type SubscriptionsRepository } from './subscriptions.js';
import { createTemplatesRepository, type TemplatesRepository } from './templates.js';
import { createUsersRepository, type UsersRepository } from './users.js';
import { createVersionsRepository, type VersionsRepository } from './versions.js';
import { createWebhookReceiptsRepository, type WebhookReceiptsRepository } from './webhook-receipts.js';

export * from './access-checks.js';
export * from './api-tokens.js';
export * from './canvases.js';
export * from './collab.js';
export * from './generation-jobs.js';
export * from './generations.js';
export * from './generations-gallery.js';
export * from './project-access.js';
export * from './projects.js';
export * from './rate-limits.js';
export * from './runs.js';
export * from './session-revocations.js';
export * from './sharing.js';
export * from './spend.js';
export * from './subscriptions.js';
export * from './templates.js';
export * from './users.js';
export * from './versions.js';
export * from './webhook-receipts.js';

export interface Repositories {
  users: UsersRepository;
  projects: ProjectsRepository;
  canvases: CanvasesRepository;
  collab: CollabRepository;
  generations: GenerationsRepository;
  generationsGallery: GenerationsGalleryRepository;
  subscriptions: SubscriptionsRepository;
  webhookReceipts: WebhookReceiptsRepository;
  sessionRevocations: SessionRevocationsRepository;
  templates: TemplatesRepository;
  sharing: SharingRepository;
  versions: VersionsRepository;
  rateLimits: RateLimitsRepository;
  apiTokens: ApiTokensRepository;
  spend: SpendRepository;
  transactions: Transactions;
}

/** `heartbeatLapseMs` (JOBS_HEARTBEAT_LAPSE_MS): a running job whose heartbeat is older is a dead instance's and counts for nothing. */
export function createRepositories(db: Db, { heartbeatLapseMs = DEFAULT_HEARTBEAT_LAPSE_MS }: { heartbeatLapseMs?: number } = {}): Repositories {
  return {
    users: createUsersRepository(db),
    projects: createProjectsRepository(db),
    canvases: createCanvasesRepository(db, heartbeatLapseMs),
    collab: createCollabRepository(db),
    generations: createGenerationsRepository(db, heartbeatLapseMs),
    generationsGallery: createGenerationsGalleryRepository(db),
    subscriptions: createSubscriptionsRepository(db),
    webhookReceipts: createWebhookReceiptsRepository(db),
    sessionRevocations: createSessionRevocationsRepository(db),
    templates: createTemplatesRepository(db),
    sharing: createSharingRepository(db),
    versions: createVersionsRepository(db),
    rateLimits: createRateLimitsRepository(db),
    apiTokens: createApiTokensRepository(db),
    spend: createSpendRepository(db, heartbeatLapseMs),
    transactions: createTransactions(db),
  };
}
