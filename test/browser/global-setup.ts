// Builds the web client once before the browser suite (skipped when web/dist is already newer than its
// sources), so the service under test serves the current client.
import { buildWeb } from '../../scripts/build-web.js';

export default async function setup(): Promise<void> {
  await buildWeb({ ifNeeded: true, quiet: true });
}
