import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type PutCommandInput,
  type QueryCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { guardedClient } from './dynamo-failures';
import { tableSchema } from './table-schema';

export type Item = Record<string, unknown>;

/** One conditional Put or Update; the table adds its name. */
export type ConditionalWrite = { put: Omit<PutCommandInput, 'TableName'> } | { update: Omit<UpdateCommandInput, 'TableName'> };

/**
 * A conditional write's outcome: applied, with the item as `ReturnValues` asked for it (`{}`
 * without); or not, with the item the write saw when its condition failed (null: there was none).
 */
export type WriteOutcome = { applied: true; item: Item } | { applied: false; seen(): Promise<Item | null> };

/**
 * The one table every DynamoDB adapter works on, and the few operations they share. Each
 * adapter (one per port: dynamo-*-store.ts) is given it; none extends another.
 */
export interface DynamoTable {
  /** The client adapters send through: the store's transient failures come out of it as `StoreUnavailable` (dynamo-failures.ts). */
  readonly client: DynamoDBDocumentClient;
  readonly name: string;
  /** A strongly consistent read unless `consistent: false`. */
  get(key: Item, options?: { consistent?: boolean }): Promise<Item | null>;
  /** Every page of a query; with `most`, the first `most` items (no page beyond them is read). */
  queryAll(input: Omit<QueryCommandInput, 'TableName'>, most?: number): Promise<Item[]>;
  /**
   * Sends a conditional write. A failed condition is an answer, not an SDK error: the outcome
   * says so; with `failure`, the domain error it builds (from the item the write saw) is thrown
   * instead. Every other error propagates.
   */
  writeIf(write: ConditionalWrite): Promise<WriteOutcome>;
  writeIf(write: ConditionalWrite, failure: (seen: () => Promise<Item | null>) => Error | Promise<Error>): Promise<Item>;
  /** Deletes items by key, 25 per batch, retrying what DynamoDB left unprocessed; missing ones are ignored. */
  deleteAll(keys: Item[]): Promise<void>;
}

export function dynamoTable(sdkClient: DynamoDBDocumentClient, name: string): DynamoTable {
  const client = guardedClient(sdkClient);
  async function get(key: Item, options: { consistent?: boolean } = {}): Promise<Item | null> {
    const { Item } = await client.send(new GetCommand({ TableName: name, Key: key, ConsistentRead: options.consistent ?? true }));
    return (Item as Item | undefined) ?? null;
  }

  async function queryAll(input: Omit<QueryCommandInput, 'TableName'>, most = Infinity): Promise<Item[]> {
    const items: Item[] = [];
    let ExclusiveStartKey: Item | undefined;
    do {
      const Limit = Number.isFinite(most) ? most - items.length : undefined;
      const page = await client.send(new QueryCommand({ ...input, TableName: name, ExclusiveStartKey, Limit }));
      items.push(...((page.Items ?? []) as Item[]));
      ExclusiveStartKey = page.LastEvaluatedKey as Item | undefined;
    } while (ExclusiveStartKey && items.length < most);
    return items;
  }

  async function send(write: ConditionalWrite): Promise<WriteOutcome> {
    try {
      const { Attributes } =
        'put' in write
          ? await client.send(new PutCommand({ ...write.put, TableName: name, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }))
          : await client.send(new UpdateCommand({ ...write.update, TableName: name, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
      return { applied: true, item: (Attributes as Item | undefined) ?? {} };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // DynamoDB (and DynamoDB Local) return the item the write saw, atomically with its refusal, as
      // Powertools' idempotency layer relies on. Without one, either there was no item, or the server
      // does not return it (dynalite 4 ignores the parameter): a read then tells, as close after as it gets.
      const returned = (error as ConditionalCheckFailedException).Item;
      const key = 'put' in write ? keyOf(write.put.Item as Item) : (write.update.Key as Item);
      return { applied: false, seen: async () => (returned ? unmarshall(returned) : get(key)) };
    }
  }

  async function writeIf(write: ConditionalWrite, failure?: (seen: () => Promise<Item | null>) => Error | Promise<Error>) {
    const outcome = await send(write);
    if (!failure) return outcome;
    if (!outcome.applied) throw await failure(outcome.seen);
    return outcome.item;
  }

  async function deleteAll(keys: Item[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 25) {
      let requests = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 8) throw new Error('could not delete all items');
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
        const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems: { [name]: requests } }));
        requests = (UnprocessedItems?.[name] ?? []) as typeof requests;
      }
    }
  }

  return { client, name, get, queryAll, writeIf: writeIf as DynamoTable['writeIf'], deleteAll };
}

const keyOf = (item: Item): Item => ({ [tableSchema.partitionKey]: item[tableSchema.partitionKey], [tableSchema.sortKey]: item[tableSchema.sortKey] });

/** By name too: a mocked client, or another copy of the SDK, throws an error of another class. */
function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error instanceof Error && error.name === 'ConditionalCheckFailedException');
}
