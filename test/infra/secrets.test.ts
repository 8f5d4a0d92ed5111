import { describe, expect, it } from 'vitest';
import { verifyAdminPassword } from '../../functions/domain/admin-credentials';
import { parseSigningKeys } from '../../functions/domain/signing-keys';
import { fillMissing } from '../../infra/runtime/seed-secrets';
import { withAdminPassword } from '../../infra/scripts/set-admin-password';

describe('secret seeding (custom resource)', () => {
  it('generates every missing field in the shape the functions parse', async () => {
    const { next, added } = await fillMissing({ adminSessionSecret: 'x'.repeat(64) });
    expect(added.sort()).toEqual(['adminPasswordHash', 'internalApiKey', 'originVerifySecret', 'playbackSigningKeys']);
    const keys = parseSigningKeys(next.playbackSigningKeys as string);
    expect(keys.activeKid).toBe('k1');
    expect(keys.keys.get('k1')).toHaveLength(32);
    expect(next.adminPasswordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect((next.internalApiKey as string).length).toBeGreaterThanOrEqual(16);
    expect((next.originVerifySecret as string).length).toBeGreaterThanOrEqual(16);
    expect(next.adminSessionSecret).toBe('x'.repeat(64));
  });

  it('never replaces a value that is already set (redeploys keep keys and the password)', async () => {
    const current = {
      playbackSigningKeys: '{"activeKid":"k2","keys":{}}',
      adminPasswordHash: 'scrypt$set-by-operator',
      adminSessionSecret: 'a',
      internalApiKey: 'b',
      originVerifySecret: 'c',
      extra: 'kept',
    };
    expect(await fillMissing(current)).toEqual({ next: current, added: [] });
  });
});

describe('set-admin-password script', () => {
  it('writes a hash the admin function accepts and keeps the other fields', async () => {
    const next = JSON.parse(await withAdminPassword(JSON.stringify({ internalApiKey: 'keep-me', adminSessionSecret: 's' }), 'correct horse battery'));
    expect(next.internalApiKey).toBe('keep-me');
    expect(next.adminSessionSecret).toBe('s');
    expect(await verifyAdminPassword('correct horse battery', next.adminPasswordHash)).toBe(true);
    expect(await verifyAdminPassword('wrong', next.adminPasswordHash)).toBe(false);
  });

  it('rotates the session secret on request and refuses short passwords', async () => {
    const next = JSON.parse(await withAdminPassword('{"adminSessionSecret":"old"}', 'long enough password', { rotateSessions: true }));
    expect(next.adminSessionSecret).not.toBe('old');
    expect(next.adminSessionSecret.length).toBeGreaterThanOrEqual(32);
    await expect(withAdminPassword('{}', 'short')).rejects.toThrow(/at least 12/);
  });
});
