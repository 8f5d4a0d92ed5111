import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashAdminPassword } from '../../functions/domain/staff';
import { checkPassword } from '../../functions/domain/staff';
import { countedFactor, SIGN_IN_LIMITS, signInLockOf, unlockSignIn } from '../../functions/domain/staff';
import { newAccount } from '../../functions/domain/staff';
import { domainFixture, refusal } from '../support/domain-fixture';

const attempt = (address: string, name = 'lou') => ({ name, account: name, address });
const wrong = async () => false;

describe('sign-in limits', () => {
  it('counts before checking: of 10 parallel wrong factors from 10 addresses at most 5 are checked, and the name locks', async () => {
    const { deps } = domainFixture();
    let checked = 0;
    const check = async () => {
      checked++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return false;
    };
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => countedFactor(deps, attempt(`198.51.100.${i}`), check)));
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeLessThanOrEqual(SIGN_IN_LIMITS.name.failures);
    // A locked name still runs its check (the same scrypt as any other attempt), then refuses.
    expect(checked).toBe(10);
    expect(await signInLockOf(deps, 'lou')).not.toBeNull();
    expect(await refusal(countedFactor(deps, attempt('198.51.100.99'), async () => true))).toMatchObject({
      status: 429,
      body: { error: 'Account locked after repeated failed sign-ins', reason: 'locked' },
    });
  });

  it('lets one address fail 3 times per name and no more: alone, however slowly it tries, it never locks the name', async () => {
    const fixture = domainFixture();
    const { deps } = fixture;
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < SIGN_IN_LIMITS.address.failures; i++) expect(await countedFactor(deps, attempt('203.0.113.5'), wrong)).toBe(false);
      const refused = await refusal(countedFactor(deps, attempt('203.0.113.5'), async () => true));
      expect(refused).toMatchObject({ status: 429, body: { reason: 'address-locked' } });
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(SIGN_IN_LIMITS.address.lockSeconds);
      expect(await signInLockOf(deps, 'lou')).toBeNull();
      fixture.advance(SIGN_IN_LIMITS.address.lockSeconds + 1);
    }
    // Meanwhile the name is open from anywhere else, and a right factor does not count.
    expect(await countedFactor(deps, attempt('192.0.2.1'), async () => true)).toBe(true);
  });

  it('locks a name at 5 failures within its window, not at 5 spread over longer; the lock ends by itself or by unlock', async () => {
    const fixture = domainFixture();
    const { deps } = fixture;
    for (let i = 0; i < 8; i++) {
      await countedFactor(deps, attempt(`198.51.100.${i}`), wrong);
      fixture.advance(SIGN_IN_LIMITS.name.windowSeconds / 4 + 1);
    }
    expect(await signInLockOf(deps, 'lou')).toBeNull();
    for (let i = 0; i < SIGN_IN_LIMITS.name.failures; i++) await countedFactor(deps, attempt(`192.0.2.${i}`), wrong);
    expect(await signInLockOf(deps, 'lou')).not.toBeNull();
    fixture.advance(SIGN_IN_LIMITS.name.lockSeconds + 1);
    expect(await countedFactor(deps, attempt('192.0.2.50'), async () => true)).toBe(true);
    for (let i = 0; i < SIGN_IN_LIMITS.name.failures; i++) await countedFactor(deps, attempt(`192.0.2.${60 + i}`), wrong);
    expect(await unlockSignIn(deps, 'lou')).not.toBeNull();
    expect(await countedFactor(deps, attempt('192.0.2.70'), async () => true)).toBe(true);
    expect(await unlockSignIn(deps, 'lou')).toBeNull();
  });

  it('answers a name no account has exactly as a locked account once it failed as often', async () => {
    const { deps, stores } = domainFixture();
    const signIn = { ...deps, adminSecrets: { adminPasswordHash: await hashAdminPassword('the owner password'), totpEncryptionKey: randomBytes(32).toString('base64url') } };
    await stores.accounts.createAccount(newAccount('kim', 'read-only', await hashAdminPassword('kim password is long'), deps.now().toISOString()));
    const failures = SIGN_IN_LIMITS.name.failures;
    for (let i = 0; i < failures; i++) {
      for (const username of ['kim', 'no-such-name']) {
        expect(await refusal(checkPassword(signIn, '192.0.2.7', { username, password: 'a wrong password' }, `198.51.100.${i}`))).toMatchObject({ status: 401 });
      }
    }
    const known = await refusal(checkPassword(signIn, '192.0.2.7', { username: 'kim', password: 'kim password is long' }, '192.0.2.1'));
    const unknown = await refusal(checkPassword(signIn, '192.0.2.7', { username: 'no-such-name', password: 'kim password is long' }, '192.0.2.1'));
    expect(unknown).toEqual(known);
    expect(known).toMatchObject({ status: 429, body: { reason: 'locked' } });
    // Fifteen scrypt checks at N = 2^17, on a machine shared with other suites.
  }, 120_000);
});
