import { describe, expect, it } from 'vitest';
import { licencesOf, satisfies, violations } from '../../scripts/check-licenses.js';

describe('licence allow-list', () => {
  it('accepts allowed identifiers and expressions that can be satisfied with them', () => {
    expect(satisfies('MIT', 'a')).toBe(true);
    expect(satisfies('(MIT OR Apache-2.0)', 'a')).toBe(true);
    expect(satisfies('(MIT OR GPL-3.0-only)', 'a')).toBe(true);
    expect(satisfies('MIT AND (ISC OR GPL-2.0)', 'a')).toBe(true);
    expect(satisfies('Apache-2.0 WITH LLVM-exception', 'a')).toBe(true);
  });

  it('refuses GPL, AGPL, unknown and unparsable licences, and an AND with one of them', () => {
    for (const licence of ['GPL-3.0-only', 'AGPL-3.0-or-later', 'MIT AND GPL-2.0', 'UNKNOWN', 'Custom: LICENSE', '(MIT', 'MIT OR']) {
      expect(satisfies(licence, 'a'), licence).toBe(false);
    }
  });

  it('accepts LGPL only for the libvips packages named as exceptions', () => {
    expect(satisfies('LGPL-3.0-or-later', '@img/sharp-libvips-linux-x64')).toBe(true);
    expect(satisfies('LGPL-3.0-or-later', 'some-package')).toBe(false);
    expect(satisfies('GPL-3.0-or-later', '@img/sharp-libvips-linux-x64')).toBe(false);
    expect(
      violations({
        'a@1.0.0': { licenses: 'MIT' },
        '@img/sharp-libvips-linux-x64@1.3.4': { licenses: 'LGPL-3.0-or-later' },
        'b@2.0.0': { licenses: 'LGPL-2.1' },
        'c@3.0.0': { licenses: ['MIT', 'GPL-2.0'] },
        'd@1.0.0': { licenses: 'ISC*' },
      }),
    ).toEqual(['b@2.0.0: LGPL-2.1', 'c@3.0.0: MIT, GPL-2.0']);
  });

  it('reads @sesamecare-oss/redlock 1.4.0 (UNLICENSED in package.json, MIT in LICENSE.md) as MIT, and no other version', () => {
    expect(licencesOf('@sesamecare-oss/redlock@1.4.0', { licenses: 'UNLICENSED' })).toEqual(['MIT']);
    expect(licencesOf('@sesamecare-oss/redlock@1.4.1', { licenses: 'UNLICENSED' })).toEqual(['UNLICENSED']);
    expect(
      violations({
        '@sesamecare-oss/redlock@1.4.0': { licenses: 'UNLICENSED' },
        '@sesamecare-oss/redlock@1.5.0': { licenses: 'UNLICENSED' },
        'other@1.4.0': { licenses: 'UNLICENSED' },
      }),
    ).toEqual(['@sesamecare-oss/redlock@1.5.0: UNLICENSED', 'other@1.4.0: UNLICENSED']);
  });
});
