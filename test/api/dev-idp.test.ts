// The bundled development identity provider keeps its state in memory on purpose (src/auth/dev-idp-store.ts): it
// signs people in through the real OAuth code flow, a code works once, and a first start prints no
// "you MUST change" warning about oidc-provider's quick-start adapter (issue 34 point 11).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpClient, signIn } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

describe('the bundled identity provider', () => {
  let t: TestApp;
  const warned: string[] = [];

  beforeAll(async () => {
    vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warned.push(args.map(String).join(' ')));
    t = await startTestApp();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t?.close();
  });

  it('signs in through the code flow with its own memory store, twice for one person, and warns about nothing', async () => {
    for (const name of ['Ada', 'Ada again']) {
      const client = new HttpClient(t.baseUrl);
      await signIn(client, 'ada-idp@example.com', name);
      const session = await client.get('/api/auth/session');
      expect(session.json).toMatchObject({ user: { email: 'ada-idp@example.com' } });
    }
    expect(warned.filter((w) => w.includes('oidc-provider'))).toEqual([]);
  });
});
