// An instance that holds LIVE_MAX_OPEN_DOCUMENTS refuses to open one more canvas (`4503 too-many-documents`): the
// page says the server is busy and that it is trying again, and the canvas opens by itself once another document
// unloads (its editor left). Every wait is for what the page shows, never a timer.
import { expect, it } from 'vitest';
import { connectLive } from '../helpers/live-client.js';
import { describeInBrowser, newPage, WAIT } from './browser.js';
import { useBrowserFixture } from './fixture.js';

describeInBrowser('a busy instance in the editor', () => {
  const f = useBrowserFixture({ LIVE_MAX_OPEN_DOCUMENTS: '1' });

  it('says the server is busy while it has no room for the canvas, and opens it once a place frees', async () => {
    // The instance's one place, taken by someone else's canvas.
    const other = await f.app.user('other@example.com');
    const theirs = (await other.client.post('/api/user/project', { userId: other.id, name: 'Theirs' })).json.id as string;
    const holder = await connectLive({ baseUrl: f.app.baseUrl, as: other.client, projectId: theirs });
    let holding = true;
    try {
      await holder.event('synced');

      const me = await f.app.user('busy@example.com');
      const ours = (await me.client.post('/api/user/project', { userId: me.id, name: 'Ours' })).json.id as string;
      const context = await f.newContext();
      await f.signIn(context, me.email);
      const { page, errors } = await newPage(context);
      await page.goto(`${f.app.baseUrl}/projects/${ours}`);
      await page.locator('.connection-status[data-state="busy"]').waitFor();
      expect(await page.locator('.connection-status').getByRole('status').textContent()).toBe('Server busy — retrying…');
      await page.getByText('The server is busy: the canvas opens as soon as it has room. Trying again…').waitFor();

      // Their editor leaves: their document unloads, and ours opens by itself (the provider's backoff: seconds).
      holder.close();
      holding = false;
      await page.getByText('Your canvas is empty.').waitFor({ timeout: 3 * WAIT });
      await page.locator('.connection-status[data-state="connected"]').waitFor();
      expect(errors).toEqual([]);
    } finally {
      if (holding) holder.close();
    }
  });
});
