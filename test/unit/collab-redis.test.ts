// src/collab/redis.ts: the Redis extension's settings from COLLAB_REDIS_URL, and two Hocuspocus instances sharing
// a live document through a real redis-server with it.
import { Hocuspocus } from '@hocuspocus/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Y from 'yjs';
import { REDIS_PREFIX, redisConnection, redisExtension } from '../../src/collab/redis.js';
import { describeWithRedis, startRedis, type RedisHandle } from '../helpers/redis.js';

describe('redisConnection', () => {
  it('reads host, port, user, password and database from the URL', () => {
    expect(redisConnection('redis://127.0.0.1:6380')).toEqual({ host: '127.0.0.1', port: 6380, options: {} });
    expect(redisConnection('redis://cache.internal')).toEqual({ host: 'cache.internal', port: 6379, options: {} });
    expect(redisConnection('redis://:s%40cret@cache:7000/2')).toEqual({ host: 'cache', port: 7000, options: { password: 's@cret', db: 2 } });
    expect(redisConnection('redis://app:pw@cache/0')).toEqual({ host: 'cache', port: 6379, options: { username: 'app', password: 'pw', db: 0 } });
    expect(redisConnection('rediss://[::1]:6390')).toEqual({ host: '::1', port: 6390, options: { tls: {} } });
  });

  it('refuses what is not a redis URL, without repeating it', () => {
    expect(() => redisConnection('cache:6379 with-secret')).toThrow(/must start with redis:\/\//);
    expect(() => redisConnection('not a url secret')).toThrow('The Redis URL is not a URL (expected redis://host:port)');
    expect(() => redisConnection('http://cache:6379')).toThrow('The Redis URL must start with redis:// or rediss://, not http://');
    expect(() => redisConnection('redis://:secret@cache/zero')).toThrow(/database number/);
    for (const url of ['cache:6379 with-secret', 'not a url secret', 'redis://:secret@cache/zero']) {
      expect(() => redisConnection(url)).toThrow(expect.objectContaining({ message: expect.not.stringContaining('secret') as string }));
    }
  });
});

describeWithRedis('redisExtension on a real redis-server', () => {
  let redis: RedisHandle;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => redis?.stop());

  it('lets two instances share one live document', async () => {
    const [a, b] = [redisExtension(redis.url), redisExtension(redis.url)];
    expect(a.configuration.prefix).toBe(REDIS_PREFIX);
    const [serverA, serverB] = [new Hocuspocus({ extensions: [a] }), new Hocuspocus({ extensions: [b] })];
    try {
      const onA = await serverA.openDirectConnection('project-1');
      const onB = await serverB.openDirectConnection('project-1');
      const seenOnB = arrival(onB.document!, 'nodes', 'n1');
      await onA.transact((doc) => doc.getMap('nodes').set('n1', 'from A'));
      expect(await seenOnB).toBe('from A');

      const seenOnA = arrival(onA.document!, 'nodes', 'n2');
      await onB.transact((doc) => doc.getMap('nodes').set('n2', 'from B'));
      expect(await seenOnA).toBe('from B');

      // One after the other: together, both would store the document at once and one would skip it, logging
      // "Another instance is already storing this document" (the extension's lock doing its job).
      await onA.disconnect();
      await onB.disconnect();
    } finally {
      await Promise.all([a.onDestroy(), b.onDestroy()]);
    }
  });
});

/** Resolves with `doc.getMap(map).get(key)` as soon as an update gives it a value. */
function arrival(doc: Y.Doc, map: string, key: string): Promise<unknown> {
  return new Promise((resolve) => {
    const check = () => {
      const value = doc.getMap(map).get(key);
      if (value === undefined) return;
      doc.off('update', check);
      resolve(value);
    };
    doc.on('update', check);
    check();
  });
}
