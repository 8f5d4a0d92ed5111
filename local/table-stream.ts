import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { tableSchema } from '../functions/adapters/table-schema';

/**
 * A table's change stream, as DynamoDB Streams delivers it with view type NEW_AND_OLD_IMAGES (the
 * table's in AWS, infra/lib/constructs/data.ts): one record per item write that changed the item,
 * in the order the item was written, with its keys, old image and new image.
 */
export interface TableStream {
  /** Calls `listener` with every change from now on (a starting position of LATEST); returns the unsubscribe. */
  subscribe(listener: (record: DynamoDBRecord) => void): () => void;
}

type Image = Record<string, AttributeValue>;
type Done = (error?: Error | null) => void;

/** dynalite 4.0.0's item store of one table (db/index.js): the LevelDB sublevel every item write goes through. */
interface DynaliteItemDb {
  get(key: string, callback: (error: Error | null, item?: Image) => void): void;
  put(key: string, item: Image, callback: Done): void;
  del(key: string, callback: Done): void;
}
interface DynaliteStore {
  getItemDb(tableName: string): DynaliteItemDb;
}

const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as (options: Record<string, unknown>) => Server;
const dynaliteDb = require('dynalite/db') as { create(options: Record<string, unknown>): DynaliteStore };

/**
 * dynalite (the embedded DynamoDB) with the stream it lacks. dynalite is pinned at 4.0.0, and this
 * reaches into it: its PutItem, UpdateItem, DeleteItem and BatchWriteItem all write an item with
 * `put` or `del` on the table's item store while holding that item's lock, so wrapping those two
 * sees every item write, in order, with the item before it (read under the same lock). The store
 * is made by `db.create`, called once by `dynalite()`: it is caught there.
 */
export function dynaliteWithStream(options: Record<string, unknown>, tableName: string): { server: Server; stream: TableStream } {
  const create = dynaliteDb.create;
  let store: DynaliteStore | undefined;
  dynaliteDb.create = (opts) => (store = create(opts));
  let server: Server;
  try {
    server = dynalite(options);
  } finally {
    dynaliteDb.create = create;
  }
  if (!store) throw new Error('dynalite 4.0.0 made its store elsewhere: local/table-stream.ts must follow it');

  const listeners = new Set<(record: DynamoDBRecord) => void>();
  let sequence = 0;
  const emit = (oldImage: Image | undefined, newImage: Image | undefined) => {
    // DynamoDB writes no record for a write that changed nothing.
    if (!oldImage && !newImage) return;
    if (oldImage && newImage && canonical(oldImage) === canonical(newImage)) return;
    const record = streamRecord(tableName, ++sequence, oldImage, newImage);
    for (const listener of listeners) listener(record);
  };

  const items = store.getItemDb(tableName);
  const { put, del, get } = items;
  const before = (key: string, then: (error: Error | null, item: Image | undefined) => void) =>
    get.call(items, key, (error, item) => then(error && error.name !== 'NotFoundError' ? error : null, error ? undefined : item));
  items.put = (key, item, done) =>
    before(key, (error, old) => {
      if (error) return done(error);
      put.call(items, key, item, (written) => {
        if (!written) emit(old, item);
        done(written);
      });
    });
  items.del = (key, done) =>
    before(key, (error, old) => {
      if (error) return done(error);
      del.call(items, key, (written) => {
        if (!written) emit(old, undefined);
        done(written);
      });
    });

  return {
    server,
    stream: {
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}

function streamRecord(tableName: string, sequence: number, oldImage: Image | undefined, newImage: Image | undefined): DynamoDBRecord {
  // Copies: what a listener holds never changes with the store, as a record read off the wire.
  const image = (item: Image | undefined) => (item ? (JSON.parse(JSON.stringify(item)) as Image) : undefined);
  const item = (newImage ?? oldImage)!;
  const Keys = image({ [tableSchema.partitionKey]: item[tableSchema.partitionKey]!, [tableSchema.sortKey]: item[tableSchema.sortKey]! })!;
  const dynamodb = {
    ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
    Keys,
    OldImage: image(oldImage),
    NewImage: image(newImage),
    SequenceNumber: String(sequence).padStart(21, '0'),
    SizeBytes: Buffer.byteLength(JSON.stringify([Keys, oldImage ?? null, newImage ?? null])),
    StreamViewType: 'NEW_AND_OLD_IMAGES' as const,
  };
  return {
    eventID: `${sequence}`,
    eventName: oldImage ? (newImage ? 'MODIFY' : 'REMOVE') : 'INSERT',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    eventSourceARN: `arn:aws:dynamodb:us-east-1:000000000000:table/${tableName}/stream/local`,
    dynamodb,
  };
}

/** JSON with object keys sorted: two images of the same item compare equal whatever order their attributes came in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
