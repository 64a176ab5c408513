import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetcher, ImageFetchError, publicInternet } from '../../src/net/safe-fetch.js';
import { rejection, startServer, type TestServer } from './test-server.js';

const MB = 1024 * 1024;

interface Outcome {
  bytesSent: number;
  finished: boolean;
}

// 127.0.0.2 is loopback on Linux; the fetchers are told it is the only allowed address.
describe('safe fetch bodies, limits and timeouts', () => {
  let server: TestServer;
  const image = randomBytes(100_000);
  // Resolved when the server side of a response closes: tells whether the client cut the connection.
  const outcomes = new Map<string, Promise<Outcome>>();
  const base = { maxRedirects: 3, network: { lookup: publicInternet.lookup, isAllowed: (ip: string) => ip === '127.0.0.2' } };
  const fetcher = createSafeFetcher({ ...base, maxBytes: 20 * MB, timeoutMs: 20_000 });
  const small = createSafeFetcher({ ...base, maxBytes: 1000, timeoutMs: 10_000 });
  const impatient = createSafeFetcher({ ...base, maxBytes: 20 * MB, timeoutMs: 500 });

  const track = (url: string, res: http.ServerResponse, sent: () => number) =>
    outcomes.set(
      url,
      new Promise((resolve) => res.on('close', () => resolve({ bytesSent: sent(), finished: res.writableFinished }))),
    );

  // Streams `total` bytes in 64 KB chunks, honouring backpressure, until done or the client goes away.
  const stream = async (res: http.ServerResponse, total: number, onSent: (n: number) => void) => {
    const chunk = Buffer.alloc(64 * 1024, 0xab);
    let sent = 0;
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      onSent(sent);
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
    if (!res.destroyed) res.end();
  };

  beforeAll(async () => {
    server = await startServer('127.0.0.2', (req, res) => {
      const url = req.url ?? '/';
      let sent = 0;
      track(url, res, () => sent);
      if (url === '/img.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(image);
      }
      if (url === '/exact') return res.end(Buffer.alloc(1000, 1));
      if (url === '/one-over') return res.end(Buffer.alloc(1001, 1));
      if (url === '/big') {
        res.writeHead(200, { 'content-type': 'image/png' }); // no Content-Length: chunked
        return void stream(res, 50 * MB, (n) => (sent = n));
      }
      if (url === '/declared-big') {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(100 * MB) });
        sent = 1024;
        return void res.write(Buffer.alloc(1024)); // then holds the connection open
      }
      if (url === '/stall') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return void res.write('first bytes, and then nothing more');
      }
      if (url === '/silent') return; // never answers
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    });
  });
  afterAll(async () => {
    await Promise.all([fetcher.close(), small.close(), impatient.close()]);
    await server.close();
  });

  const expectRefused = async (promise: Promise<unknown>, reason: string) => {
    const err = await rejection(promise);
    expect(err).toBeInstanceOf(ImageFetchError);
    expect(err.reason).toBe(reason);
  };

  it('returns the body exactly, with its content type', async () => {
    const res = await fetcher.fetch(`${server.origin}/img.png`);
    expect(res.data.equals(image)).toBe(true);
    expect(res.contentType).toBe('image/png');
    expect(res.finalUrl).toBe(`${server.origin}/img.png`);
  });

  it('accepts a body of exactly maxBytes and refuses one byte more', async () => {
    expect((await small.fetch(`${server.origin}/exact`)).data.length).toBe(1000);
    await expectRefused(small.fetch(`${server.origin}/one-over`), 'too large');
  });

  it('cuts off a 50 MB stream at the 20 MB limit and closes the connection', async () => {
    await expectRefused(fetcher.fetch(`${server.origin}/big`), 'too large');
    const outcome = await outcomes.get('/big');
    expect(outcome?.finished).toBe(false);
    expect(outcome?.bytesSent).toBeLessThan(30 * MB);
  });

  it('refuses a declared Content-Length over the limit before reading the body', async () => {
    await expectRefused(fetcher.fetch(`${server.origin}/declared-big`), 'too large');
    const outcome = await outcomes.get('/declared-big');
    expect(outcome).toEqual({ bytesSent: 1024, finished: false });
  });

  it('times out a body that never finishes', async () => {
    await expectRefused(impatient.fetch(`${server.origin}/stall`), 'timeout');
    expect((await outcomes.get('/stall'))?.finished).toBe(false);
  });

  it('times out a server that never sends headers', async () => {
    await expectRefused(impatient.fetch(`${server.origin}/silent`), 'timeout');
  });

  it('reports a non-2xx status', async () => {
    await expectRefused(fetcher.fetch(`${server.origin}/missing`), 'HTTP 404');
  });
});
