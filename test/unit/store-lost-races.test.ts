import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoStore } from '../../functions/adapters/dynamo-store';
import { CodeInUse, Contended } from '../../functions/domain/errors';

/**
 * Races the stand-ins cannot lose on demand: a code that changes between every read and
 * conditional write. The store gives up with Contended (never a false "gone" or an SDK
 * error), and errors other than a failed condition pass through untouched.
 */
const dynamo = mockClient(DynamoDBDocumentClient);
const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const store = new DynamoStore(DynamoDBDocumentClient.from(client), 't');
const lost = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const now = '2026-11-21T12:00:00.000Z';
const codeItem = {
  pk: 'CODE#ABC',
  sk: 'CODE',
  entity: 'code',
  tokenId: 't1',
  code: 'ABC',
  eventId: 'e1',
  isRevoked: false,
  eventActive: true,
  session: { id: 'sid-1', startedAt: now, heartbeatAt: now },
  endedSessions: [],
  revision: 3,
};

beforeEach(() => dynamo.reset());
afterAll(() => dynamo.restore());

describe('DynamoStore when every conditional write loses its race', () => {
  it('releaseSession throws Contended after its attempts, each one read again', async () => {
    dynamo.on(GetCommand).resolves({ Item: codeItem });
    dynamo.on(UpdateCommand).rejects(lost());
    await expect(store.releaseSession({ code: 'ABC', sessionId: 'sid-1', now, by: 'admin' })).rejects.toBeInstanceOf(Contended);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(5);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(5);
  });

  it('releaseSession answers false once a read shows the session gone', async () => {
    dynamo.on(GetCommand).resolvesOnce({ Item: codeItem }).resolves({ Item: { ...codeItem, session: null, revision: 4 } });
    dynamo.on(UpdateCommand).rejects(lost());
    expect(await store.releaseSession({ code: 'ABC', sessionId: 'sid-1', now })).toBe(false);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('setCodeRevoked throws Contended, not the SDK error', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [{ tokenId: 't1', code: 'ABC' }] });
    dynamo.on(GetCommand).resolves({ Item: codeItem });
    dynamo.on(UpdateCommand).rejects(lost());
    await expect(store.setCodeRevoked('t1', true, now)).rejects.toBeInstanceOf(Contended);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(9);
  });

  it('maps a failed claim condition to CodeInUse and lets throttling through as it is', async () => {
    const session = { id: 'sid-2', startedAt: now, heartbeatAt: now };
    const claim = { code: 'ABC', expectedRevision: 3, session, endedSessions: [], toEdge: false, redeemed: null, now };
    dynamo.on(UpdateCommand).rejectsOnce(lost()).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    await expect(store.claimSession(claim)).rejects.toBeInstanceOf(CodeInUse);
    await expect(store.claimSession(claim)).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
  });
});
