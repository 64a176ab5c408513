// The daily budget of a person's runs (USER_DAILY_BUDGET_USD; DESIGN.md §12 "Prices"): a run whose estimate, with
// what the person spent since UTC midnight, would pass it is refused before anything is queued (402
// `budget_exceeded`, with the three numbers). Spent today is the USD cost of their generations made today (a job the
// cache answered makes none) plus what their running jobs hold (`reserved_usd`). Without a budget nothing is refused.
import type { SpendRepository } from '../db/repositories/spend.js';
import { budgetExceeded } from '../errors.js';
import { roundUsd } from './prices.js';

export interface BudgetDeps {
  spend: Pick<SpendRepository, 'todayUsd'>;
  /** USER_DAILY_BUDGET_USD; undefined: no budget. */
  budgetUsd: number | undefined;
}

export interface Budget {
  /** The daily budget (USD), null when there is none. */
  readonly budgetUsd: number | null;
  /** What the user spent since UTC midnight, in USD (to the millionth). */
  spentTodayUsd(userId: string): Promise<number>;
  /** Throws `budget_exceeded` (402) when spent today plus `estimateUsd` would pass the budget; a run of 0 always passes. */
  check(userId: string, estimateUsd: number): Promise<void>;
}

export function createBudget({ spend, budgetUsd }: BudgetDeps): Budget {
  const spentTodayUsd = async (userId: string) => roundUsd(await spend.todayUsd(userId));
  return {
    budgetUsd: budgetUsd ?? null,
    spentTodayUsd,
    async check(userId, estimateUsd) {
      if (budgetUsd === undefined || estimateUsd <= 0) return;
      const spent = await spentTodayUsd(userId);
      // To the millionth, as prices are stored: a run that lands exactly on the budget passes.
      if (roundUsd(spent + estimateUsd) > budgetUsd) throw budgetExceeded(budgetUsd, spent, roundUsd(estimateUsd));
    },
  };
}
