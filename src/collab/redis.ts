// Several instances share live documents through Redis (COLLAB_REDIS_URL): @hocuspocus/extension-redis relays each
// open document's updates and awareness between the instances that have it open, and a Redis lock lets only one
// of them store a given change. Without the URL the service is one instance and needs none of this: import this
// module only when the URL is set, so the Redis client is never loaded otherwise. The extension connects (two
// clients, publish and subscribe) when it is constructed and disconnects in its onDestroy hook.
import { Redis, type Configuration } from '@hocuspocus/extension-redis';

/** Namespace of every Redis key and channel the extension uses. */
export const REDIS_PREFIX = 'image-canvas';

/**
 * The extension's connection settings from `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS);
 * the port defaults to 6379, the database to 0. Error messages never repeat the URL (it may hold a password).
 */
export function redisConnection(url: string): Pick<Configuration, 'host' | 'port' | 'options'> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('The Redis URL is not a URL (expected redis://host:port)');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new Error(`The Redis URL must start with redis:// or rediss://, not ${parsed.protocol}//`);
  }
  if (!parsed.hostname) throw new Error('The Redis URL names no host');
  const db = parsed.pathname.replace(/^\//, '');
  if (!/^\d*$/.test(db)) throw new Error('The Redis URL path must be a database number (redis://host:port/0)');
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), // an IPv6 address without its brackets
    port: parsed.port ? Number(parsed.port) : 6379,
    options: {
      ...(parsed.username && { username: decodeURIComponent(parsed.username) }),
      ...(parsed.password && { password: decodeURIComponent(parsed.password) }),
      ...(db && { db: Number(db) }),
      ...(parsed.protocol === 'rediss:' && { tls: {} }),
    },
  };
}

/** The Redis extension for the Hocuspocus server, on the Redis at `url`; the package's defaults otherwise. */
export function redisExtension(url: string): Redis {
  return new Redis({ ...redisConnection(url), prefix: REDIS_PREFIX });
}
