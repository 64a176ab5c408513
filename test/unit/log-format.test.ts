import { PassThrough } from 'node:stream';
import { text } from 'node:stream/consumers';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { loggingOptions, prettyStream, requestLines } from '../../src/http/logging.js';

describe('log format', () => {
  it('is pretty on a terminal outside production, JSON otherwise; LOG_FORMAT overrides', () => {
    const format = (env: Record<string, string>, stdoutIsTTY?: boolean) => loadConfig(env, { stdoutIsTTY }).config.logFormat;
    const production = {
      NODE_ENV: 'production',
      OAUTH_CLIENT_ID: 'id',
      OAUTH_CLIENT_SECRET: 'secret',
      AUTH_URL: 'https://canvas.example.com',
      AUTH_SECRET: 'x'.repeat(40),
      OBJECT_STORAGE_CONNECTION_STRING: 'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=b;EndpointSuffix=core.windows.net',
      DATABASE_CONNECTION_STRING: 'postgres://u:p@db.internal:5432/canvas',
      IMAGE_MODEL_API_KEY: 'key',
    };
    expect(format({}, true)).toBe('pretty');
    expect(format({}, false)).toBe('json');
    expect(format({})).toBe('json');
    expect(format(production, true)).toBe('json');
    expect(format({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(format({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(format({ LOG_FORMAT: '' }, true)).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(ConfigError);
  });

  it('JSON: pino writes to stdout itself, as before (no stream of ours)', () => {
    for (const options of [loggingOptions('info'), loggingOptions('info', undefined, 'json')]) {
      expect(options.logger).toMatchObject({ level: 'info' });
      expect(options.logger).not.toHaveProperty('stream');
    }
    expect(loggingOptions('silent', undefined, 'pretty').logger).toBe(false);
  });

  it('a stream given by the caller gets JSON lines whatever the format', async () => {
    const out = new PassThrough();
    const app = Fastify(loggingOptions('info', out, 'pretty'));
    app.log.info({ projectId: 'p1' }, 'hello');
    await app.close();
    out.end();
    const line = JSON.parse((await text(out)).split('\n')[0]) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, msg: 'hello', projectId: 'p1' });
  });

  it('pretty: one line per request (method, path with secrets masked, status, time, request id), nothing else for it', async () => {
    const out = new PassThrough();
    const app = Fastify(loggingOptions('info', prettyStream(out), 'pretty'));
    requestLines(app);
    app.get('/hello', async () => ({ ok: true }));
    expect((await app.inject({ method: 'GET', url: '/hello?code=secret-code&x=1' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
    await app.close();
    out.end();
    const lines = (await text(out)).split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/INFO.*GET \/hello\?code=\[redacted\]&x=1 → 200 in \d+ ms \(request [\w-]+\)$/);
    expect(lines[1]).toMatch(/GET \/nowhere → 404 in \d+ ms/);
    expect(lines.join('\n')).not.toContain('secret-code');
  });

  it('pretty: a stream of ours on stdout; it turns a JSON line into a readable one', async () => {
    expect(loggingOptions('info', undefined, 'pretty').logger).toHaveProperty('stream');
    const out = new PassThrough();
    const stream = prettyStream(out);
    stream.write(`${JSON.stringify({ level: 30, time: Date.now(), pid: 1, hostname: 'h', reqId: 'r1', msg: 'hello' })}\n`);
    stream.end();
    const printed = await text(out);
    expect(printed).toMatch(/INFO.*hello \(request r1\)/);
    expect(printed).not.toContain('hostname');
    expect(printed).not.toMatch(/^\{/);
  });
});
