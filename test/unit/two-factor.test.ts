import { Secret } from 'otpauth';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { issueAdminSession, issueSecondFactorChallenge, readAdminSession, readSecondFactorChallenge } from '../../functions/domain/staff';
import { openTotpSecret, sealTotpSecret } from '../../functions/domain/staff';
import { hashRecoveryCode, matchTotp, newRecoveryCodes, newTotpSecret } from '../../functions/domain/staff';

const SECRET = 's'.repeat(40);

describe('TOTP', () => {
  // RFC 6238 appendix B, SHA-1 seed "12345678901234567890": at T = 59 s the 8-digit code is 94287082.
  const rfcSecret = Secret.fromUTF8('12345678901234567890').base32;

  it('matches the RFC 6238 test vector (6 digits) and names its time step', () => {
    expect(matchTotp(rfcSecret, 'x', '287082', new Date(59_000))).toBe(1);
    expect(matchTotp(rfcSecret, 'x', '287 082', new Date(59_000))).toBe(1);
  });

  it('tolerates one step of clock drift, not two', () => {
    expect(matchTotp(rfcSecret, 'x', '287082', new Date(59_000 + 30_000))).toBe(1);
    expect(matchTotp(rfcSecret, 'x', '287082', new Date(59_000 + 60_000))).toBeNull();
  });

  it('refuses anything but six digits', () => {
    for (const code of ['', '28708', '2870822', 'abcdef', '287082x']) expect(matchTotp(rfcSecret, 'x', code, new Date(59_000))).toBeNull();
  });

  it('makes 160-bit secrets', () => {
    expect(Secret.fromBase32(newTotpSecret()).bytes).toHaveLength(20);
  });
});

describe('recovery codes', () => {
  it('are ten distinct 16-character codes, hashed the same however they are typed', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$/);
    const [code] = codes as [string];
    expect(hashRecoveryCode(code.toLowerCase().replaceAll('-', ' '))).toBe(hashRecoveryCode(code));
    expect(hashRecoveryCode(code)).not.toBe(hashRecoveryCode(codes[1]!));
  });
});

describe('admin session tokens', () => {
  const now = new Date();

  it('carry the account and its session generation', async () => {
    const { token } = await issueAdminSession(SECRET, now, { username: 'ann', generation: 3 });
    expect(await readAdminSession(token, SECRET, now)).toMatchObject({ username: 'ann', generation: 3, enrolOnly: false });
  });

  it('are not second-factor challenges, and the reverse', async () => {
    const { token } = await issueAdminSession(SECRET, now, { username: 'ann', generation: 0 });
    const challenge = await issueSecondFactorChallenge(SECRET, now, { username: 'ann', generation: 0 });
    expect(await readSecondFactorChallenge(token, SECRET, now)).toBeNull();
    expect(await readAdminSession(challenge, SECRET, now)).toBeNull();
    expect(await readSecondFactorChallenge(challenge, SECRET, now)).toEqual({ username: 'ann', generation: 0 });
  });

  it('refuse a cookie from before accounts (no generation)', async () => {
    const old = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('admin')
      .setAudience('stagedoor-admin')
      .setJti('x')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    expect(await readAdminSession(old, SECRET, new Date())).toBeNull();
  });
});

describe('TOTP secrets at rest', () => {
  const key = Buffer.alloc(32, 7).toString('base64url');

  it('seals a secret for one account under the key, opens it again, and leaves secrets stored before sealing readable', () => {
    const secret = newTotpSecret();
    const sealed = sealTotpSecret(secret, key, 'ann');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(secret);
    expect(sealTotpSecret(secret, key, 'ann')).not.toBe(sealed);
    expect(openTotpSecret(sealed, key, 'ann')).toBe(secret);
    expect(openTotpSecret(secret, key, 'ann')).toBe(secret);
  });

  it('refuses another account\'s sealed secret, another key and a changed byte', () => {
    const sealed = sealTotpSecret(newTotpSecret(), key, 'ann');
    expect(() => openTotpSecret(sealed, key, 'bob')).toThrow();
    expect(() => openTotpSecret(sealed, Buffer.alloc(32, 8).toString('base64url'), 'ann')).toThrow();
    const flipped = `${sealed.slice(0, -2)}${sealed.at(-2) === 'A' ? 'B' : 'A'}${sealed.at(-1)}`;
    expect(() => openTotpSecret(flipped, key, 'ann')).toThrow();
    expect(() => sealTotpSecret('x', 'short', 'ann')).toThrow(/32 bytes/);
  });
});
