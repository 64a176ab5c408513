// The daily budget of runs (src/runs/budget.ts, USER_DAILY_BUDGET_USD) on PostgreSQL: spent today is the user's
// generations' USD costs since UTC midnight plus what their live running jobs hold; a run whose estimate would pass
// the budget is refused with 402 `budget_exceeded` and the three numbers.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/index.js';
import { createSpendRepository } from '../../src/db/repositories/index.js';
import { AppError } from '../../src/errors.js';
import { statusOf } from '../../src/http/error-handler.js';
import { createBudget } from '../../src/runs/budget.js';
import { createOwnDatabase } from '../helpers/test-app.js';

describe('the daily budget on PostgreSQL', () => {
  let own: Awaited<ReturnType<typeof createOwnDatabase>>;
  let database: Database;
  let pool: pg.Pool;
  let n = 0;
  beforeAll(async () => {
    own = await createOwnDatabase();
    database = await openDatabase({ url: own.url, poolSize: 4, statementTimeoutMs: 0, onError: () => undefined });
    pool = new pg.Pool({ connectionString: own.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await database?.close();
    await own?.drop();
  });

  const addUser = async (email: string): Promise<string> => {
    const { rows } = await pool.query(`INSERT INTO users (email, name, provider, provider_subject) VALUES ($1, $1, 'test', $1) RETURNING id`, [email]);
    return rows[0].id as string;
  };
  /** A generation of the user: `when` is SQL for its time, `cost` its jsonb cost (null: unknown). */
  const addGeneration = async (userId: string, cost: { amount: number; currency: string } | null, when = 'now()') => {
    n += 1;
    await pool.query(
      `INSERT INTO generations (id, user_id, user_email, prompt, input_images, output_image_url, model, created_at, cost)
       VALUES ($1, $2, 'x@example.com', 'p', '[]', 'http://127.0.0.1/x.png', 'm', ${when}, $3)`,
      [`gen-${n}`, userId, cost === null ? null : JSON.stringify({ ...cost, basis: 'list price' })],
    );
  };
  /** A running job of the user holding `usd`; its heartbeat `beat` (SQL) says whether its instance lives. */
  const addRunningJob = async (userId: string, usd: number, beat = 'now()') => {
    n += 1;
    await pool.query(
      `INSERT INTO generation_jobs (id, user_id, prompt, images, status, heartbeat_at, reserved_usd, started_at)
       VALUES ($1, $2, 'p', '[]', 'running', ${beat}, $3, now())`,
      [`job-${n}`, userId, usd],
    );
  };

  it("counts today's priced generations (UTC) and what live running jobs hold, nothing else", async () => {
    const ada = await addUser('ada@example.com');
    const bob = await addUser('bob@example.com');
    const spend = createSpendRepository(database.db, 60_000);
    const budget = createBudget({ spend, budgetUsd: 5 });
    expect(await budget.spentTodayUsd(ada)).toBe(0);
    await addGeneration(ada, { amount: 0.039, currency: 'USD' });
    await addGeneration(ada, { amount: 0.134, currency: 'USD' });
    await addGeneration(ada, null); // the offline engine: no cost
    await addGeneration(ada, { amount: 3, currency: 'EUR' }); // not dollars: not summed
    await addGeneration(ada, { amount: 2, currency: 'USD' }, `date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 second'`); // yesterday
    await addGeneration(bob, { amount: 1, currency: 'USD' }); // someone else's
    expect(await budget.spentTodayUsd(ada)).toBe(0.173);
    await addRunningJob(ada, 0.04);
    await addRunningJob(ada, 0.5, `now() - interval '1 hour'`); // its instance died: holds nothing
    expect(await budget.spentTodayUsd(ada)).toBe(0.213);
    expect(await budget.spentTodayUsd(bob)).toBe(1);
  });

  it('refuses a run that would pass the budget with 402 budget_exceeded and the numbers; one that lands on it passes', async () => {
    const cy = await addUser('cy@example.com');
    await addGeneration(cy, { amount: 4.8, currency: 'USD' });
    const budget = createBudget({ spend: createSpendRepository(database.db), budgetUsd: 5 });
    expect(budget.budgetUsd).toBe(5);
    await expect(budget.check(cy, 0.2)).resolves.toBeUndefined(); // exactly the budget
    await expect(budget.check(cy, 0)).resolves.toBeUndefined();
    const err = await budget.check(cy, 0.4).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    const refusal = err as AppError;
    expect(statusOf(refusal.code)).toBe(402);
    expect(refusal.code).toBe('budget_exceeded');
    expect(refusal.message).toBe('This run would cost about $0.40; with $4.80 spent today it would pass your daily budget of $5.00');
    expect(refusal.extra).toEqual({ budgetUsd: 5, spentTodayUsd: 4.8, estimateUsd: 0.4 });
  });

  it('without a budget refuses nothing, and a free run passes even past the budget', async () => {
    const dee = await addUser('dee@example.com');
    await addGeneration(dee, { amount: 9, currency: 'USD' });
    const spend = createSpendRepository(database.db);
    const none = createBudget({ spend, budgetUsd: undefined });
    expect(none.budgetUsd).toBeNull();
    await expect(none.check(dee, 1000)).resolves.toBeUndefined();
    const small = createBudget({ spend, budgetUsd: 1 });
    await expect(small.check(dee, 0)).resolves.toBeUndefined(); // cached and offline jobs cost nothing
    await expect(small.check(dee, 0.01)).rejects.toMatchObject({ code: 'budget_exceeded', extra: { spentTodayUsd: 9 } });
  });
});
