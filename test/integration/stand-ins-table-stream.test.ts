import {
  BatchWriteItemCommand,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { kvsKey } from '../../functions/adapters/kvs-scheme';
import { changesFromStreamRecords } from '../../functions/adapters/kvs-stream-changes';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../local/embedded-dynamodb';
import { sampleCode, sampleEvent } from '../support/store-records';

/**
 * The embedded DynamoDB's stream (local/table-stream.ts) against what DynamoDB Streams delivers with
 * NEW_AND_OLD_IMAGES: a record per item write that changed the item, with keys and both images,
 * none for a write that changed nothing or was refused.
 */
const TABLE = 'streamed';
let dynamo: EmbeddedDynamo;
let client: DynamoDBClient;
const records: DynamoDBRecord[] = [];

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ tableName: TABLE });
  dynamo.stream.subscribe((record) => records.push(record));
  client = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
});
beforeEach(() => void (records.length = 0));
afterAll(async () => {
  client?.destroy();
  await dynamo?.close();
});

const key = (pk: string) => ({ pk: { S: pk }, sk: { S: 'ITEM' } });
const summary = () => records.map((r) => ({ eventName: r.eventName, keys: r.dynamodb?.Keys, old: r.dynamodb?.OldImage, new: r.dynamodb?.NewImage }));

describe('the embedded DynamoDB\'s table stream', () => {
  it('records a put, an update and a delete with their keys and images, in order', async () => {
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('A'), n: { N: '1' } } }));
    await client.send(new UpdateItemCommand({ TableName: TABLE, Key: key('A'), UpdateExpression: 'SET n = :two', ExpressionAttributeValues: { ':two': { N: '2' } } }));
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: key('A') }));
    expect(summary()).toEqual([
      { eventName: 'INSERT', keys: key('A'), old: undefined, new: { ...key('A'), n: { N: '1' } } },
      { eventName: 'MODIFY', keys: key('A'), old: { ...key('A'), n: { N: '1' } }, new: { ...key('A'), n: { N: '2' } } },
      { eventName: 'REMOVE', keys: key('A'), old: { ...key('A'), n: { N: '2' } }, new: undefined },
    ]);
    expect(records.every((r) => r.dynamodb?.StreamViewType === 'NEW_AND_OLD_IMAGES' && r.eventSource === 'aws:dynamodb')).toBe(true);
    const sequence = records.map((r) => r.dynamodb!.SequenceNumber!);
    expect([...sequence].sort()).toEqual(sequence);
  });

  it('records each item of a batch write', async () => {
    await client.send(new PutItemCommand({ TableName: TABLE, Item: key('B') }));
    records.length = 0;
    await client.send(
      new BatchWriteItemCommand({ RequestItems: { [TABLE]: [{ PutRequest: { Item: key('C') } }, { DeleteRequest: { Key: key('B') } }] } }),
    );
    expect(summary().map((r) => [r.eventName, r.keys?.pk?.S]).sort()).toEqual([
      ['INSERT', 'C'],
      ['REMOVE', 'B'],
    ]);
  });

  it('records nothing for a write that changed nothing or was refused', async () => {
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('D'), n: { N: '1' } } }));
    records.length = 0;
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { n: { N: '1' }, ...key('D') } }));
    await client.send(new UpdateItemCommand({ TableName: TABLE, Key: key('D'), UpdateExpression: 'SET n = :one', ExpressionAttributeValues: { ':one': { N: '1' } } }));
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: key('NONE') }));
    await expect(
      client.send(new PutItemCommand({ TableName: TABLE, Item: key('D'), ConditionExpression: 'attribute_not_exists(pk)' })),
    ).rejects.toThrow();
    expect(records).toEqual([]);
  });

  it('carries what edge-sync needs: a revoke through the codes port becomes the edge\'s c: entry', async () => {
    const stores = dynamoStores(
      dynamoDocumentClient({ region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, endpoints: { dynamodb: dynamo.endpoint } }),
      TABLE,
    );
    const event = sampleEvent();
    await stores.events.createEvent(event);
    const code = sampleCode(event.id);
    await stores.codes.createCode(code);
    records.length = 0;
    await stores.codes.setCodeRevoked(code.id, true, new Date().toISOString());
    expect(changesFromStreamRecords(records, new Date(), 'a watermark secret')).toEqual([{ key: kvsKey.revokedCode(code.code), value: expect.stringMatching(/^\d+$/) }]);
  });
});
