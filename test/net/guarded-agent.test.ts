import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedAgent } from '../../src/net/guarded-agent.js';
import { isPublicAddress } from '../../src/net/ip.js';
import { rejection, startServer, type TestServer } from './test-server.js';

/** The one reason for a refused host, whether its name resolved to a refused address or did not resolve. */
const REFUSED = 'host not found or not allowed';

// The connector is the last line of defence: these tests reach it directly, without safe-fetch's URL checks.
describe('guarded agent connector', () => {
  let victim: TestServer;
  let tlsServer: tls.Server;
  const serverNames: string[] = [];
  const lookup = async () => [{ address: '127.0.0.1', family: 4 as const }];

  beforeAll(async () => {
    victim = await startServer('127.0.0.1');
    // No certificate: the handshake fails, but only after the client has sent its SNI name.
    tlsServer = tls.createServer({
      SNICallback: (name, cb) => {
        serverNames.push(name);
        cb(new Error('no certificate here'));
      },
    });
    tlsServer.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await victim.close();
    await new Promise((resolve) => tlsServer.close(resolve));
  });

  it('refuses a literal private address before connecting', async () => {
    const agent = createGuardedAgent({ lookup, isAllowed: isPublicAddress, connectTimeoutMs: 5_000 });
    const err = await rejection(agent.request({ origin: victim.origin, path: '/', method: 'GET' }));
    expect(err).toMatchObject({ name: 'FetchRefusal', reason: REFUSED });
    expect(victim.connections).toBe(0);
    await agent.close();
  });

  it('refuses a hostname that resolves to a private address before connecting', async () => {
    const agent = createGuardedAgent({ lookup, isAllowed: isPublicAddress, connectTimeoutMs: 5_000 });
    const origin = `http://sneaky.example.test:${victim.port}`;
    const err = await rejection(agent.request({ origin, path: '/', method: 'GET' }));
    expect(err).toMatchObject({ name: 'FetchRefusal', reason: REFUSED });
    expect(victim.connections).toBe(0);
    await agent.close();
  });

  it('re-checks the peer address of the connected socket', async () => {
    // Allows the DNS answer, then refuses the socket's peer: as if the connection landed somewhere else.
    let checks = 0;
    const isAllowed = () => ++checks === 1;
    const agent = createGuardedAgent({ lookup, isAllowed, connectTimeoutMs: 5_000 });
    const origin = `http://pivot.example.test:${victim.port}`;
    const err = await rejection(agent.request({ origin, path: '/', method: 'GET' }));
    expect(err).toMatchObject({ name: 'FetchRefusal', reason: REFUSED });
    expect(checks).toBe(2);
    expect(victim.requests).toEqual([]);
    await agent.close();
  });

  it('connects to the vetted address but keeps the hostname for TLS SNI', async () => {
    const agent = createGuardedAgent({ lookup, isAllowed: () => true, connectTimeoutMs: 5_000 });
    const port = (tlsServer.address() as AddressInfo).port;
    await rejection(agent.request({ origin: `https://images.example.test:${port}`, path: '/', method: 'GET' }));
    expect(serverNames).toEqual(['images.example.test']);
    await agent.close();
  });
});
