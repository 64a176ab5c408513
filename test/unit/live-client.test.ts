// The tests' live client (test/helpers/live-client.ts) closed while its socket is still connecting: `ws` then emits
// an 'error' after the provider has dropped its handlers. Unheard, that error is an uncaught exception, which
// fails the whole run though every test passed (CI, session 7: "WebSocket was closed before the connection was
// established" from live-canvas's afterAll). A server that accepts the TCP connection and never answers the
// upgrade holds the socket in that state for as long as the test needs.
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectLive } from '../helpers/live-client.js';

let server: net.Server;
const held = new Set<net.Socket>();
const arrivals = new Set<(s: net.Socket) => void>();

beforeAll(async () => {
  server = net.createServer((socket) => {
    held.add(socket);
    socket.on('error', () => undefined);
    for (const a of [...arrivals]) a(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

it('closing a client whose upgrade is still unanswered raises nothing uncaught', async () => {
  const arrived = new Promise<net.Socket>((resolve) => arrivals.add(resolve));
  const { port } = server.address() as net.AddressInfo;
  const client = await connectLive({ baseUrl: `http://127.0.0.1:${port}`, as: null, projectId: 'p', maxAttempts: 1 });
  const socket = await arrived; // the upgrade request is on its way: the client's socket is CONNECTING
  const gone = new Promise((resolve) => socket.once('close', resolve));
  client.close();
  await gone; // the client aborted its request; its 'error' was emitted before this (process.nextTick)
  expect(client.events.filter((e) => e.startsWith('authenticated'))).toEqual([]);
});
