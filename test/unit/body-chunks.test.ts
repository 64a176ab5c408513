// bodyChunkRelease (src/http/body-chunks.ts) over a real HTTP request: it frees the request's own whole chunks,
// and leaves alone slices of them, buffers from elsewhere and chunks read before it started.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyChunkRelease } from '../../src/http/body-chunks.js';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** POSTs `body` to a server that records the request's chunks with `bodyChunkRelease` from the second one on. */
async function receive(body: Buffer): Promise<{ chunks: Buffer[]; release: (chunk: Buffer) => void }> {
  const received = new Promise<{ chunks: Buffer[]; release: (chunk: Buffer) => void }>((resolve) => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      let release: ((chunk: Buffer) => void) | undefined;
      req.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        release ??= bodyChunkRelease(req); // after the first chunk: that one is not recorded
      });
      req.on('end', () => {
        res.end();
        resolve({ chunks, release: release! });
      });
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const res = await fetch(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/`, { method: 'POST', body: new Uint8Array(body) });
  await res.arrayBuffer();
  return received;
}

describe('bodyChunkRelease', () => {
  it("frees the request's own whole chunks once handed back, and nothing else", async () => {
    const { chunks, release } = await receive(Buffer.alloc(1024 * 1024, 7));
    expect(chunks.length).toBeGreaterThan(3);
    const [first, second, third, ...rest] = chunks;

    release(first); // read before recording started
    expect(first.length).toBeGreaterThan(0);
    release(second.subarray(1)); // a slice: other bytes of its memory may still be on their way
    expect(second.length).toBeGreaterThan(0);
    const elsewhere = Buffer.alloc(64 * 1024, 1); // whole, but not the request's
    release(elsewhere);
    expect(elsewhere.length).toBe(64 * 1024);

    release(third);
    expect(third.length).toBe(0); // its memory is given back: the buffer is detached
    release(third); // handing one back twice is harmless
    for (const chunk of rest) release(chunk);
    expect(rest.every((chunk) => chunk.length === 0)).toBe(true);
    release(second);
    expect(second.length).toBe(0);
  });
});
