// Rows become API shapes here, and only here.
import type { ProjectRow, UserRow } from '../db/schema.js';

export const presentProject = (row: ProjectRow) => ({
  id: row.id,
  userId: row.userId,
  name: row.name,
  createdDate: row.createdAt.toISOString(),
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
