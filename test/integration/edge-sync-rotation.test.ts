/**
 * A signing-key rotation under a warm edge-sync: the shipped Lambda entry
 * point (secrets from a Secrets Manager stub, the table on the embedded
 * DynamoDB, an in-memory KeyValueStore) writes `k:<new kid>` once its cached
 * configuration is older than the maximum age every entry point shares.
 */
import { randomBytes } from 'node:crypto';
import { mockClient } from 'aws-sdk-client-mock';
import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../local/embedded-dynamodb';
import { CONFIG_MAX_AGE_SECONDS } from '../../functions/adapters/secrets';
import { memoryKvs } from '../support/memory-kvs';
import { kvsKey } from '../../functions/adapters/kvs-scheme';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:stagedoor-abc';
const key = () => randomBytes(32).toString('base64url');
const secretWith = (keys: Record<string, string>, activeKid: string) =>
  JSON.stringify({
    playbackSigningKeys: JSON.stringify({ activeKid, keys }),
    adminPasswordHash: 'scrypt$32768$8$1$x$y',
    adminSessionSecret: 'a'.repeat(43),
    internalApiKey: 'b'.repeat(24),
    watermarkSecret: 'w'.repeat(43),
  });

let dynamo: EmbeddedDynamo;
beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ tableName: 'rotation' });
  Object.assign(process.env, {
    TABLE_NAME: 'rotation',
    SECRETS_ARN: SECRET_ARN,
    KVS_ARN: 'arn:aws:cloudfront::123456789012:key-value-store/rotation',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  });
});
afterAll(async () => {
  vi.useRealTimers();
  delete process.env.SECRETS_ARN;
  delete process.env.KVS_ARN;
  await dynamo?.close();
});

describe('signing-key rotation under a warm edge-sync', () => {
  it('writes the new key once the cached secret is older than the maximum age', async () => {
    const secrets = mockClient(SecretsManagerClient);
    const kvs = memoryKvs(mockClient(CloudFrontKeyValueStoreClient));
    const k1 = key();
    secrets.on(GetSecretValueCommand).resolves({ SecretString: secretWith({ k1 }, 'k1') });
    vi.useFakeTimers({ toFake: ['Date'] });
    const { handler } = await import('../../functions/handlers/edge-sync');

    await handler({ source: 'aws.events' });
    expect([...kvs.entries.keys()]).toEqual([kvsKey.signingKey('k1')]);

    // docs/deploy.md: add k2, make it active; the API signs with k2 once its own cache expires.
    const k2 = key();
    secrets.on(GetSecretValueCommand).resolves({ SecretString: secretWith({ k1, k2 }, 'k2') });
    vi.setSystemTime(Date.now() + (CONFIG_MAX_AGE_SECONDS + 1) * 1000);
    await handler({ source: 'aws.events' });
    expect([...kvs.entries.keys()].sort()).toEqual([kvsKey.signingKey('k1'), kvsKey.signingKey('k2')]);
    expect(kvs.entries.get(kvsKey.signingKey('k2'))).toBe(k2);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });
});
