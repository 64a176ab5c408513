// Limits that fit teams (issue 33): a signed-in caller is counted per user, not per address, so people behind one
// address (an office's NAT) do not share one count; anonymous callers are still counted per address; and one
// user's limit still holds. The public template routes and the read-only link's were counted per address for
// everyone before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PER_MINUTE = 3;
let t: TestApp;
let ada: HttpClient;
let bob: HttpClient;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_TEMPLATES_PER_MINUTE: String(PER_MINUTE), RATE_LIMIT_SHARED_PER_MINUTE: String(PER_MINUTE) });
  [ada, bob] = (await Promise.all([t.user('ada@example.com', 'Ada'), t.user('bob@example.com', 'Bob')])).map((u) => u.client);
});
afterAll(() => t?.close());

const statuses = async (client: HttpClient, path: string, n: number) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await client.get(path)).status);
  return out;
};

describe('rate limits from one address', () => {
  for (const [route, ok] of [
    ['/api/templates', 200],
    ['/api/upload/templates', 200],
    ['/api/templates/00000000-0000-4000-8000-000000000000', 404],
    ['/api/shared/no-such-link', 404],
  ] as const) {
    it(`${route}: two signed-in users have a count each, one user's limit holds, anonymous callers share the address's`, async () => {
      // All three callers come from 127.0.0.1.
      expect(await statuses(ada, route, PER_MINUTE + 1)).toEqual([...Array<number>(PER_MINUTE).fill(ok), 429]);
      expect(await statuses(bob, route, PER_MINUTE + 1)).toEqual([...Array<number>(PER_MINUTE).fill(ok), 429]);
      const anonymous = [t.client(), t.client()];
      expect([...(await statuses(anonymous[0], route, 2)), ...(await statuses(anonymous[1], route, 2))]).toEqual([
        ...Array<number>(PER_MINUTE).fill(ok),
        429,
      ]);
      const refused = await ada.get(route);
      expect(refused).toMatchObject({ status: 429, json: { error: 'Too many requests' } });
    });
  }
});
