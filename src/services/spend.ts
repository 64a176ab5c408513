// Spend (docs/api.md "Spend"; DESIGN.md §12 "Prices"): what a person's generations cost today, this month and per
// project, with their daily budget for runs (USER_DAILY_BUDGET_USD); and what a project's generations cost per
// person, for its owner and members (viewers too; anyone else gets `404 Project not found`, as the canvas routes
// answer). Costs are the generations' recorded ones (the provider's figure, else the model's list price); a job the
// cache answered makes no generation and costs nothing.
import type { ProjectAccess } from '../auth/project-access.js';
import type { PersonSpend, ProjectSpendOfUser, SpendRepository } from '../db/repositories/index.js';

export interface UserSpend {
  /** Since UTC midnight, in US dollars. */
  todayUsd: number;
  /** Since the first of this UTC month. */
  monthUsd: number;
  /** USER_DAILY_BUDGET_USD; null when there is none. */
  budgetUsd: number | null;
  /** Per project (that still exists) the user generated into, all time: most spent first. */
  projects: ProjectSpendOfUser[];
}

export interface ProjectSpend {
  /** Everyone's generations in the project, all time. */
  totalUsd: number;
  people: PersonSpend[];
}

export interface SpendService {
  user(userId: string): Promise<UserSpend>;
  project(userId: string, projectId: string): Promise<ProjectSpend>;
}

export interface SpendDeps {
  spend: Pick<SpendRepository, 'userTotals' | 'userProjects' | 'projectPeople'>;
  access: Pick<ProjectAccess, 'require'>;
  /** USER_DAILY_BUDGET_USD; undefined: none. */
  budgetUsd: number | undefined;
}

/** Sums in USD to the millionth (the precision costs are stored with). */
const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

export function createSpendService({ spend, access, budgetUsd }: SpendDeps): SpendService {
  return {
    async user(userId) {
      const [totals, projects] = await Promise.all([spend.userTotals(userId), spend.userProjects(userId)]);
      return { ...totals, budgetUsd: budgetUsd ?? null, projects };
    },
    async project(userId, projectId) {
      await access.require({ userId }, projectId, 'read');
      const people = await spend.projectPeople(projectId);
      return { totalUsd: round6(people.reduce((sum, p) => sum + p.usd, 0)), people };
    },
  };
}
