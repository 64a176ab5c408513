// What a person sees in the terminal once the service is up (pretty logs, i.e. `npm start` in a terminal): where to
// open it and what runs in place of what is not configured, in a few lines — instead of one WARN line per local
// default and a list of optional settings. JSON logs (production, or no terminal) keep one line per warning.
import path from 'node:path';
import type { LoadedConfig } from './config.js';

/** The warnings a person's terminal still shows as WARN lines: the banner says the rest in words. */
export function terminalWarnings(loaded: LoadedConfig): string[] {
  const folded = new Set(loaded.defaults.map(({ name, used }) => `${name} is not set: ${used}.`));
  return loaded.warnings.filter((w) => !folded.has(w) && !w.startsWith('Optional, not configured'));
}

/** The banner's lines (no colours: they stay readable wherever they are copied to). */
export function startBanner(loaded: LoadedConfig, cwd = process.cwd()): string[] {
  const { config, defaults, unconfiguredServices } = loaded;
  const unset = new Set(defaults.map((d) => d.name));
  const where = path.relative(cwd, config.dataDir) || '.';
  const shown = where.startsWith('..') || path.isAbsolute(where) ? config.dataDir : `./${where}`;
  const lines = [`Image Canvas is ready: open ${config.baseUrl} in your browser.`];
  if (unset.has('OAUTH_CLIENT_ID')) lines.push('  Sign-in   the bundled development sign-in (type any email and name; no password).');
  if (config.model.model === 'local') {
    lines.push(
      '  Images    the offline engine: classical edits named in the prompt (grayscale, blur, resize, tint, …) and',
      '            offline 2×/4× upscaling. It is not an AI model. To use one, set IMAGE_MODEL and its API key in',
      '            .env (README, "Image generation").',
    );
  }
  const embedded = [unset.has('DATABASE_CONNECTION_STRING') && 'the database', unset.has('OBJECT_STORAGE_CONNECTION_STRING') && 'uploaded files', unset.has('AUTH_SECRET') && 'secrets'].filter(
    (x): x is string => typeof x === 'string',
  );
  if (embedded.length > 0) lines.push(`  Data      ${embedded.join(', ').replace(/, ([^,]*)$/, ' and $1')} kept under ${shown}.`);
  if (unconfiguredServices.length > 0) lines.push(`  Optional  not configured: ${unconfiguredServices.join(', ')} (.env.example lists their settings).`);
  lines.push('  Stop with Ctrl+C.');
  return lines;
}
