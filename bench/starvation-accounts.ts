// Starvation by several accounts, each within every per-user limit (the starvation section's last rows): three
// accounts keep slow generations going while a fourth user's small ones are timed, through POST /api/image and as
// jobs (POST /api/generations → its `succeeded` event). The model speaks Gemini's protocol from a loopback fake
// (test/fakes/gemini-server.ts), through the real SDK and the registry's per-instance call slots: a prompt that
// starts with "slow" is answered after SLOW_MS, any other at once. So these rows measure who gets this instance's
// model-call slots and the job runner's slots, not CPU (the offline-engine rows of the section measure CPU).
// Default limits (GENERATIONS_IN_FLIGHT_PER_USER 2, IMAGE_MODEL_MAX_CONCURRENT 4, JOBS_CONCURRENCY 4,
// JOBS_RUNNING_PER_USER 2), generation rate limits off (the fourth user's stream alone passes 10 a minute).
import { setTimeout as sleep } from 'node:timers/promises';
import { createSseParser } from '../client/sse.js';
import { startFakeGemini, TINY_PNG } from '../test/fakes/gemini-server.js';
import { startTestApp, type TestApp } from '../test/helpers/test-app.js';
import type { ApiContext } from './api.js';
import { toRow, type LoadResult } from './load.js';
import type { Row } from './table.js';

const ACCOUNTS = 3;
const SLOW_MS = 3_000;
/** Slow generations each account keeps in flight on POST /api/image (its GENERATIONS_IN_FLIGHT_PER_USER). */
const SYNC_PER_ACCOUNT = 2;
/** Slow jobs each account keeps unfinished (JOBS_RUNNING_PER_USER of them run, the rest are queued). */
const JOBS_PER_ACCOUNT = 4;
/** The fourth user: one small generation at a time (100, so p99 is not just the slowest); a loop reaching the cap ends with what it did. */
const SMALL = { requests: 100, warmup: 0, concurrency: 1, capMs: 40_000, lenient: true };
/**
 * How long the accounts run before the fourth user starts: past their first round of slow calls, so the rows
 * measure accounts that keep work going. (In their first round the accounts are newcomers themselves, with nothing
 * running: they may take every slot once, as any user arriving may, and a small call then waits up to one slow call.)
 */
const LEAD_MS = SLOW_MS * 2;

const image = `data:image/png;base64,${TINY_PNG.toString('base64')}`;

interface Account {
  cookie: string;
}

/** An account's loops: each keeps one slow generation (or job) going until stopped. */
function startAccounts(t: TestApp, accounts: Account[], kind: 'sync' | 'jobs') {
  let stopping = false;
  const controller = new AbortController();
  const counts = { done: 0, failed: 0, firstError: '' };
  const body = JSON.stringify({ images: [image], prompt: 'slow generation' });
  const post = async (a: Account, path: string) => {
    const res = await fetch(`${t.baseUrl}${path}`, { method: 'POST', headers: { cookie: a.cookie, 'content-type': 'application/json' }, body, signal: controller.signal });
    return { status: res.status, json: (await res.json()) as { id?: string; error?: string } };
  };
  /** Jobs waited for by id (their account's event stream says when each ends). */
  const ended = new Map<string, () => void>();
  const finished = new Set<string>();
  const follow = async (a: Account) => {
    const res = await fetch(`${t.baseUrl}/api/generations/events`, { headers: { cookie: a.cookie }, signal: controller.signal });
    const parser = createSseParser({
      onEvent(event) {
        const { id, status } = JSON.parse(event.data) as { id: string; status: string };
        if (status === 'queued' || status === 'running') return;
        finished.add(id);
        ended.get(id)?.();
      },
    });
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(Buffer.from(chunk));
  };
  const loop = async (a: Account) => {
    while (!stopping) {
      try {
        const answer = await post(a, kind === 'sync' ? '/api/image' : '/api/generations');
        if (kind === 'jobs' && answer.status === 202 && answer.json.id) {
          const id = answer.json.id;
          if (!finished.has(id)) await new Promise<void>((resolve) => ended.set(id, resolve));
          ended.delete(id);
          finished.delete(id);
        }
        if (answer.status === 200 || answer.status === 202) counts.done++;
        else {
          counts.failed++;
          counts.firstError ||= `${answer.status} ${answer.json.error ?? ''}`;
          await sleep(200);
        }
      } catch (err) {
        if (controller.signal.aborted) return;
        counts.failed++;
        counts.firstError ||= (err as Error).message;
        await sleep(200);
      }
    }
  };
  const streams = kind === 'jobs' ? accounts.map((a) => follow(a).catch(() => undefined)) : [];
  const per = kind === 'sync' ? SYNC_PER_ACCOUNT : JOBS_PER_ACCOUNT;
  const loops = accounts.flatMap((a) => Array.from({ length: per }, () => loop(a)));
  return {
    counts,
    async stop() {
      stopping = true;
      // The slow calls in flight end within SLOW_MS; queued jobs are left to the instance's close.
      const timer = setTimeout(() => controller.abort(), SLOW_MS * 2);
      await Promise.race([Promise.all(loops), sleep(SLOW_MS * 3)]);
      clearTimeout(timer);
      controller.abort();
      await Promise.all(streams);
    },
  };
}

