import { randomBytes, scrypt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashAdminPassword, passwordHashIsOutdated, verifyAdminPassword } from '../../functions/domain/staff';
import { checkPassword } from '../../functions/domain/staff';
import { newAccount } from '../../functions/domain/staff';
import { domainFixture } from '../support/domain-fixture';

/** A hash as versions before the raise wrote it: scrypt N = 2^15. */
function oldHash(password: string): Promise<string> {
  const salt = randomBytes(16);
  return new Promise((resolve, reject) =>
    scrypt(password, salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(['scrypt', 1 << 15, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$')),
    ),
  );
}

const costOf = (hash: string) => Number(hash.split('$')[1]);

describe('password hashing', () => {
  it('hashes with scrypt N = 2^17, r = 8, p = 1 (OWASP), and still verifies older hashes', async () => {
    const hash = await hashAdminPassword('a password of some length');
    expect(hash.split('$').slice(0, 4)).toEqual(['scrypt', String(2 ** 17), '8', '1']);
    expect(await verifyAdminPassword('a password of some length', hash)).toBe(true);
    expect(await verifyAdminPassword('another password', hash)).toBe(false);
    const old = await oldHash('a password of some length');
    expect(await verifyAdminPassword('a password of some length', old)).toBe(true);
    expect(passwordHashIsOutdated(old)).toBe(true);
    expect(passwordHashIsOutdated(hash)).toBe(false);
  });

  it('rehashes an account\'s older hash at its next successful sign-in, never at a failed one', async () => {
    const { deps, stores } = domainFixture();
    const signIn = { ...deps, adminSecrets: { adminPasswordHash: await hashAdminPassword('the owner password'), totpEncryptionKey: randomBytes(32).toString('base64url') } };
    const old = await oldHash('ann has a long password');
    await stores.accounts.createAccount(newAccount('ann', 'manager', old, deps.now().toISOString()));
    await expect(checkPassword(signIn, '192.0.2.7', { username: 'ann', password: 'not her password' }, '192.0.2.1')).rejects.toThrow();
    expect((await stores.accounts.getAccount('ann'))!.passwordHash).toBe(old);
    expect(await checkPassword(signIn, '192.0.2.7', { username: 'ann', password: 'ann has a long password' }, '192.0.2.1')).toMatchObject({ step: 'signed-in' });
    const upgraded = (await stores.accounts.getAccount('ann'))!.passwordHash!;
    expect(costOf(upgraded)).toBe(2 ** 17);
    expect(await checkPassword(signIn, '192.0.2.7', { username: 'ann', password: 'ann has a long password' }, '192.0.2.1')).toMatchObject({ step: 'signed-in' });
  }, 60_000);
});
