// While the service's link to Redis is down (issue 33 point 3: the instances relay live changes to each other
// through it), the editor says so in its header — collaborators on other servers may not see this tab's changes —
// and the notice goes once the link is back. A real redis-server is stopped and started again on the same port;
// the page's notice follows the service's `relay` message, waited for, never timed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeInBrowser } from './browser.js';
import { useBrowserFixture } from './fixture.js';
import { describeWithRedis, startRedis, type RedisHandle } from '../helpers/redis.js';

const WAIT = { timeout: 30_000 };

describeWithRedis('the Redis link in the editor', () => {
  describeInBrowser('its notice', () => {
    let redis: RedisHandle | undefined;
    // Filled before the fixture's own beforeAll starts the service with it (hooks run in order).
    const env: Record<string, string> = {};
    beforeAll(async () => {
      redis = await startRedis();
      env.COLLAB_REDIS_URL = redis.url;
    });
    const f = useBrowserFixture(env);
    afterAll(async () => {
      await redis?.stop();
    });

    it('tells the editor while the link to the other servers is down, and clears once it is back', async () => {
      const page = await f.onNewCanvas(await f.newContext(), 'relay@example.com', 'Relay');
      const status = page.locator('.connection-status');
      await expect.poll(() => status.getAttribute('data-state'), WAIT).toBe('connected');
      const notice = page.locator('[data-relay="down"]');
      expect(await notice.count()).toBe(0);

      const port = redis!.port;
      await redis!.stop();
      await notice.waitFor(WAIT);
      expect(await notice.textContent()).toContain('Some collaborators may not see your changes until the connection is back');
      // The tab itself is still connected to its server, and its changes are still saved there.
      expect(await status.getAttribute('data-state')).toBe('connected');

      redis = await startRedis({ port });
      await notice.waitFor({ state: 'detached', ...WAIT });
      expect(await status.getAttribute('data-state')).toBe('connected');
    });
  });
});
