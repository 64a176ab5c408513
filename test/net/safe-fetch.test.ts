import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/net/ip.js';
import { createSafeFetcher, ImageFetchError, publicInternet } from '../../src/net/safe-fetch.js';
import { ipv6LoopbackAvailable, rejection, startServer, type TestServer } from './test-server.js';

/** The one reason for a refused host, whether its name resolved to a refused address or did not resolve. */
const REFUSED = 'host not found or not allowed';

// Every URL here must be refused before a request reaches the loopback "victim" servers.
describe('safe fetch refuses non-public targets', () => {
  let victim: TestServer;
  let victim6: TestServer | undefined;
  let allowed: TestServer;
  const lookups: string[] = [];
  const answers: Record<string, string[]> = {
    'images.example.test': ['127.0.0.1'],
    'mixed.example.test': ['127.0.0.1', '8.8.8.8'],
    'public-and-private.example.test': ['127.0.0.2', '127.0.0.1'],
  };
  const lookup = async (hostname: string) => {
    lookups.push(hostname);
    return (answers[hostname] ?? []).map((address) => ({ address, family: 4 as const }));
  };
  // The service's address rule, with names resolved from the table above.
  const fetcher = createSafeFetcher({ maxBytes: 1 << 20, timeoutMs: 10_000, maxRedirects: 3, network: { lookup, isAllowed: isPublicAddress } });
  // The service's own network: the real system resolver, for `localhost`.
  const systemDns = createSafeFetcher({ maxBytes: 1 << 20, timeoutMs: 10_000, maxRedirects: 3, network: publicInternet });
  // A network where 127.0.0.2 is the only public address, to prove one bad DNS answer spoils the host.
  const seamed = createSafeFetcher({
    maxBytes: 1 << 20,
    timeoutMs: 10_000,
    maxRedirects: 3,
    network: { lookup, isAllowed: (ip) => ip === '127.0.0.2' },
  });

  beforeAll(async () => {
    victim = await startServer('127.0.0.1');
    allowed = await startServer('127.0.0.2');
    if (await ipv6LoopbackAvailable()) victim6 = await startServer('::1');
  });
  afterAll(async () => {
    await Promise.all([fetcher.close(), systemDns.close(), seamed.close()]);
    await Promise.all([victim.close(), allowed.close(), victim6?.close()]);
  });

  const expectRefused = async (promise: Promise<unknown>, reason: string) => {
    const err = await rejection(promise);
    expect(err).toBeInstanceOf(ImageFetchError);
    expect(err.reason).toBe(reason);
    expect(victim.connections).toBe(0);
    expect(victim.requests).toEqual([]);
  };

  it('literal loopback address', async () => {
    await expectRefused(fetcher.fetch(`http://127.0.0.1:${victim.port}/x.png`), REFUSED);
  });

  it('localhost through the system resolver', async () => {
    await expectRefused(systemDns.fetch(`http://localhost:${victim.port}/`), REFUSED);
  });

  it('IPv6 loopback [::1]', async (ctx) => {
    if (!victim6) return ctx.skip();
    await expectRefused(fetcher.fetch(`http://[::1]:${victim6.port}/`), REFUSED);
    expect(victim6.connections).toBe(0);
  });

  it('unspecified 0.0.0.0 and [::]', async () => {
    await expectRefused(fetcher.fetch(`http://0.0.0.0:${victim.port}/`), REFUSED);
    await expectRefused(fetcher.fetch(`http://[::]:${victim.port}/`), REFUSED);
  });

  it.each([
    ['decimal', 'http://2130706433:PORT/'],
    ['octal', 'http://0177.0.0.1:PORT/'],
    ['hex', 'http://0x7f.0.0.1:PORT/'],
    ['hex whole', 'http://0x7f000001:PORT/'],
    ['short', 'http://127.1:PORT/'],
    ['IPv4-mapped', 'http://[::ffff:127.0.0.1]:PORT/'],
    ['IPv4-mapped hex', 'http://[::ffff:7f00:1]:PORT/'],
    ['NAT64 of loopback', 'http://[64:ff9b::127.0.0.1]:PORT/'],
  ])('%s form of 127.0.0.1', async (_form, url) => {
    await expectRefused(fetcher.fetch(url.replace('PORT', String(victim.port))), REFUSED);
  });

  it.each([
    ['private', 'http://10.0.0.1/'],
    ['cloud metadata', 'http://169.254.169.254/latest/meta-data'],
  ])('%s address is refused in the address check, before any connection', async (_kind, url) => {
    const before = lookups.length;
    await expectRefused(fetcher.fetch(url), REFUSED);
    // The reason proves the address check refused it (a connection attempt would fail differently or time out).
    expect(lookups.length).toBe(before);
  });

  it('a hostname the resolver maps to loopback', async () => {
    await expectRefused(fetcher.fetch(`http://images.example.test:${victim.port}/a.png`), REFUSED);
    expect(lookups).toContain('images.example.test');
  });

  it('a hostname with one private among its addresses', async () => {
    await expectRefused(fetcher.fetch(`http://mixed.example.test:${victim.port}/`), REFUSED);
    // The allowed address comes first here: a check of the first answer only would connect to it.
    await expectRefused(
      seamed.fetch(`http://public-and-private.example.test:${allowed.port}/`),
      REFUSED,
    );
    expect(allowed.connections).toBe(0);
  });

  it('a hostname that does not resolve: the same reason as a refused one, so no one learns which names exist', async () => {
    await expectRefused(fetcher.fetch('http://nowhere.example.test/'), REFUSED);
    const [missing, internal] = await Promise.all([
      rejection(systemDns.fetch('http://nowhere.invalid/a.png')),
      rejection(systemDns.fetch(`http://localhost:${victim.port}/a.png`)),
    ]);
    expect([missing.reason, internal.reason]).toEqual([REFUSED, REFUSED]);
    expect(missing.message.replace(missing.url ?? '', '')).toBe(internal.message.replace(internal.url ?? '', ''));
  });

  it.each([
    ['file', 'file:///etc/passwd'],
    ['ftp', 'ftp://127.0.0.1:PORT/x.png'],
    ['gopher', 'gopher://127.0.0.1:PORT/_x'],
    ['data', 'data:image/png;base64,iVBORw0KGgo='],
    ['javascript', 'javascript:alert(1)'],
  ])('%s scheme', async (_scheme, url) => {
    await expectRefused(fetcher.fetch(url.replace('PORT', String(victim.port))), 'unsupported URL scheme');
  });

  it('credentials in the URL, even for an allowed host', async () => {
    await expectRefused(seamed.fetch(`http://user:pass@127.0.0.2:${allowed.port}/`), 'credentials in URL');
    await expectRefused(seamed.fetch(`http://user@127.0.0.2:${allowed.port}/`), 'credentials in URL');
    expect(allowed.connections).toBe(0);
  });

  it('an unparsable URL', async () => {
    await expectRefused(fetcher.fetch('not a url'), 'invalid URL');
  });
});
