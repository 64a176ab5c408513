// Logs in production (docs/deploy.md "Logs"): every line the process prints — its own, the live layer's (hocuspocus
// prints with console), the database pool's while PostgreSQL restarts, the migrations', the shutdown's — is one JSON
// object, and a PostgreSQL restart is told in a bounded number of clear lines (never `[object Object]`). One start of
// the service in production on a PostgreSQL of its own that the test stops and starts again.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { freePort } from '../../src/net-utils.js';
import { PRODUCTION_ENV } from '../helpers/production-env.js';
import { startS3Server } from '../helpers/s3-server.js';
import { startService } from '../helpers/service-process.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

/** The lines printed so far, each parsed (a line that is not one JSON object is returned as a string). */
const linesOf = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l): Record<string, unknown> | string => {
      try {
        const parsed: unknown = JSON.parse(l);
        return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : l;
      } catch {
        return l;
      }
    });

describe('logs in production', () => {
  it('prints one JSON object a line: start, migrations, requests, a live socket, a PostgreSQL restart (a few clear lines), SIGTERM', { timeout: 120_000 }, async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-json-logs-'));
    await fs.chmod(dir, 0o755);
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    const options = { dir: path.join(dir, 'pg'), password: 'json-logs-password', database: 'json_logs', log: () => {}, port: await freePort() };
    let postgres: EmbeddedPostgres = await startEmbeddedPostgres(options);
    cleanups.push(() => postgres.stop());
    const s3 = await startS3Server();
    cleanups.push(() => s3.stop());

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = startService({
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(dir, 'data'),
      AUTH_URL: 'https://canvas.example.test/',
      AUTH_SECRET: 'json-logs-test-secret-'.padEnd(48, 'x'),
      OAUTH_CLIENT_ID: 'production-client',
      OAUTH_CLIENT_SECRET: 'production-client-secret',
      OAUTH_ISSUER: 'https://idp.example.test',
      OBJECT_STORAGE_CONNECTION_STRING: s3.connectionString,
      OBJECT_STORAGE_PUBLIC_URL: s3.publicUrl,
      DATABASE_CONNECTION_STRING: postgres.url,
      IMAGE_MODEL: 'local',
    });
    cleanups.push(async () => proc.kill());
    await proc.waitFor('Image Canvas is serving');
    const started = linesOf(proc.output());
    const messages = () => linesOf(proc.output()).map((l) => (typeof l === 'string' ? l : String(l.msg)));
    // The migrations of a new database: started, each applied by name, done with its time.
    expect(messages()).toContainEqual(expect.stringMatching(/^database migrations: applying \d+ \(0000_init to /));
    expect(messages()).toContain('database migration applied: 0000_init');
    expect(messages()).toContainEqual(expect.stringMatching(/^database migrations: done, \d+ applied in \d+ ms$/));
    expect(started.length).toBeGreaterThan(3);

    // Requests, answered and refused.
    expect((await fetch(`${base}/api/ready`)).status).toBe(200);
    expect((await fetch(`${base}/api/user`)).status).toBe(401);
    expect((await fetch(`${base}/api/no-such-route`)).status).toBe(404);
    // A live socket without a session, sending a frame the live layer cannot read.
    await new Promise<void>((resolve) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/api/collab`, { headers: { origin: 'https://canvas.example.test' } });
      socket.on('open', () => socket.send(Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02])));
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
      socket.on('unexpected-response', () => resolve());
    });

    // PostgreSQL restarted: the service says so in a few clear lines, then answers again by itself.
    const before = linesOf(proc.output()).length;
    await postgres.stop();
    expect((await fetch(`${base}/api/ready`)).status).toBe(503);
    expect((await fetch(`${base}/api/ready`)).status).toBe(503);
    postgres = await startEmbeddedPostgres(options); // same folder, same port
    await expect.poll(async () => (await fetch(`${base}/api/ready`)).status, { timeout: 60_000, interval: 200 }).toBe(200);
    // Each distinct failure told once (the job queue's, the pool's, the readers' retrying), not ~12 lines a second.
    const outage = linesOf(proc.output())
      .slice(before)
      .filter((l) => typeof l === 'string' || Number(l.level) >= 40);
    const shown = outage.map((l) => (typeof l === 'string' ? l : `${String(l.msg)} ${JSON.stringify(l.err ?? '').slice(0, 120)}`)).join('\n');
    expect(outage.length, shown).toBeLessThanOrEqual(12);
    expect(proc.output()).not.toContain('[object Object]');

    proc.child.kill('SIGTERM');
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    const all = linesOf(proc.output());
    const notJson = all.filter((l) => typeof l === 'string');
    expect(notJson, 'every line is one JSON object').toEqual([]);
    for (const line of all as Record<string, unknown>[]) {
      expect(line).toMatchObject({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) });
    }
  });

  it('a malformed connection setting stops the start: exit 1, one JSON line naming each setting, no secret in it', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-canvas-json-logs-refused-'));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const proc = startService({
      ...PRODUCTION_ENV,
      DATA_DIR: dataDir,
      DATABASE_CONNECTION_STRING: 'postgres://canvas:pa@ss#word@db.internal:5432/canvas',
      OBJECT_STORAGE_CONNECTION_STRING: 'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=a2V5;BlobEndpoint=blob.example.com',
    });
    expect((await proc.exited).code).toBe(1);
    const lines = linesOf(proc.output());
    expect(lines).toEqual([expect.objectContaining({ level: 60, problems: expect.any(Array) })]);
    const { problems } = lines[0] as { problems: string[] };
    expect(problems).toEqual([expect.stringMatching(/^DATABASE_CONNECTION_STRING is not a valid URL/), expect.stringMatching(/^OBJECT_STORAGE_CONNECTION_STRING \(an Azure connection string\): BlobEndpoint is not an http\(s\) URL$/)]);
    expect(proc.output()).not.toContain('word@db');
  });
});

