import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { StoreUnavailable } from '../../functions/domain/errors';
import { errorAnswer } from '../../functions/http/error-table';

/**
 * A store call that fails for the store's sake (a reset or silent connection, throttling, an
 * overloaded or failing service) is `StoreUnavailable` at the adapter boundary, whichever adapter
 * and command: a 503 with `Retry-After`, never a 500. Failures the stand-ins cannot produce.
 */
const dynamo = mockClient(DynamoDBDocumentClient);
const client = new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
const stores = dynamoStores(DynamoDBDocumentClient.from(client), 't');
beforeEach(() => dynamo.reset());
afterAll(() => dynamo.restore());

const $metadata = {};
const networkError = (code: string, message: string) => Object.assign(new Error(message), { code });
const sdkError = (name: string, httpStatusCode: number) => Object.assign(new Error(`${name} from the service`), { name, $metadata: { httpStatusCode } });

const transient: [string, Error][] = [
  ['ECONNRESET', networkError('ECONNRESET', 'read ECONNRESET')],
  ['socket hang up', networkError('ECONNRESET', 'socket hang up')],
  ['ETIMEDOUT', networkError('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:443')],
  ['ECONNREFUSED', networkError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:8000')],
  ['ThrottlingException', new ThrottlingException({ message: 'Rate exceeded', $metadata })],
  ['ProvisionedThroughputExceededException', new ProvisionedThroughputExceededException({ message: 'slow down', $metadata })],
  ['RequestLimitExceeded', new RequestLimitExceeded({ message: 'account limit', $metadata })],
  ['InternalServerError', new InternalServerError({ message: 'internal', $metadata })],
  ['ServiceUnavailable', sdkError('ServiceUnavailable', 503)],
  ['TimeoutError', Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError' })],
  ['an unnamed 5xx', sdkError('UnknownError', 502)],
];

describe('a DynamoDB call that fails for the store', () => {
  it.each(transient)('%s is StoreUnavailable, answered 503 with Retry-After', async (_name, error) => {
    dynamo.on(GetCommand).rejects(error);
    const failure = await stores.events.getEvent('e1').catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(StoreUnavailable);
    expect((failure as StoreUnavailable).cause).toBe(error);
    expect(errorAnswer(failure)).toMatchObject({ status: 503, headers: { 'retry-after': '2' } });
  });

  it('is StoreUnavailable from every command an adapter sends: a conditional write, a query, a batch read', async () => {
    const reset = networkError('ECONNRESET', 'read ECONNRESET');
    dynamo.on(UpdateCommand).rejects(reset).on(QueryCommand).rejects(reset).on(BatchGetCommand).rejects(reset);
    await expect(stores.events.updateEvent('e1', { title: 'x' }, '2026-11-21T12:00:00.000Z')).rejects.toBeInstanceOf(StoreUnavailable);
    await expect(stores.events.listEvents(10)).rejects.toBeInstanceOf(StoreUnavailable);
    // The live sessions listing: shard queries, then one batch read of the codes.
    await expect(stores.codes.listEventSessions({ eventId: 'e1', liveAfter: '2026-11-21T12:00:00.000Z', cursor: null, limit: 10 })).rejects.toBeInstanceOf(StoreUnavailable);
  });

  it('leaves answers alone: a failed condition stays an answer, a refused request stays a fault', async () => {
    dynamo.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata }));
    await expect(stores.events.updateEvent('e1', { title: 'x' }, '2026-11-21T12:00:00.000Z')).rejects.toMatchObject({ name: 'NotFound' });
    dynamo.on(GetCommand).rejects(sdkError('ValidationException', 400));
    const failure = await stores.events.getEvent('e1').catch((thrown: unknown) => thrown);
    expect(failure).toMatchObject({ name: 'ValidationException' });
    expect(errorAnswer(failure)).toBeNull();
  });
});
