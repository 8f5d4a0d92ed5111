import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it, vi } from 'vitest';
import { hashAdminPassword, verifyAdminPassword } from '../../functions/domain/staff';
import { parseSigningKeys } from '../../functions/domain/signing-keys';
import { ADMIN_FIELDS, fillAdmin, fillShared, handler, seedStep, withoutAdminFields, type SecretStore } from '../../infra/runtime/seed-secrets';
import { withAdminPassword } from '../../infra/scripts/set-admin-password';

const SHARED = 'arn:aws:secretsmanager:eu-west-1:1:secret:Secrets-a';
const ADMIN = 'arn:aws:secretsmanager:eu-west-1:1:secret:AdminSecret-b';
const arns = { shared: SHARED, admin: ADMIN };

/** Two secrets in memory, with every write in order; `failWrites` makes writes to that secret fail. */
function memorySecrets(initial: Record<string, Record<string, unknown>>, failWrites?: string) {
  const values = new Map(Object.entries(initial).map(([arn, value]) => [arn, JSON.stringify(value)]));
  const writes: string[] = [];
  const store: SecretStore = {
    async read(arn) {
      return JSON.parse(values.get(arn) ?? '{}');
    },
    async write(arn, value) {
      if (arn === failWrites) throw new Error('AccessDeniedException');
      writes.push(arn);
      values.set(arn, JSON.stringify(value));
    },
  };
  return { store, writes, value: (arn: string) => JSON.parse(values.get(arn) ?? '{}') as Record<string, string> };
}

/** The shared secret of a stack deployed before the split: all five fields in one secret. */
async function oldSharedSecret(password = 'correct horse battery') {
  return {
    playbackSigningKeys: '{"activeKid":"k2","keys":{"k2":"x"}}',
    adminPasswordHash: await hashAdminPassword(password),
    adminSessionSecret: 's'.repeat(64),
    internalApiKey: 'i'.repeat(43),
    originVerifySecret: 'o'.repeat(43),
    watermarkSecret: 'w'.repeat(43),
  };
}

