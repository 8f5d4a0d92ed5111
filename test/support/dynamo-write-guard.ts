import { dynamoItemWrites } from './dynamo-item-writes';

export interface DynamoWriteGuard {
  /** Put between the API and the table: `startApi(env, { dynamoVia: guard.via })`. */
  via(endpoint: string): Promise<string>;
  /** From now on every write is refused (500, as a failing table) and recorded. */
  refuseWrites(): void;
  /** The writes tried since `refuseWrites`, by operation. */
  readonly refused: string[];
  close(): Promise<void>;
}

/**
 * The item-writes proxy (dynamo-item-writes.ts) refusing every write once told: a table that fails on
 * any write, for proving that something only reads.
 */
export function dynamoWriteGuard(): DynamoWriteGuard {
  const writes = dynamoItemWrites();
  return {
    via: (endpoint) => writes.via(endpoint),
    refuseWrites: () => writes.refuse(() => true),
    refused: writes.refusedOperations,
    close: () => writes.close(),
  };
}
