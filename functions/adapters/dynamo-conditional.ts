import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type PutCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';

type Item = Record<string, unknown>;

/** One conditional Put or Update; the writer adds the table. */
export type ConditionalWrite = { put: Omit<PutCommandInput, 'TableName'> } | { update: Omit<UpdateCommandInput, 'TableName'> };

/**
 * Sends a conditional write. A failed condition is an answer, not an SDK error: without `failure` the
 * write resolves null, with it the domain error `failure` builds is thrown (it may read first, to tell
 * one cause from another). Otherwise it resolves with the item as `ReturnValues` asked for it (`{}`
 * without). Every other error propagates.
 */
export interface ConditionalWriter {
  (write: ConditionalWrite): Promise<Item | null>;
  (write: ConditionalWrite, failure: () => Error | Promise<Error>): Promise<Item>;
}

export function conditionalWriter(client: DynamoDBDocumentClient, table: string): ConditionalWriter {
  async function writeIf(write: ConditionalWrite, failure?: () => Error | Promise<Error>): Promise<Item | null> {
    try {
      const { Attributes } =
        'put' in write
          ? await client.send(new PutCommand({ ...write.put, TableName: table }))
          : await client.send(new UpdateCommand({ ...write.update, TableName: table }));
      return (Attributes as Item | undefined) ?? {};
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (failure) throw await failure();
      return null;
    }
  }
  return writeIf as ConditionalWriter;
}

/** By name too: a mocked client, or another copy of the SDK, throws an error of another class. */
function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error instanceof Error && error.name === 'ConditionalCheckFailedException');
}
