// `npm install` on the machine's own Node (often older than the project's Node 24, which the `node` package brings and
// every script runs on) prints no engine warnings (issue 34 point 11: about 80 `EBADENGINE` lines on Node 20 before
// .npmrc's loglevel). A dry run against the installed tree and the lock file: nothing is changed or downloaded.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('npm install on the system Node', () => {
  it('prints no engine warnings (nor any other npm warning)', { timeout: 120_000 }, () => {
    // The system's npm and node, as a person typing `npm install` has them: not the project's node_modules/.bin.
    const PATH = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => !dir.includes('node_modules')).join(path.delimiter);
    const run = spawnSync('npm', ['install', '--dry-run', '--offline', '--no-audit', '--no-fund'], { cwd: ROOT, env: { ...process.env, PATH }, encoding: 'utf8' });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output.slice(-2000)).toBe(0);
    expect(output).not.toContain('EBADENGINE');
    expect(output).not.toMatch(/npm warn/i);
  });
});
