import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetcher, ImageFetchError } from '../../src/net/safe-fetch.js';
import { rejection, startServer, type TestServer } from './test-server.js';

/** The one reason for a refused host, whether its name resolved to a refused address or did not resolve. */
const REFUSED = 'host not found or not allowed';

// The whole of 127/8 is loopback on Linux: 127.0.0.2 plays the public server (the only address the
// fetcher is told to allow) and 127.0.0.1 the private target a redirect must never reach.
describe('safe fetch redirects', () => {
  let publicServer: TestServer;
  let victim: TestServer;
  const lookup = async (hostname: string) => {
    const address = { 'public.example.test': '127.0.0.2', 'private.example.test': '127.0.0.1' }[hostname];
    return address ? [{ address, family: 4 as const }] : [];
  };
  const options = {
    maxBytes: 1 << 20,
    timeoutMs: 10_000,
    network: { lookup, isAllowed: (ip: string) => ip === '127.0.0.2' },
  };
  const fetcher = createSafeFetcher({ ...options, maxRedirects: 3 });
  const defaultRedirects = createSafeFetcher(options);

  const redirect = (res: http.ServerResponse, status: number, location: string) => {
    res.writeHead(status, { location });
    res.end();
  };

  beforeAll(async () => {
    victim = await startServer('127.0.0.1');
    publicServer = await startServer('127.0.0.2', (req, res) => {
      const url = req.url ?? '/';
      const hop = /^\/hop\/(\d+)$/.exec(url);
      if (url === '/img.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end('PNGDATA');
      }
      if (url === '/host') return res.end(req.headers.host);
      if (url === '/to-private') return redirect(res, 302, `${victim.origin}/x.png`);
      if (url === '/to-private-name') return redirect(res, 307, `http://private.example.test:${victim.port}/x.png`);
      if (url === '/to-mapped') return redirect(res, 301, `http://[::ffff:127.0.0.1]:${victim.port}/`);
      if (url === '/to-file') return redirect(res, 302, 'file:///etc/passwd');
      if (url === '/to-credentials') return redirect(res, 302, `http://u:p@127.0.0.2:${publicServer.port}/img.png`);
      if (url === '/dir/sub/relative') return redirect(res, 303, '../../img.png');
      if (url === '/loop') return redirect(res, 302, '/loop');
      if (hop) {
        const n = Number(hop[1]);
        return n === 0 ? redirect(res, 308, '/img.png') : redirect(res, 302, `/hop/${n - 1}`);
      }
      res.writeHead(404);
      res.end();
    });
  });
  afterAll(async () => {
    await Promise.all([fetcher.close(), defaultRedirects.close()]);
    await Promise.all([publicServer.close(), victim.close()]);
  });

  const expectRefused = async (promise: Promise<unknown>, reason: string) => {
    const err = await rejection(promise);
    expect(err).toBeInstanceOf(ImageFetchError);
    expect(err.reason).toBe(reason);
    expect(victim.connections).toBe(0);
    expect(victim.requests).toEqual([]);
    return err;
  };

  it('fetches directly from the allowed server, by address and by name', async () => {
    const byAddress = await fetcher.fetch(`${publicServer.origin}/img.png`);
    expect(byAddress.data.toString()).toBe('PNGDATA');
    const byName = await fetcher.fetch(`http://public.example.test:${publicServer.port}/img.png`);
    expect(byName.data.toString()).toBe('PNGDATA');
    expect(byName.finalUrl).toBe(`http://public.example.test:${publicServer.port}/img.png`);
    // Connected to the vetted address, but the Host header still names the host.
    const host = await fetcher.fetch(`http://public.example.test:${publicServer.port}/host`);
    expect(host.data.toString()).toBe(`public.example.test:${publicServer.port}`);
  });

  it('refuses a redirect to a private address; the private server sees nothing', async () => {
    const err = await expectRefused(fetcher.fetch(`${publicServer.origin}/to-private`), REFUSED);
    expect(err.url).toBe(`${publicServer.origin}/to-private`);
  });

  it('refuses a redirect to a hostname that resolves to a private address', async () => {
    await expectRefused(fetcher.fetch(`${publicServer.origin}/to-private-name`), REFUSED);
  });

  it('refuses a redirect to an IPv4-mapped private address', async () => {
    await expectRefused(fetcher.fetch(`${publicServer.origin}/to-mapped`), REFUSED);
  });

  it('refuses a redirect to another scheme or to a URL with credentials', async () => {
    await expectRefused(fetcher.fetch(`${publicServer.origin}/to-file`), 'unsupported URL scheme');
    await expectRefused(fetcher.fetch(`${publicServer.origin}/to-credentials`), 'credentials in URL');
  });

  it('follows exactly maxRedirects hops and refuses one more', async () => {
    const ok = await fetcher.fetch(`${publicServer.origin}/hop/2`); // 3 redirects: /hop/1, /hop/0, /img.png
    expect(ok.finalUrl).toBe(`${publicServer.origin}/img.png`);
    const before = publicServer.requests.length;
    await expectRefused(fetcher.fetch(`${publicServer.origin}/hop/3`), 'too many redirects');
    expect(publicServer.requests.slice(before)).toEqual(['/hop/3', '/hop/2', '/hop/1', '/hop/0']);
    await expectRefused(fetcher.fetch(`${publicServer.origin}/loop`), 'too many redirects');
  });

  it('defaults to 3 redirects', async () => {
    await expect(defaultRedirects.fetch(`${publicServer.origin}/hop/2`)).resolves.toBeDefined();
    await expectRefused(defaultRedirects.fetch(`${publicServer.origin}/hop/3`), 'too many redirects');
  });

  it('resolves a relative Location against the current URL', async () => {
    const res = await fetcher.fetch(`http://public.example.test:${publicServer.port}/dir/sub/relative`);
    expect(res.data.toString()).toBe('PNGDATA');
    expect(res.contentType).toBe('image/png');
    expect(res.finalUrl).toBe(`http://public.example.test:${publicServer.port}/img.png`);
  });
});
