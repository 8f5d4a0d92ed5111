import { PutCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AuditAction } from '../domain/audit';
import type { AuditEntry, AuditPage, AuditScope, AuditStore } from '../domain/audit';
import { decodeCursor, encodeCursor } from './dynamo-cursor';
import { epochSeconds } from './dynamo-keys';
import type { DynamoTable, Item } from './dynamo-table';
import { tableSchema } from './table-schema';

/**
 * The audit log's items. An entry of an event sits in the event's own
 * partition (`AUDIT#<eventId>`, sorted by time), so that event's log is one
 * query; sign-ins, sign-outs and account changes sit in `AUDIT#CONSOLE`. Every
 * entry is also in the `byEvent` index under `AUDIT`, time-sorted: the log
 * across events. Entries outlive their event and carry a `ttl` at the end of
 * their retention. Admin actions and the ingest's reports come at human pace
 * (a few a second at most), far below one partition's 1,000 writes/s, so
 * neither key gets hot however many viewers watch.
 */
const CONSOLE = 'CONSOLE';
const ALL = 'AUDIT';
/** With an action filter, read at most this many pages per request; the cursor carries on from there. */
const MAX_FILTERED_PAGES = 10;
const FILTERED_PAGE_SIZE = 200;

const auditPk = (scope: string) => `AUDIT#${scope}`;
const sortKey = (entry: AuditEntry) => `${entry.at}#${entry.id}`;

function toEntry(item: Item): AuditEntry {
  const { pk, sk, entity, gsi1pk, gsi1sk, ttl, ...entry } = item;
  return entry as unknown as AuditEntry;
}

/** The audit port on DynamoDB. */
export class DynamoAuditStore implements AuditStore {
  constructor(private readonly table: DynamoTable) {}

  async putAuditEntry(entry: AuditEntry, scope: AuditScope, keepUntil: string): Promise<void> {
    await this.table.client.send(
      new PutCommand({
        TableName: this.table.name,
        Item: {
          pk: auditPk(scope === 'console' ? CONSOLE : scope.eventId),
          sk: sortKey(entry),
          entity: 'audit',
          gsi1pk: ALL,
          gsi1sk: sortKey(entry),
          [tableSchema.ttlAttribute]: epochSeconds(keepUntil),
          ...entry,
        },
      }),
    );
  }

  listAuditEntries(args: { eventId: string | null; action: AuditAction | null; cursor: string | null; limit: number }): Promise<AuditPage> {
    return listAuditEntries(this.table, args);
  }
}

async function listAuditEntries(
  { client, name: table }: DynamoTable,
  args: { eventId: string | null; action: AuditAction | null; cursor: string | null; limit: number },
): Promise<AuditPage> {
  const perEvent = args.eventId !== null;
  const keyFields = perEvent ? ['pk', 'sk'] : ['pk', 'sk', 'gsi1pk', 'gsi1sk'];
  const base: Omit<QueryCommandInput, 'TableName'> = perEvent
    ? { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': auditPk(args.eventId!) } }
    : { IndexName: 'byEvent', KeyConditionExpression: 'gsi1pk = :all', ExpressionAttributeValues: { ':all': ALL } };
  if (args.action) {
    base.FilterExpression = '#action = :action';
    base.ExpressionAttributeNames = { '#action': 'action' };
    base.ExpressionAttributeValues = { ...base.ExpressionAttributeValues, ':action': args.action };
  }
  let start: Item | undefined = args.cursor
    ? decodeCursor(args.cursor, keyFields, (key) =>
        perEvent ? key.pk === auditPk(args.eventId!) : key.gsi1pk === ALL && key.pk!.startsWith('AUDIT#'),
      )
    : undefined;
  // One entry more than asked for tells whether another page exists.
  const entries: Item[] = [];
  for (let page = 0; page < (args.action ? MAX_FILTERED_PAGES : 1); page++) {
    const result = await client.send(
      new QueryCommand({
        ...base,
        TableName: table,
        ScanIndexForward: false,
        Limit: args.action ? FILTERED_PAGE_SIZE : args.limit + 1,
        ExclusiveStartKey: start,
      }),
    );
    entries.push(...((result.Items ?? []) as Item[]).slice(0, args.limit + 1 - entries.length));
    start = result.LastEvaluatedKey as Item | undefined;
    if (entries.length > args.limit) {
      // Carry on after the last entry returned, not after the last one read.
      entries.length = args.limit;
      const last = entries[entries.length - 1]!;
      start = Object.fromEntries(keyFields.map((field) => [field, last[field]]));
      break;
    }
    if (!start) break;
  }
  return { entries: entries.map(toEntry), nextCursor: start ? encodeCursor(start as Record<string, string>) : null };
}
