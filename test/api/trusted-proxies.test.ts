// The client address (req.ip) comes only from our own proxies (TRUSTED_PROXIES, src/net/trusted-proxies.ts):
// X-Forwarded-For is read from the right, and what a client wrote to the left of what our proxy appended is
// never its address. Shown on the per-address limit of the anonymous video route (RATE_LIMIT_VIDEO_PER_MINUTE)
// and on the address the request logs record. The test client connects from 127.0.0.1 and plays both the client
// (the forged left part of the header) and our proxy (the address it appends on the right).
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuildOptions } from '../../src/app.js';
import { captureLogs, type LogLine } from '../helpers/log-capture.js';
import { startProductionApp } from '../helpers/production-app.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const PER_MINUTE = 5;
const ATTEMPTS = 30;
const forged = () => `${randomInt(1, 224)}.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** Asks for a video asset with this X-Forwarded-For; the route answers 503 (video is off) until the limit, then 429. */
async function ask(t: TestApp, forwardedFor: string, requestId: string): Promise<number> {
  return (await t.client().get('/api/video/asset?assetId=a1', { 'x-forwarded-for': forwardedFor, 'x-request-id': requestId })).status;
}

/**
 * ATTEMPTS requests, each with a new forged left-most address before `chain`: only PER_MINUTE pass the limit
 * (503: video is not configured), the rest are 429. Returns the request ids used.
 */
async function expectLimitHolds(t: TestApp, chain: string, label: string): Promise<string[]> {
  const statuses: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < ATTEMPTS; i++) {
    const id = `${label}-${i}`;
    ids.push(id);
    statuses.push(await ask(t, `${forged()}, ${chain}`, id));
  }
  expect(statuses.filter((s) => s === 503), `${label}: requests under the limit`).toHaveLength(PER_MINUTE);
  expect(statuses.filter((s) => s === 429), `${label}: requests over the limit`).toHaveLength(ATTEMPTS - PER_MINUTE);
  return ids;
}

/** The address each request's log line records (req.remoteAddress, from req.ip). */
function loggedAddresses(lines: LogLine[], ids: string[]): string[] {
  return ids.map((id) => lines.find((l) => l.reqId === id && l.msg === 'incoming request')?.req?.remoteAddress ?? `no log line for ${id}`);
}

function appWithLogs(env: Record<string, string>, start: (env: Record<string, string>, build: Omit<BuildOptions, 'serverFactory'>) => Promise<TestApp>) {
  const logs = captureLogs();
  return { logs, start: () => start({ LOG_LEVEL: 'info', RATE_LIMIT_VIDEO_PER_MINUTE: String(PER_MINUTE), ...env }, { logStream: logs.stream }) };
}

const devApp = (env: Record<string, string>, build: Omit<BuildOptions, 'serverFactory'>) => startTestApp(env, undefined, build);

describe('in production, by default: one hop, from loopback or a private network', () => {
  const { logs, start } = appWithLogs({}, startProductionApp);
  let t: TestApp;
  beforeAll(async () => {
    t = await start();
  });
  afterAll(() => t?.close());

  it('the address our proxy appended is the client: forged left-most values pass neither the limit nor into the logs', async () => {
    // Our proxy (on loopback) saw the client at 203.0.113.7 and appended it; the client forged the rest.
    const ids = await expectLimitHolds(t, '203.0.113.7', 'prod');
    expect(new Set(loggedAddresses(logs.lines, ids))).toEqual(new Set(['203.0.113.7']));
    // Another client behind the same proxy has its own budget.
    expect(await ask(t, `${forged()}, 203.0.113.8`, 'prod-other')).toBe(503);
    expect(loggedAddresses(logs.lines, ['prod-other'])).toEqual(['203.0.113.8']);
  });

  it('a forged chain of private addresses is not walked: only the one hop is trusted', async () => {
    // "10.0.0.9" is what our proxy appended: a second private hop in front of it is the client's own claim.
    const ids = await expectLimitHolds(t, '10.0.0.8, 10.0.0.9', 'prod-private');
    expect(new Set(loggedAddresses(logs.lines, ids))).toEqual(new Set(['10.0.0.9']));
  });
});

describe('outside production, by default: nobody is trusted', () => {
  const { logs, start } = appWithLogs({}, devApp);
  let t: TestApp;
  beforeAll(async () => {
    t = await start();
  });
  afterAll(() => t?.close());

  it('X-Forwarded-For is ignored: the client is the socket peer', async () => {
    const ids = await expectLimitHolds(t, '203.0.113.7', 'dev');
    expect(new Set(loggedAddresses(logs.lines, ids))).toEqual(new Set(['127.0.0.1']));
  });
});

describe('TRUSTED_PROXIES as a hop count', () => {
  const { logs, start } = appWithLogs({ TRUSTED_PROXIES: '2' }, devApp);
  let t: TestApp;
  beforeAll(async () => {
    t = await start();
  });
  afterAll(() => t?.close());

  it('the two nearest hops are ours: the client is the address the farther proxy appended', async () => {
    // Socket peer (hop 0) and 10.9.9.9 (hop 1) are our proxies; 198.51.100.9 is the client they saw.
    const ids = await expectLimitHolds(t, '198.51.100.9, 10.9.9.9', 'hops');
    expect(new Set(loggedAddresses(logs.lines, ids))).toEqual(new Set(['198.51.100.9']));
  });
});

describe('TRUSTED_PROXIES as a list of CIDR ranges', () => {
  const { logs, start } = appWithLogs({ TRUSTED_PROXIES: '127.0.0.0/8, 10.0.0.0/8' }, devApp);
  let t: TestApp;
  beforeAll(async () => {
    t = await start();
  });
  afterAll(() => t?.close());

  it('hops in the ranges are walked over, however many; the first address outside them is the client', async () => {
    const ids = await expectLimitHolds(t, '198.51.100.20, 10.1.2.3, 10.4.5.6', 'cidr');
    expect(new Set(loggedAddresses(logs.lines, ids))).toEqual(new Set(['198.51.100.20']));
  });
});

describe('TRUSTED_PROXIES that does not name the peer', () => {
  const { logs, start } = appWithLogs({ TRUSTED_PROXIES: '10.0.0.0/8' }, devApp);
  let t: TestApp;
  beforeAll(async () => {
    t = await start();
  });
  afterAll(() => t?.close());

  it('a peer outside the list is the client itself, whatever it forwards', async () => {
    const ids = await expectLimitHolds(t, '10.1.2.3', 'untrusted-peer');
    expect(new Set(loggedAddresses(logs.lines, ids))).toEqual(new Set(['127.0.0.1']));
  });
});
