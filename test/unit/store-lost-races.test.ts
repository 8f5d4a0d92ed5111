import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { ConditionalCheckFailedException, DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { CodeInUse, Contended, StoreUnavailable } from '../../functions/domain/errors';

/**
 * Races the stand-ins cannot lose on demand: a code that changes between every read and
 * conditional write. The store gives up with Contended (never a false "gone" or an SDK
 * error), and errors other than a failed condition pass through untouched. A failed
 * condition that carries the item it saw (DynamoDB's ALL_OLD) is answered from that item,
 * without reading again.
 */
const dynamo = mockClient(DynamoDBDocumentClient);
const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const { codes } = dynamoStores(DynamoDBDocumentClient.from(client), 't');
/** A lost condition as dynalite answers it (no item), or as DynamoDB does with the item the write saw. */
const lost = (seen?: Record<string, unknown>) =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, ...(seen ? { Item: marshall(seen) } : {}) });
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

describe('the DynamoDB codes adapter when every conditional write loses its race', () => {
  it('releaseSession throws Contended after its attempts, each one read again where DynamoDB did not return the item', async () => {
    dynamo.on(GetCommand).resolves({ Item: codeItem });
    dynamo.on(UpdateCommand).rejects(lost());
    await expect(codes.releaseSession({ code: 'ABC', sessionId: 'sid-1', now, by: 'admin' })).rejects.toBeInstanceOf(Contended);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(5);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(5);
  });

  it('releaseSession goes on from the item each lost write saw, reading only once', async () => {
    dynamo.on(GetCommand).resolves({ Item: codeItem });
    dynamo.on(UpdateCommand).rejects(lost({ ...codeItem, revision: 4 }));
    await expect(codes.releaseSession({ code: 'ABC', sessionId: 'sid-1', now })).rejects.toBeInstanceOf(Contended);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(1);
    // Every retry was conditioned on the revision the lost write saw.
    const expected = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input.ExpressionAttributeValues?.[':expected']);
    expect(expected).toEqual([3, 4, 4, 4, 4]);
  });

  it('releaseSession answers false once the lost write saw the session gone', async () => {
    dynamo.on(GetCommand).resolves({ Item: codeItem });
    dynamo.on(UpdateCommand).rejects(lost({ ...codeItem, session: null, revision: 4 }));
    expect(await codes.releaseSession({ code: 'ABC', sessionId: 'sid-1', now })).toBe(false);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('setCodeRevoked throws Contended, not the SDK error', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [{ tokenId: 't1', code: 'ABC' }] });
    dynamo.on(GetCommand).resolves({ Item: codeItem });
    dynamo.on(UpdateCommand).rejects(lost());
    await expect(codes.setCodeRevoked('t1', true, now)).rejects.toBeInstanceOf(Contended);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(9);
  });

  it('heartbeat tells a revoked code from a gone session by the item its write saw, without a read', async () => {
    dynamo.on(UpdateCommand).rejectsOnce(lost({ ...codeItem, isRevoked: true })).rejects(lost({ ...codeItem, session: { ...codeItem.session, id: 'sid-2' } }));
    const beat = () => codes.heartbeat({ code: 'ABC', sessionId: 'sid-1', now, staleBefore: now }).catch((error: Error) => error);
    expect(await beat()).toMatchObject({ name: 'AccessRevoked', seen: { isRevoked: true } });
    expect(await beat()).toMatchObject({ name: 'SessionGone', seen: { session: { id: 'sid-2' } } });
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('maps a failed claim condition to CodeInUse, and throttling to StoreUnavailable (a 503, not a lost race)', async () => {
    const session = { id: 'sid-2', startedAt: now, heartbeatAt: now };
    const claim = { code: 'ABC', expectedRevision: 3, session, endedSessions: [], toEdge: false, redeemed: null, now };
    dynamo.on(UpdateCommand).rejectsOnce(lost(codeItem)).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));
    await expect(codes.claimSession(claim)).rejects.toMatchObject({ constructor: CodeInUse, seen: { code: 'ABC', revision: 3 } });
    await expect(codes.claimSession(claim)).rejects.toMatchObject({ constructor: StoreUnavailable, cause: expect.any(ProvisionedThroughputExceededException) });
  });
});
