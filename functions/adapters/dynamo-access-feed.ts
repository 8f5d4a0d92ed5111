import type { CodeAccessState, CodeRecord, EventAccessState } from '../domain/records';
import { feedPk } from './dynamo-keys';
import type { DynamoTable, Item } from './dynamo-table';
import { FEED_SHARDS } from './table-schema';

/** From the `accessFeed` projection. */
function toCodeAccess(item: Item): CodeAccessState {
  return {
    code: item.code as string,
    isRevoked: item.isRevoked as boolean,
    revokedAt: (item.revokedAt as string | null) ?? null,
    revokedChangedAt: (item.revokedChangedAt as string | null) ?? null,
    endedSessions: (item.endedSessions as CodeRecord['endedSessions'] | undefined) ?? [],
    denyUntil: (item.denyUntil as string | null | undefined) ?? null,
  };
}

function toEventAccess(item: Item): EventAccessState {
  return {
    id: item.id as string,
    isActive: item.isActive as boolean,
    activeChangedAt: item.activeChangedAt as string,
    endsAt: item.endsAt as string,
    accessWindowHours: item.accessWindowHours as number,
    denyUntil: (item.denyUntil as string | null | undefined) ?? null,
  };
}

/**
 * The sparse `accessFeed` index: codes enter it when revoked, unrevoked, taken over or when a
 * long-lived session of theirs ends; events when (de)activated or deleted (the tombstone). Every
 * shard is queried from `since` and the shards are merged.
 */
export async function accessChangesSince(table: DynamoTable, since: string): Promise<{ codes: CodeAccessState[]; events: EventAccessState[] }> {
  const shards = await Promise.all(
    Array.from({ length: FEED_SHARDS }, (_, shard) =>
      // DynamoDB refuses an empty string in a key condition: an empty `since` (the whole feed) has none.
      table.queryAll({
        IndexName: 'accessFeed',
        KeyConditionExpression: since ? 'feedPk = :shard AND feedSk >= :since' : 'feedPk = :shard',
        ExpressionAttributeValues: { ':shard': feedPk(shard), ...(since ? { ':since': since } : {}) },
      }),
    ),
  );
  const items = shards.flat();
  return {
    codes: items.filter((item) => item.entity === 'code').map(toCodeAccess),
    events: items.filter((item) => item.entity === 'event').map(toEventAccess),
  };
}
