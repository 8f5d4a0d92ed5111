import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { randomBytes } from 'node:crypto';
import { apiGatewayEvent } from '../support/api-gateway-event';

/**
 * Failures the stand-ins cannot produce: DynamoDB throttling and Secrets
 * Manager outages. The Lambda handlers must deny (never admit) and recover.
 */
const dynamo = mockClient(DynamoDBDocumentClient);
const secrets = mockClient(SecretsManagerClient);

/** From one address that is not loopback, as API Gateway would see a viewer. */
const apiEvent = (routeKey: string, body?: unknown) => apiGatewayEvent(routeKey, { body, headers: { 'x-forwarded-for': '203.0.113.1' } });
const context = {} as Context;

beforeEach(async () => {
  dynamo.reset();
  secrets.reset();
  Object.assign(process.env, {
    TABLE_NAME: 'stagedoor',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
    SECRETS_ARN: 'arn:aws:secretsmanager:us-east-1:1:secret:stagedoor',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
});
afterEach(() => {
  delete process.env.SECRETS_ARN;
});

/** The shared secret as the public function reads it (the admin fields live in the admin secret). */
const secretValue = async () => ({
  SecretString: JSON.stringify({
    playbackSigningKeys: JSON.stringify({ activeKid: 'k', keys: { k: randomBytes(32).toString('base64url') } }),
    internalApiKey: randomBytes(24).toString('base64url'),
    watermarkSecret: randomBytes(32).toString('base64url'),
  }),
});

describe('when dependencies fail', () => {
  it('answers 500 without details and retries the cold start after Secrets Manager was unreachable', async () => {
    const { handler } = await import('../../functions/handlers/public');
    secrets.on(GetSecretValueCommand).rejectsOnce(new Error('connect ETIMEDOUT')).resolves(await secretValue());
    dynamo.on(UpdateCommand).resolves({});
    dynamo.on(GetCommand).resolves({});
    const first = await handler(apiEvent('POST /api/tokens/validate', { code: 'ABCDEFGHJKLM' }), context);
    expect(first).toMatchObject({ statusCode: 500, body: JSON.stringify({ error: 'Internal server error' }) });
    const second = await handler(apiEvent('POST /api/tokens/validate', { code: 'ABCDEFGHJKLM' }), context);
    expect(second).toMatchObject({ statusCode: 401, body: JSON.stringify({ error: 'Invalid access code' }) });
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('denies validation when DynamoDB throttles, and rate-limits by the connection address', async () => {
    const { handler } = await import('../../functions/handlers/public');
    secrets.on(GetSecretValueCommand).resolves(await secretValue());
    dynamo.on(UpdateCommand).resolves({});
    dynamo.on(GetCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    const res = await handler(apiEvent('POST /api/tokens/validate', { code: 'ABCDEFGHJKLM' }), context);
    // A table that refuses for load is a moment's unavailability, not a fault: 503 with a retry hint.
    expect(res).toMatchObject({ statusCode: 503, body: JSON.stringify({ error: 'The service is busy: try again in a moment' }), headers: expect.objectContaining({ 'retry-after': '2' }) });
    // The window is read (only failed attempts are written to it), keyed by the connection address.
    const keys = dynamo.commandCalls(GetCommand).map((call) => (call.args[0].input.Key as { pk: string }).pk);
    expect(keys.some((pk) => /^RATE#validate#198\.51\.100\.7#/.test(pk))).toBe(true);
  });
});
