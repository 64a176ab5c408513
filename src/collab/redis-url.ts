// COLLAB_REDIS_URL read into ioredis's connection settings. Pure (no Redis client loaded): src/config.ts refuses a
// malformed URL at start with it, and ./redis.ts connects with it.

/** What ioredis needs to connect, from the URL. */
export interface RedisConnection {
  host: string;
  port: number;
  options: { username?: string; password?: string; db?: number; tls?: object };
}

/**
 * The extension's connection settings from `redis://[[user]:password@]host[:port][/db]` (`rediss://` for TLS);
 * the port defaults to 6379, the database to 0. Error messages never repeat the URL (it may hold a password).
 */
export function redisConnection(url: string): RedisConnection {
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
