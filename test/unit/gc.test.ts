// The service's garbage-collector settings (src/gc.ts) name flags this Node's V8 has: V8 ignores a flag it does not
// know when it is set at run time, so a Node upgrade that dropped one would otherwise go unnoticed.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GC_FLAGS } from '../../src/gc.js';

describe('GC settings', () => {
  it('are boolean V8 options of this Node, and a process starts with them', () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    for (const flag of GC_FLAGS) {
      const name = flag.replace(/^--no-/, '--');
      expect(options, flag).toMatch(new RegExp(`^\\s*${name} \\(.*\\)\\n\\s*type: bool`, 'm'));
    }
    expect(execFileSync(process.execPath, [...GC_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' })).toBe('ok');
  });
});