describe('secret seeding (custom resource)', () => {
  it('fills a fresh stack: the generated session secret moves to the admin secret, the rest is generated in the shape the functions parse', async () => {
    // CloudFormation creates the shared secret with adminSessionSecret only, the admin secret as {}.
    const secrets = memorySecrets({ [SHARED]: { adminSessionSecret: 'g'.repeat(64) }, [ADMIN]: {} });
    const filled = await seedStep(secrets.store, 'fill', arns);
    expect(filled).toEqual({
      copied: ['adminSessionSecret'],
      generated: ['adminPasswordHash', 'totpEncryptionKey'],
      added: ['playbackSigningKeys', 'internalApiKey', 'originVerifySecret', 'watermarkSecret'],
      removed: [],
    });
    const admin = secrets.value(ADMIN);
    expect(admin.adminSessionSecret).toBe('g'.repeat(64));
    expect(admin.adminPasswordHash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(Buffer.from(admin.totpEncryptionKey!, 'base64url')).toHaveLength(32);
    const keys = parseSigningKeys(secrets.value(SHARED).playbackSigningKeys!);
    expect(keys.activeKid).toBe('k1');
    expect(keys.keys.get('k1')).toHaveLength(32);
    expect(secrets.value(SHARED).internalApiKey!.length).toBeGreaterThanOrEqual(16);
    expect(secrets.value(SHARED).originVerifySecret!.length).toBeGreaterThanOrEqual(16);
    expect(secrets.value(SHARED).watermarkSecret!.length).toBeGreaterThanOrEqual(16);

    expect(await seedStep(secrets.store, 'retire', arns)).toEqual({ copied: [], generated: [], added: [], removed: ['adminSessionSecret'] });
    expect(Object.keys(secrets.value(SHARED)).sort()).toEqual(['internalApiKey', 'originVerifySecret', 'playbackSigningKeys', 'watermarkSecret']);
    expect(secrets.value(ADMIN)).toEqual(admin);
  });

  it('upgrades an old stack by copying, then stripping: the admin password and every session survive', async () => {
    const old = await oldSharedSecret();
    const secrets = memorySecrets({ [SHARED]: old, [ADMIN]: {} });
    expect(await seedStep(secrets.store, 'fill', arns)).toMatchObject({ copied: ['adminPasswordHash', 'adminSessionSecret'], generated: ['totpEncryptionKey'], added: [] });
    // The shared secret is untouched until the stack's last step: functions not yet updated still read it.
    expect(secrets.writes).toEqual([ADMIN]);
    expect(secrets.value(SHARED)).toEqual(old);

    expect(await seedStep(secrets.store, 'retire', arns)).toMatchObject({ copied: [], removed: ['adminPasswordHash', 'adminSessionSecret'] });
    expect(secrets.writes).toEqual([ADMIN, SHARED]);
    const admin = secrets.value(ADMIN);
    expect(admin).toEqual({ adminPasswordHash: old.adminPasswordHash, adminSessionSecret: old.adminSessionSecret, totpEncryptionKey: expect.any(String) });
    expect(await verifyAdminPassword('correct horse battery', admin.adminPasswordHash!)).toBe(true);
    expect(secrets.value(SHARED)).toEqual({
      playbackSigningKeys: old.playbackSigningKeys,
      internalApiKey: old.internalApiKey,
      originVerifySecret: old.originVerifySecret,
      watermarkSecret: old.watermarkSecret,
    });
  });

  it('adds the watermark secret to a stack from before it, once, and never replaces it (the recordings\' marks depend on it)', async () => {
    const { watermarkSecret, ...before } = await oldSharedSecret();
    expect(watermarkSecret).toBeDefined();
    const first = await fillShared(before);
    expect(first.added).toEqual(['watermarkSecret']);
    expect(Buffer.from(first.next.watermarkSecret as string, 'base64url')).toHaveLength(32);
    expect(await fillShared(first.next)).toEqual({ next: first.next, added: [] });
  });

  it('is idempotent: re-running either step on a migrated stack writes nothing', async () => {
    const secrets = memorySecrets({ [SHARED]: await oldSharedSecret(), [ADMIN]: {} });
    await seedStep(secrets.store, 'fill', arns);
    await seedStep(secrets.store, 'retire', arns);
    const before = { shared: secrets.value(SHARED), admin: secrets.value(ADMIN), writes: secrets.writes.length };
    for (const step of ['fill', 'retire', 'fill'] as const) {
      expect(await seedStep(secrets.store, step, arns)).toEqual({ copied: [], generated: [], added: [], removed: [] });
    }
    expect(secrets.writes).toHaveLength(before.writes);
    expect({ shared: secrets.value(SHARED), admin: secrets.value(ADMIN) }).toEqual({ shared: before.shared, admin: before.admin });
  });

  it('re-runs a half-done migration without overwriting the admin secret: a password set after the copy wins', async () => {
    const old = await oldSharedSecret('the old password');
    // The copy ran, the strip did not (a deploy that failed and rolled back); meanwhile the operator set a new password.
    const newHash = await hashAdminPassword('the new password');
    const secrets = memorySecrets({
      [SHARED]: old,
      [ADMIN]: { adminPasswordHash: newHash, adminSessionSecret: old.adminSessionSecret, totpEncryptionKey: 'k'.repeat(43) },
    });
    expect(await seedStep(secrets.store, 'fill', arns)).toEqual({ copied: [], generated: [], added: [], removed: [] });
    expect(await seedStep(secrets.store, 'retire', arns)).toMatchObject({ copied: [], removed: ['adminPasswordHash', 'adminSessionSecret'] });
    expect(secrets.value(ADMIN).adminPasswordHash).toBe(newHash);
    for (const field of ADMIN_FIELDS) expect(secrets.value(SHARED)).not.toHaveProperty(field);
  });

  it('completes a partly filled admin secret field by field, and the strip step copies first when the fill never ran', async () => {
    const old = await oldSharedSecret();
    const operatorHash = await hashAdminPassword('set before the first seeding');
    const partial = memorySecrets({ [SHARED]: old, [ADMIN]: { adminPasswordHash: operatorHash } });
    expect(await seedStep(partial.store, 'retire', arns)).toMatchObject({ copied: ['adminSessionSecret'], removed: ['adminPasswordHash', 'adminSessionSecret'] });
    // The admin secret is written before the shared secret loses anything.
    expect(partial.writes).toEqual([ADMIN, SHARED]);
    expect(partial.value(ADMIN)).toEqual({ adminPasswordHash: operatorHash, adminSessionSecret: old.adminSessionSecret, totpEncryptionKey: expect.any(String) });
  });

  it('leaves the shared secret whole when the admin secret cannot be written', async () => {
    const old = await oldSharedSecret();
    const secrets = memorySecrets({ [SHARED]: old, [ADMIN]: {} }, ADMIN);
    await expect(seedStep(secrets.store, 'retire', arns)).rejects.toThrow(/AccessDenied/);
    expect(secrets.value(SHARED)).toEqual(old);
    expect(() => withoutAdminFields(old, { adminSessionSecret: 'x' })).toThrow(/lacks adminPasswordHash/);
  });

  it('never replaces a value that is already set', async () => {
    const shared = { playbackSigningKeys: '{"activeKid":"k2","keys":{}}', internalApiKey: 'b', originVerifySecret: 'c', watermarkSecret: 'd', extra: 'kept' };
    expect(await fillShared(shared)).toEqual({ next: shared, added: [] });
    const admin = { adminPasswordHash: 'scrypt$set-by-operator', adminSessionSecret: 'a', totpEncryptionKey: 'kept' };
    expect(await fillAdmin(admin, { adminPasswordHash: 'scrypt$other', adminSessionSecret: 'other' })).toEqual({ next: admin, copied: [], generated: [] });
  });

  it('runs through Secrets Manager: reads both secrets by ARN, refuses a value that is not JSON, ignores Delete', async () => {
    const sm = mockClient(SecretsManagerClient);
    const values = new Map<string, string>([
      [SHARED, JSON.stringify(await oldSharedSecret())],
      [ADMIN, '{}'],
    ]);
    sm.on(GetSecretValueCommand).callsFake(async (input: { SecretId: string }) => ({ SecretString: values.get(input.SecretId) }));
    sm.on(PutSecretValueCommand).callsFake(async (input: { SecretId: string; SecretString: string }) => {
      values.set(input.SecretId, input.SecretString);
      return {};
    });
    // The handler logs the field names it changed; keep the test output clean.
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const event = (RequestType: 'Create' | 'Update' | 'Delete', Step: 'fill' | 'retire') => ({
      RequestType,
      ResourceProperties: { SecretArn: SHARED, AdminSecretArn: ADMIN, Step },
    });
    try {
      expect(await handler(event('Update', 'fill'))).toEqual({ PhysicalResourceId: SHARED });
      expect(await handler(event('Create', 'retire'))).toEqual({ PhysicalResourceId: `${SHARED}#admin-fields-retired` });
      expect(Object.keys(JSON.parse(values.get(ADMIN)!)).sort()).toEqual(['adminPasswordHash', 'adminSessionSecret', 'totpEncryptionKey']);
      expect(Object.keys(JSON.parse(values.get(SHARED)!)).sort()).toEqual(['internalApiKey', 'originVerifySecret', 'playbackSigningKeys', 'watermarkSecret']);

      const puts = sm.commandCalls(PutSecretValueCommand).length;
      expect(await handler({ ...event('Delete', 'retire'), PhysicalResourceId: 'kept' })).toEqual({ PhysicalResourceId: 'kept' });
      expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(puts);

      // A rollback's Update with the properties of a template from before the split changes nothing.
      const old = { RequestType: 'Update' as const, PhysicalResourceId: SHARED, ResourceProperties: { SecretArn: SHARED, Fields: 'playbackSigningKeys' } };
      expect(await handler(old)).toEqual({ PhysicalResourceId: SHARED });
      expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(puts);

      values.set(ADMIN, 'not json but a plain password');
      await expect(handler(event('Update', 'fill'))).rejects.toThrow();
      values.set(ADMIN, '"a string"');
      await expect(handler(event('Update', 'fill'))).rejects.toThrow(/does not hold a JSON object/);
      expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(puts);
      // Field names only, never a value.
      const logged = log.mock.calls.flat().join('\n');
      expect(logged).toContain('adminSessionSecret');
      expect(logged).not.toContain('s'.repeat(64));
    } finally {
      sm.restore();
      log.mockRestore();
    }
  });
});

describe('set-admin-password script', () => {
  it('writes a hash the admin function accepts into the admin secret and keeps its other fields', async () => {
    const next = JSON.parse(await withAdminPassword(JSON.stringify({ adminPasswordHash: 'scrypt$old', adminSessionSecret: 's' }), 'correct horse battery'));
    expect(Object.keys(next).sort()).toEqual(['adminPasswordHash', 'adminSessionSecret']);
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

  it('refuses the shared secret, where the admin function would never read the password', async () => {
    const shared = JSON.stringify({ playbackSigningKeys: '{}', internalApiKey: 'k', originVerifySecret: 'o' });
    await expect(withAdminPassword(shared, 'correct horse battery')).rejects.toThrow(/AdminSecretArn/);
    // A stack from before the split still holds the admin fields there: same answer, the next deploy moves them.
    await expect(withAdminPassword(JSON.stringify(await oldSharedSecret()), 'correct horse battery')).rejects.toThrow(/shared secret/);
  });
});
