// The Redis test helper: Debian's redis-server on loopback, persisting nothing, gone without a trace after stop().
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { isRunning } from '../helpers/child-processes.js';
import { describeWithRedis, startRedis } from '../helpers/redis.js';

/** `open` when something accepts a TCP connection on 127.0.0.1:`port`, else the connection error's code. */
function probe(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

describeWithRedis('redis-server test helper', () => {
  it('serves SET/GET on loopback with persistence off, then stops, closing its port and removing its folder', async () => {
    const redis = await startRedis();
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
      await client.connect();
      expect(await client.set('greeting', 'hello')).toBe('OK');
      expect(await client.get('greeting')).toBe('hello');
      expect(await client.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);
      expect(await client.config('GET', 'save')).toEqual(['save', '']);
      expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
      expect(await client.config('GET', 'dir')).toEqual(['dir', redis.dir]);
    } finally {
      await client.quit();
      await redis.stop();
    }
    expect(isRunning(redis.pid)).toBe(false);
    expect(await probe(redis.port)).toBe('ECONNREFUSED');
    expect(existsSync(redis.dir)).toBe(false);
    await redis.stop(); // a second stop is harmless
  });

  it('starts independent servers side by side', async () => {
    const [a, b] = await Promise.all([startRedis(), startRedis()]);
    try {
      expect(a.port).not.toBe(b.port);
      expect(a.dir).not.toBe(b.dir);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
