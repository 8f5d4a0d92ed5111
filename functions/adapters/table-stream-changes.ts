import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { CodeRecord } from '../domain/records';
import type { EventRecord } from '../domain/records';
import type { OrderRecord } from '../domain/commerce';
import { toCode } from './dynamo-code-store';
import { toEvent } from './dynamo-event-store';
import { toOrder } from './dynamo-order-store';
import type { Item } from './dynamo-table';

/** One item write of the table, as the domain's records before and after it, with when it happened. */
interface Change<K extends string, R> {
  kind: K;
  before: R | null;
  after: R | null;
  /** When the write happened: the record's approximate creation time (to the second), else when the batch came. */
  at: string;
}

/**
 * An event item's write. A deleted event leaves a tombstone (its item, marked deleted): `before` and
 * `after` hold it as the record it was, and `deleted` says which of them is one.
 */
export interface EventChange extends Change<'event', EventRecord> {
  deleted: { before: boolean; after: boolean };
}

/** What the table's stream carries, classified by the item's key: codes, events, orders, and the rest. */
export type TableChange = Change<'code', CodeRecord> | EventChange | Change<'order', OrderRecord> | { kind: 'other'; pk: string; at: string };

// The stream's image and the SDK's item share the wire format; only their typings differ.
const itemOf = (image: Record<string, AttributeValue> | undefined): Item | null => (image ? unmarshall(image as Record<string, SdkAttributeValue>) : null);

/** One stream record (view NEW_AND_OLD_IMAGES) as a typed change; an image that cannot be read throws (the batch fails). */
export function tableChange(record: DynamoDBRecord, now: Date): TableChange {
  const before = itemOf(record.dynamodb?.OldImage);
  const after = itemOf(record.dynamodb?.NewImage);
  const item = after ?? before;
  const pk = String(item?.pk ?? record.dynamodb?.Keys?.pk?.S ?? '');
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  const at = (seconds ? new Date(seconds * 1000) : now).toISOString();
  const both = <R>(to: (item: Item) => R) => ({ before: before && to(before), after: after && to(after), at });
  if (pk.startsWith('CODE#')) return { kind: 'code', ...both(toCode) };
  if (pk.startsWith('EVENT#') && item?.sk === 'EVENT') return { kind: 'event', ...both(toEvent), deleted: { before: Boolean(before?.deleted), after: Boolean(after?.deleted) } };
  if (pk.startsWith('ORDER#')) return { kind: 'order', ...both(toOrder) };
  return { kind: 'other', pk, at };
}

/** A batch of stream records as typed changes, in order. */
export function tableChanges(records: DynamoDBRecord[], now: Date): TableChange[] {
  return records.map((record) => tableChange(record, now));
}
