// The pure parts of personal API tokens (src/auth/api-tokens.ts): the scope each request needs, reading the
// Authorization header, and what a token looks like.
import { describe, expect, it } from 'vitest';
import { bearerToken, hashApiToken, isApiTokenFormat, newApiToken, requiredScope } from '../../src/auth/api-tokens.js';
import { loadConfig } from '../../src/config.js';

describe('requiredScope', () => {
  it('reads need read, other methods write', () => {
    expect(requiredScope('GET', '/api/user/project')).toBe('read');
    expect(requiredScope('HEAD', '/api/user')).toBe('read');
    expect(requiredScope('get', '/api/user/project/:projectId/versions')).toBe('read');
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(requiredScope(method, '/api/user/project/:projectId')).toBe('write');
    expect(requiredScope('POST', '/api/upload')).toBe('write');
    expect(requiredScope('POST', '/api/user/project/canvas')).toBe('write');
  });

  it('generation needs generate (and only the POST of it)', () => {
    expect(requiredScope('POST', '/api/image')).toBe('generate');
    expect(requiredScope('POST', '/api/image/')).toBe('generate');
    expect(requiredScope('GET', '/api/image')).toBe('read');
  });

  it('a run queues model calls: starting and canceling one need generate, its estimate only read', () => {
    expect(requiredScope('POST', '/api/projects/:id/runs')).toBe('generate');
    expect(requiredScope('POST', '/api/projects/:id/runs/:runId/cancel')).toBe('generate');
    expect(requiredScope('POST', '/api/projects/:id/runs/estimate')).toBe('read');
    expect(requiredScope('GET', '/api/projects/:id/runs/:runId')).toBe('read');
  });

  it('token management and signing out everywhere need a session', () => {
    expect(requiredScope('GET', '/api/user/tokens')).toBe('session');
    expect(requiredScope('POST', '/api/user/tokens')).toBe('session');
    expect(requiredScope('DELETE', '/api/user/tokens/:id')).toBe('session');
    expect(requiredScope('DELETE', '/api/user/sessions')).toBe('session');
  });

  it('a request without a known route needs what its method needs', () => {
    expect(requiredScope('GET', undefined)).toBe('read');
    expect(requiredScope('POST', undefined)).toBe('write');
  });
});

describe('bearerToken', () => {
  it('answers the credential of a Bearer header, in any case of the scheme; undefined without one', () => {
    expect(bearerToken('Bearer ic_abc')).toBe('ic_abc');
    expect(bearerToken('bearer   ic_abc  ')).toBe('ic_abc');
    expect(bearerToken('BEARER ic_abc')).toBe('ic_abc');
    expect(bearerToken('Bearer')).toBe('');
    expect(bearerToken('Bearer ')).toBe('');
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('')).toBeUndefined();
    expect(bearerToken('Basic YTpi')).toBeUndefined();
    expect(bearerToken('Bearerx ic_abc')).toBeUndefined();
  });
});

describe('a token', () => {
  it('is ic_ and 32 random bytes in base64url; its prefix is 9 characters of it; its hash is SHA-256 hex', () => {
    const a = newApiToken();
    const b = newApiToken();
    expect(a.secret).toMatch(/^ic_[A-Za-z0-9_-]{43}$/);
    expect(a.secret).not.toBe(b.secret);
    expect(isApiTokenFormat(a.secret)).toBe(true);
    expect(a.prefix).toBe(a.secret.slice(0, 9));
    expect(a.hash).toBe(hashApiToken(a.secret));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    for (const bad of ['', 'ic_', `ic_${'a'.repeat(42)}`, `ic_${'a'.repeat(44)}`, `xx_${'a'.repeat(43)}`, `ic_${'a'.repeat(42)}=`, `ic_${'a'.repeat(42)}+`]) {
      expect(isApiTokenFormat(bad), bad).toBe(false);
    }
  });
});

describe('settings', () => {
  it('API_TOKENS_PER_USER (default 50) and API_TOKEN_MAX_DAYS (default 365), each at least 1', () => {
    expect(loadConfig({}).config.limits).toMatchObject({ apiTokensPerUser: 50, apiTokenMaxDays: 365 });
    expect(loadConfig({ API_TOKENS_PER_USER: '5', API_TOKEN_MAX_DAYS: '30' }).config.limits).toMatchObject({ apiTokensPerUser: 5, apiTokenMaxDays: 30 });
    expect(() => loadConfig({ API_TOKENS_PER_USER: '0' })).toThrow(/API_TOKENS_PER_USER/);
    expect(() => loadConfig({ API_TOKEN_MAX_DAYS: '0' })).toThrow(/API_TOKEN_MAX_DAYS/);
  });
});
