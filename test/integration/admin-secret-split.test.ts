/**
 * The secret split at run time: the shipped Lambda entry points, configured as
 * in AWS (SECRETS_ARN for all, ADMIN_SECRETS_ARN for the admin function only),
 * with Secrets Manager stubbed by ARN (no stand-in exists) and the table on the
 * embedded DynamoDB. The non-admin functions work from a shared secret without
 * admin fields and never ask for the admin secret; the admin function signs in
 * with the admin secret and picks up a password set-admin-password wrote there.
 */
import { randomBytes } from 'node:crypto';
import { mockClient } from 'aws-sdk-client-mock';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../local/embedded-dynamodb';
import { CONFIG_MAX_AGE_SECONDS } from '../../functions/adapters/secrets';
import { hashAdminPassword } from '../../functions/domain/staff';
import { withAdminPassword } from '../../infra/scripts/set-admin-password';
import { apiGatewayEvent as apiEvent } from '../support/api-gateway-event';

const SHARED_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:Secrets-abc';
const ADMIN_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:AdminSecret-def';
const INTERNAL_KEY = randomBytes(24).toString('base64url');
const context = {} as Context;

const secrets = mockClient(SecretsManagerClient);
const values = new Map<string, string>();
const asked = () => secrets.commandCalls(GetSecretValueCommand).map((call) => call.args[0].input.SecretId);


let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ tableName: 'split', staffTableName: 'split-staff' });
  Object.assign(process.env, {
    TABLE_NAME: 'split',
    STAFF_TABLE_NAME: 'split-staff',
    SECRETS_ARN: SHARED_ARN,
    ADMIN_SECRETS_ARN: ADMIN_ARN,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  for (const name of ['ADMIN_PASSWORD_HASH', 'ADMIN_SESSION_SECRET', 'PLAYBACK_SIGNING_KEYS', 'INTERNAL_API_KEY', 'WATERMARK_SECRET']) delete process.env[name];
  // The layout after the migration: no admin field is left in the shared secret.
  values.set(
    SHARED_ARN,
    JSON.stringify({
      playbackSigningKeys: JSON.stringify({ activeKid: 'k1', keys: { k1: randomBytes(32).toString('base64url') } }),
      internalApiKey: INTERNAL_KEY,
      originVerifySecret: randomBytes(24).toString('base64url'),
      watermarkSecret: randomBytes(32).toString('base64url'),
    }),
  );
  values.set(
    ADMIN_ARN,
    JSON.stringify({
      adminPasswordHash: await hashAdminPassword('first password, long'),
      adminSessionSecret: randomBytes(48).toString('base64url'),
      totpEncryptionKey: randomBytes(32).toString('base64url'),
    }),
  );
  secrets.on(GetSecretValueCommand).callsFake(async (input: { SecretId: string }) => {
    const value = values.get(input.SecretId);
    if (value === undefined) throw new Error(`AccessDeniedException: ${input.SecretId}`);
    return { SecretString: value, VersionId: randomBytes(8).toString('hex') };
  });
}, 60_000);
afterAll(async () => {
  vi.useRealTimers();
  secrets.restore();
  delete process.env.SECRETS_ARN;
  delete process.env.ADMIN_SECRETS_ARN;
  await dynamo?.close();
});

const login = async (handler: (event: any, context: Context) => Promise<any>, password: string) =>
  handler(apiEvent('POST /api/admin/login', { body: { password } }), context);
const sessionCookie = (result: { cookies?: string[] }) => String(result.cookies?.[0]).split(';')[0]!;

describe('the secret split at run time', () => {
  it('serves viewers, the ingest callback and the internal API from the shared secret alone, never asking for the admin secret', async () => {
    const { handler: publicHandler } = await import('../../functions/handlers/public');
    const { handler: internalHandler } = await import('../../functions/handlers/internal');
    const { handler: callbackHandler } = await import('../../functions/handlers/rtmp-callback');
    const refused = await publicHandler(apiEvent('POST /api/tokens/validate', { body: { code: 'ABCDEFGHJKLM' } }), context);
    expect(refused).toMatchObject({ statusCode: 401, body: JSON.stringify({ error: 'Invalid access code' }) });
    const feed = await internalHandler(apiEvent('GET /api/revocations', { headers: { 'x-internal-api-key': INTERNAL_KEY }, query: { since: new Date(0).toISOString() } }), context);
    expect(feed.statusCode).toBe(200);
    const publish = await callbackHandler(
      apiEvent('POST /api/internal/rtmp-auth', {
        body: { action: 'publish', app: 'live', stream_name: 'nope', query: {} },
        headers: { 'x-internal-api-key': INTERNAL_KEY },
      }),
      context,
    );
    expect(publish.statusCode).toBeLessThan(500);
    expect(new Set(asked())).toEqual(new Set([SHARED_ARN]));
  });

  it('signs the admin in with the admin secret, and takes a password set-admin-password wrote once the cache expires', async () => {
    const { handler } = await import('../../functions/handlers/admin');
    const signedIn = await login(handler, 'first password, long');
    expect(signedIn).toMatchObject({ statusCode: 200, body: JSON.stringify({ success: true }) });
    expect(asked()).toContain(ADMIN_ARN);
    const session = await handler(apiEvent('GET /api/admin/session', { cookies: [sessionCookie(signedIn)] }), context);
    expect(session.statusCode).toBe(200);
    expect(JSON.parse(session.body!)).toMatchObject({ authenticated: true, bootstrap: true });

    // The operator runs infra/scripts/set-admin-password.ts against the admin secret.
    values.set(ADMIN_ARN, await withAdminPassword(values.get(ADMIN_ARN)!, 'second password, long'));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + (CONFIG_MAX_AGE_SECONDS + 1) * 1000);
    expect(await login(handler, 'second password, long')).toMatchObject({ statusCode: 200 });
    expect(await login(handler, 'first password, long')).toMatchObject({ statusCode: 401, body: JSON.stringify({ error: 'Invalid password', reason: 'wrong-password' }) });
    // The session secret did not change: the cookie issued before still works.
    expect((await handler(apiEvent('GET /api/admin/session', { cookies: [sessionCookie(signedIn)] }), context)).statusCode).toBe(200);
    vi.useRealTimers();
  });

  it('fails closed, without details, when the admin function cannot read its secret', async () => {
    const { handler } = await import('../../functions/handlers/admin');
    const granted = values.get(ADMIN_ARN)!;
    // Access to the secret is withdrawn (the stub answers AccessDenied); the cached value expires.
    values.delete(ADMIN_ARN);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 2 * (CONFIG_MAX_AGE_SECONDS + 1) * 1000);
    try {
      expect(await login(handler, 'second password, long')).toMatchObject({ statusCode: 500, body: JSON.stringify({ error: 'Internal server error' }) });
    } finally {
      values.set(ADMIN_ARN, granted);
      vi.useRealTimers();
    }
  });
});