export async function accountsRows({ load, notes }: Pick<ApiContext, 'load' | 'notes'>, rows: Row[]): Promise<void> {
  const gemini = await startFakeGemini({ replyFor: (req) => (req.texts.some((text) => text.startsWith('slow')) ? { kind: 'image', image: TINY_PNG, delayMs: SLOW_MS } : undefined) });
  const env = { IMAGE_MODEL: 'gemini-2.5-flash-image', IMAGE_MODEL_API_KEY: 'bench-key', IMAGE_MODEL_BASE_URL: gemini.baseUrl, RATE_LIMIT_GENERATIONS_PER_MINUTE: '0', RATE_LIMIT_UPLOADS_PER_MINUTE: '0' };
  const t = await startTestApp(env, 'embedded');
  try {
    const cookieOf = async (email: string) => {
      const user = await t.user(email);
      return user.client.jar.getCookieString(`${t.baseUrl}/api/image`);
    };
    const accounts: Account[] = [];
    for (let i = 0; i < ACCOUNTS; i++) accounts.push({ cookie: await cookieOf(`bench-account-${i}@example.com`) });
    const fourth = await cookieOf('bench-fourth@example.com');
    const body = JSON.stringify({ images: [image], prompt: 'small generation' });
    const request = { method: 'POST' as const, path: '/api/image', headers: { cookie: fourth, 'content-type': 'application/json' }, body: new TextEncoder().encode(body) };
    const sync = () => load.http(t.baseUrl, { name: 'small generations', ...SMALL }, [[request]], [200]);
    const jobs = () => load.jobs(t.baseUrl, { name: 'small jobs', ...SMALL }, { cookie: fourth }, body);
    // Warm the path once (JIT, connections, the job queue), not measured.
    await load.http(t.baseUrl, { name: 'warm-up', requests: 10, warmup: 0, concurrency: 1 }, [[request]], [200]);
    await load.jobs(t.baseUrl, { name: 'warm-up jobs', requests: 5, warmup: 0, concurrency: 1 }, { cookie: fourth }, body);
    const cases: Array<{ kind: 'sync' | 'jobs'; name: string; measure: () => Promise<LoadResult> }> = [
      { kind: 'sync', name: 'POST /api/image', measure: sync },
      { kind: 'jobs', name: 'job (POST /api/generations → succeeded)', measure: jobs },
    ];
    for (const c of cases) {
      const alone = await c.measure();
      const aloneRow = toRow(`accounts: a 4th user's small ${c.name}, alone`, alone);
      const accountsRunning = startAccounts(t, accounts, c.kind);
      let beside: LoadResult | undefined;
      try {
        await sleep(LEAD_MS);
        beside = await c.measure();
      } finally {
        await accountsRunning.stop();
      }
      const per = c.kind === 'sync' ? `${SYNC_PER_ACCOUNT} in flight` : `${JOBS_PER_ACCOUNT} unfinished jobs`;
      const besideRow = toRow(`accounts: the same, + ${ACCOUNTS} accounts × ${per} of ${SLOW_MS / 1000} s`, beside, aloneRow);
      rows.push(aloneRow, besideRow);
      const { counts } = accountsRunning;
      notes.push(
        `Accounts, ${c.name}: p99 ${(besideRow.p99Ms / aloneRow.p99Ms).toFixed(1)}× alone (p50 ${(besideRow.p50Ms / aloneRow.p50Ms).toFixed(1)}×); ` +
          `${beside.requests} small ${c.kind === 'sync' ? 'generations' : 'jobs'}${beside.errors ? ` (${beside.errors} failed)` : ''}; the ${ACCOUNTS} accounts finished ${counts.done} slow ones meanwhile` +
          `${counts.failed ? `, ${counts.failed} refused or failed (first: ${counts.firstError.slice(0, 120)})` : ''}.`,
      );
    }
    notes.push(
      `Accounts rows: ${ACCOUNTS} accounts each within every per-user limit (default limits; generation rate limits off) keep slow generations going (Gemini's protocol from a loopback fake, ${SLOW_MS / 1000} s each, no CPU) ` +
        `while a fourth user makes small ones (answered at once), one at a time, ${SMALL.requests} or up to ${SMALL.capMs / 1000} s; goal: p99 within 2× alone.`,
    );
  } finally {
    await t.close();
    await gemini.close();
  }
}
