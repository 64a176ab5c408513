// The development identity provider's memory store (src/auth/dev-idp-store.ts), as oidc-provider's adapter contract
// uses it: entries by model and id, expiry, consume, lookups by uid and user code, revocation of a grant.
import { describe, expect, it } from 'vitest';
import { devIdpStore } from '../../src/auth/dev-idp-store.js';

describe('the development identity provider store', () => {
  it('keeps entries per model until they expire, marks consumed codes, and revokes a grant everywhere', async () => {
    let clock = 1_000_000;
    const Adapter = devIdpStore(() => clock);
    const codes = new Adapter('AuthorizationCode');
    const sessions = new Adapter('Session');
    await codes.upsert('c1', { grantId: 'g1', uid: 'u1' }, 60);
    await sessions.upsert('c1', { uid: 's1', userCode: 'WXYZ' }, 3600);
    expect(await codes.find('c1')).toMatchObject({ grantId: 'g1' });
    expect(await sessions.find('c1')).toMatchObject({ uid: 's1' }); // same id, another model: another entry
    expect(await codes.findByUid('u1')).toMatchObject({ grantId: 'g1' });
    expect(await codes.findByUid('s1')).toBeUndefined();
    expect(await sessions.findByUserCode('WXYZ')).toMatchObject({ uid: 's1' });

    await codes.consume('c1');
    expect((await codes.find('c1'))?.consumed).toBe(1000);

    clock += 61_000; // the code's 60 s are over, the session's hour is not
    expect(await codes.find('c1')).toBeUndefined();
    expect(await sessions.find('c1')).toBeDefined();

    await new Adapter('Grant').upsert('g2', { grantId: 'g2' }, 0); // no expiry
    await sessions.upsert('c2', { grantId: 'g2' }, 3600);
    await sessions.revokeByGrantId('g2');
    expect(await sessions.find('c2')).toBeUndefined();
    expect(await new Adapter('Grant').find('g2')).toBeUndefined();
    await sessions.destroy('c1');
    expect(await sessions.find('c1')).toBeUndefined();
  });
});
