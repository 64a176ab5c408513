// The start banner a person's terminal gets (src/start-banner.ts): what runs in place of each default, in words, and
// only what is true of this configuration; the warnings it folds are left out of the terminal, the others kept.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startBanner, terminalWarnings } from '../../src/start-banner.js';

describe('the start banner', () => {
  it('on a first start with no configuration: where to open it, the development sign-in, the offline engine, the data, the optional services', () => {
    const loaded = loadConfig({ DATA_DIR: './data' });
    const banner = startBanner(loaded, path.resolve('.')).join('\n');
    expect(banner).toContain('Image Canvas is ready: open http://localhost:3000 in your browser.');
    expect(banner).toContain('bundled development sign-in');
    expect(banner).toMatch(/offline engine[\s\S]*It is not an AI model\. To use one, set IMAGE_MODEL and its API key/);
    expect(banner).toContain('the database, uploaded files and secrets kept under ./data.');
    expect(banner).toContain('not configured: payments, video, analytics');
    expect(banner.split('\n').length).toBeLessThanOrEqual(8);
    // Every default and the optional line are said by the banner: no WARN line is left for the terminal.
    expect(loaded.warnings.length).toBeGreaterThan(0);
    expect(terminalWarnings(loaded)).toEqual([]);
  });

  it('says only what is true: a model and a database configured leave their lines out', () => {
    const loaded = loadConfig({
      IMAGE_MODEL: 'gpt-image-1',
      OPENAI_API_KEY: 'key',
      DATABASE_CONNECTION_STRING: 'postgres://u:p@127.0.0.1:5432/db',
      VIDEO_TOKEN_ID: 'v',
      VIDEO_TOKEN_SECRET: 's',
      PUBLIC_ANALYTICS_TOKEN: 't',
      PUBLIC_ANALYTICS_PROXY_API: 'https://example.com/a',
    });
    const banner = startBanner(loaded).join('\n');
    expect(banner).not.toContain('offline engine');
    expect(banner).not.toContain('the database');
    expect(banner).toContain('uploaded files and secrets kept under');
    expect(banner).toContain('not configured: payments (');
    expect(terminalWarnings(loaded)).toEqual([]);
  });

  it('keeps as a warning what the banner does not say', () => {
    const loaded = loadConfig({});
    const other = 'OAUTH_ISSUER is not set: using https://accounts.google.com.';
    expect(terminalWarnings({ ...loaded, warnings: [...loaded.warnings, other] })).toEqual([other]);
  });
});
