// The HTTP settings of the configuration: the request deadlines (HTTP_*_TIMEOUT_MS) and TRUSTED_PROXIES — parsed,
// defaulted and refused with clear messages — and the trust function Fastify gets, which decides req.ip from
// X-Forwarded-For (checked here through a bare Fastify and inject(), which sets the socket's peer).
import type { IncomingMessage } from 'node:http';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { clientAddressOf, DEFAULT_TRUSTED_PROXIES, trustProxyOption, type TrustedProxies } from '../../src/net/trusted-proxies.js';
import { PRODUCTION_ENV } from '../helpers/production-env.js';

const production = PRODUCTION_ENV;

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('request deadlines in the configuration', () => {
  it('have defaults: 10 s for headers, 30 s and 10 s idle for a body, 5 min and 30 s idle for large bodies, 72 s keep-alive', () => {
    const { http } = loadConfig({}).config;
    expect(http).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      bodyIdleTimeoutMs: 10_000,
      largeBody: { requestTimeoutMs: 300_000, bodyIdleTimeoutMs: 30_000 },
      keepAliveTimeoutMs: 72_000,
    });
  });

  it('are read from HTTP_*_TIMEOUT_MS', () => {
    const { http } = loadConfig({
      HTTP_HEADERS_TIMEOUT_MS: '500',
      HTTP_REQUEST_TIMEOUT_MS: '1500',
      HTTP_BODY_IDLE_TIMEOUT_MS: '700',
      HTTP_LARGE_BODY_TIMEOUT_MS: '9000',
      HTTP_LARGE_BODY_IDLE_TIMEOUT_MS: '800',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '4000',
    }).config;
    expect(http).toMatchObject({ headersTimeoutMs: 500, requestTimeoutMs: 1500, bodyIdleTimeoutMs: 700, largeBody: { requestTimeoutMs: 9000, bodyIdleTimeoutMs: 800 }, keepAliveTimeoutMs: 4000 });
  });

  it('refuse zero, and limits that would make the longer ones shorter', () => {
    expect(problemsOf({ HTTP_REQUEST_TIMEOUT_MS: '0' })[0]).toMatch(/^HTTP_REQUEST_TIMEOUT_MS: /);
    expect(problemsOf({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toEqual(['HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS']);
    expect(problemsOf({ HTTP_REQUEST_TIMEOUT_MS: '400000' })).toEqual(['HTTP_REQUEST_TIMEOUT_MS must not exceed HTTP_LARGE_BODY_TIMEOUT_MS']);
    expect(problemsOf({ HTTP_LARGE_BODY_IDLE_TIMEOUT_MS: '5000' })).toEqual(['HTTP_BODY_IDLE_TIMEOUT_MS must not exceed HTTP_LARGE_BODY_IDLE_TIMEOUT_MS']);
  });
});

describe('TRUSTED_PROXIES in the configuration', () => {
  it('defaults to one hop from loopback or a private network in production, and to nobody outside it', () => {
    expect(loadConfig(production).config.http.trustedProxies).toEqual(DEFAULT_TRUSTED_PROXIES);
    expect(DEFAULT_TRUSTED_PROXIES).toEqual({ kind: 'ranges', ranges: ['loopback', 'linklocal', 'uniquelocal'], maxHops: 1 });
    expect(loadConfig({}).config.http.trustedProxies).toEqual({ kind: 'none' });
  });

  it('takes a hop count, none, or a list of addresses, CIDR ranges and named ranges', () => {
    const of = (value: string, env: Record<string, string> = {}) => loadConfig({ ...env, TRUSTED_PROXIES: value }).config.http.trustedProxies;
    expect(of('2')).toEqual({ kind: 'hops', hops: 2 });
    expect(of('0', production)).toEqual({ kind: 'none' });
    expect(of('none', production)).toEqual({ kind: 'none' });
    expect(of(' 10.0.0.0/8 , 192.0.2.7, fd00::/8, ::1, loopback ')).toEqual({ kind: 'ranges', ranges: ['10.0.0.0/8', '192.0.2.7', 'fd00::/8', '::1', 'loopback'] });
    expect(of('', production)).toEqual(DEFAULT_TRUSTED_PROXIES); // empty is unset
  });

  it('refuses anything else, naming what it did not understand, with every other problem', () => {
    const message = (bad: string) =>
      'TRUSTED_PROXIES must be a hop count, none, or a comma-separated list of IP addresses, CIDR ranges ' +
      `(address/prefix), loopback, linklocal and uniquelocal; not understood: ${bad}`;
    expect(problemsOf({ TRUSTED_PROXIES: 'true' })).toEqual([message('"true"')]);
    expect(problemsOf({ TRUSTED_PROXIES: '10.0.0.0/33, 10.0.0.1, proxy.internal' })).toEqual([message('"10.0.0.0/33", "proxy.internal"')]);
    expect(problemsOf({ TRUSTED_PROXIES: '10.0.0.0/8,' })).toEqual([message('""')]);
    expect(problemsOf({ TRUSTED_PROXIES: '::1/129' })).toEqual([message('"::1/129"')]);
    expect(problemsOf({ TRUSTED_PROXIES: '10.0.0.0/8/1' })).toEqual([message('"10.0.0.0/8/1"')]);
    expect(problemsOf({ TRUSTED_PROXIES: '11' })).toEqual(['TRUSTED_PROXIES: a hop count must be at most 10 (got 11)']);
    expect(problemsOf({ TRUSTED_PROXIES: 'toString' })).toEqual([message('"toString"')]);
    // Reported with the other problems, all at once.
    expect(problemsOf({ NODE_ENV: 'production', TRUSTED_PROXIES: 'everyone' })).toContain(message('"everyone"'));
  });
});

describe('the client address Fastify derives with the trust function (and the live socket, with clientAddressOf, alike)', () => {
  async function ipOf(setting: TrustedProxies, remoteAddress: string, forwardedFor?: string): Promise<string> {
    const app = Fastify({ trustProxy: trustProxyOption(setting) });
    app.get('/', async (req) => ({ ip: req.ip }));
    const headers = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
    const res = await app.inject({ url: '/', remoteAddress, headers });
    await app.close();
    const { ip } = res.json<{ ip: string }>();
    // An upgrade never reaches Fastify: the live socket reads the same address from the raw request.
    expect(clientAddressOf(setting)({ socket: { remoteAddress }, headers } as unknown as IncomingMessage)).toBe(ip);
    return ip;
  }

  it('trusts nobody with none: the peer', async () => {
    expect(await ipOf({ kind: 'none' }, '10.0.0.2', '203.0.113.1')).toBe('10.0.0.2');
  });

  it('by default, one hop from loopback, link-local or a private range (IPv4, IPv6, IPv4-mapped)', async () => {
    const d = DEFAULT_TRUSTED_PROXIES;
    for (const peer of ['127.0.0.1', '10.1.2.3', '172.20.0.5', '192.168.1.1', '169.254.1.1', '::1', 'fd12::5', 'fe80::1', '::ffff:10.0.0.7', '::ffff:127.0.0.1']) {
      expect(await ipOf(d, peer, '198.51.100.1, 203.0.113.9'), peer).toBe('203.0.113.9');
    }
    // A public peer is no proxy of ours: its header is ignored.
    expect(await ipOf(d, '198.51.100.77', '203.0.113.9')).toBe('198.51.100.77');
    expect(await ipOf(d, '::ffff:198.51.100.77', '203.0.113.9')).toBe('::ffff:198.51.100.77');
    // One hop only, even when the next one looks private too.
    expect(await ipOf(d, '10.0.0.1', '203.0.113.9, 10.0.0.2')).toBe('10.0.0.2');
    // Without the header, the peer.
    expect(await ipOf(d, '10.0.0.1')).toBe('10.0.0.1');
  });

  it('with a hop count, exactly that many hops', async () => {
    expect(await ipOf({ kind: 'hops', hops: 1 }, '198.51.100.77', '1.2.3.4, 203.0.113.9')).toBe('203.0.113.9');
    expect(await ipOf({ kind: 'hops', hops: 2 }, '198.51.100.77', '1.2.3.4, 203.0.113.9, 10.0.0.3')).toBe('203.0.113.9');
  });

  it('with ranges, every hop in them, never an entry that is not an address', async () => {
    const ranges: TrustedProxies = { kind: 'ranges', ranges: ['10.0.0.0/8', '2001:db8::/32', '192.0.2.1'] };
    expect(await ipOf(ranges, '10.0.0.1', '1.2.3.4, 203.0.113.9, 192.0.2.1, 2001:db8::7, 10.9.9.9')).toBe('203.0.113.9');
    expect(await ipOf(ranges, '127.0.0.1', '203.0.113.9')).toBe('127.0.0.1');
    expect(await ipOf(ranges, '10.0.0.1', 'not-an-address, 10.0.0.2')).toBe('not-an-address');
    expect(await ipOf(ranges, '10.0.0.1', '1.2.3.4, not-an-address, 10.0.0.2')).toBe('not-an-address');
  });
});
