// Suites that need a program from Debian (Chromium, redis-server, nginx): a `describe` when it is installed. Without
// it the suite fails in CI (CI=true: a missing binary is a failure, never a skip) and is skipped loudly elsewhere.
import { existsSync } from 'node:fs';
import { describe } from 'vitest';

export interface Program {
  /** What people call it: `nginx`, `Chromium`, … */
  label: string;
  /** Where Debian's package puts it. */
  binary: string;
  /** The Debian package that brings it. */
  pkg: string;
}

export function describeWhenInstalled(program: Program, name: string, body: () => void): void {
  if (existsSync(program.binary)) {
    describe(name, body);
    return;
  }
  if (process.env.CI === 'true') {
    throw new Error(`These tests need ${program.label} at ${program.binary} (apt-get install ${program.pkg}); CI must not skip them.`);
  }
  console.warn(
    [
      '',
      '#'.repeat(78),
      `#  ${program.label.toUpperCase()} TESTS SKIPPED (${name}): no ${program.label} at ${program.binary}.`,
      `#  Install it (apt-get install ${program.pkg}) to run them; in CI (CI=true) they fail instead.`,
      '#'.repeat(78),
      '',
    ].join('\n'),
  );
  describe.skip(name, body);
}
