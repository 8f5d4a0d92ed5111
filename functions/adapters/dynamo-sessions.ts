import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { LiveSessionRecord, PlaybackSession } from '../domain/records';
import { decodeCursor, encodeCursor } from './dynamo-cursor';
import type { DynamoTable, Item } from './dynamo-table';
import { mergedShards, type ShardEntry } from './dynamo-shard-merge';

/**
 * The `liveSessions` index: an event's live sessions in the shards of its
 * codes (`codesPk`), each sorted by start (`liveSk`). A claim puts its
 * session there and a release or an admin's end takes it out, both in the
 * same write as the session itself; a heartbeat changes nothing the index
 * holds, so it never writes it. A session that timed out without a release
 * stays until its code is claimed again (or released): a listing only reads,
 * and passes over it.
 *
 * A page is a merge of the shards, newest first (dynamo-shard-merge.ts); its codes' current state (one BatchGet) says which
 * sessions are still live. It reads about `limit` entries and codes whatever
 * the audience, where walking the event's codes read all of them.
 */

/** Where an event's sessions are: the table, the event's shards of the index, and a code item's key. */
export interface LiveSessionsTable {
  table: DynamoTable;
  partitions: string[];
  codeKey(code: string): Item;
}

/** A page passes at most this many times `limit` timed-out entries before it returns what it has. */
const PAGE_SCAN_FACTOR = 4;

const liveSk = (startedAt: string, sessionId: string) => `${startedAt}#${sessionId}`;

/** The index's sort key that a claim sets on the code item (its partition key is the code's `codesPk`). */
export function liveSessionSk(session: Pick<PlaybackSession, 'id' | 'startedAt'>): string {
  return liveSk(session.startedAt, session.id);
}

/** Code items by code, 100 per BatchGet, retrying what DynamoDB left unprocessed; eventually consistent (half the units). */
async function codeItems({ table: { client, name: table }, codeKey }: LiveSessionsTable, codes: string[]): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  for (let i = 0; i < codes.length; i += 100) {
    let keys: Item[] | undefined = codes.slice(i, i + 100).map(codeKey);
    for (let attempt = 0; keys && keys.length > 0; attempt++) {
      if (attempt > 8) throw new Error('could not read all codes');
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
      const { Responses, UnprocessedKeys } = await client.send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: keys,
              ProjectionExpression: 'code, tokenId, label, isRevoked, #session',
              ExpressionAttributeNames: { '#session': 'session' },
            },
          },
        }),
      );
      for (const item of (Responses?.[table] ?? []) as Item[]) found.set(item.code as string, item);
      keys = UnprocessedKeys?.[table]?.Keys as Item[] | undefined;
    }
  }
  return found;
}

/**
 * One page of an event's live sessions (heartbeat at or after `liveAfter`, code not revoked),
 * newest start first, with a keyset cursor (start time and session id of the last entry passed)
 * so rows do not shift between pages as viewers come and go. A page passes at most a few times
 * `limit` timed-out entries (it only reads: they stay), so it may hold fewer than `limit`
 * sessions with a cursor to go on; `nextCursor` is null once the index has nothing older.
 */
export async function listLiveSessions(
  where: LiveSessionsTable,
  args: { liveAfter: string; cursor: string | null; limit: number },
): Promise<{ sessions: LiveSessionRecord[]; nextCursor: string | null }> {
  const after = args.cursor ? decodeCursor(args.cursor, ['startedAt', 'sessionId'], () => true) : null;
  const before = after ? liveSk(after.startedAt!, after.sessionId!) : null;
  const merged = mergedShards({ table: where.table, index: 'liveSessions', sortKey: 'liveSk', partitions: where.partitions }, before, args.limit);

  const sessions: LiveSessionRecord[] = [];
  let last: ShardEntry | null = null;
  let passed = 0;
  while (sessions.length < args.limit && passed < args.limit * PAGE_SCAN_FACTOR) {
    const entries = await merged.take(args.limit - sessions.length);
    if (entries.length === 0) break;
    passed += entries.length;
    last = entries[entries.length - 1]!;
    const items = await codeItems(where, entries.map((entry) => entry.item.code as string));
    for (const entry of entries) {
      const item = items.get(entry.item.code as string);
      const session = item?.session as PlaybackSession | null | undefined;
      // The index may lag the item by a moment: only the item's own session counts.
      if (!item || !session || liveSk(session.startedAt, session.id) !== entry.sk) continue;
      // Timed out, or a revoked code's (over whatever its last heartbeat says: the edge refuses it): passed over.
      if (session.heartbeatAt >= args.liveAfter && item.isRevoked !== true) {
        sessions.push({ session, code: entry.item.code as string, codeId: item.tokenId as string, label: (item.label as string | undefined) ?? '' });
      }
    }
  }
  const position = last ? { startedAt: last.sk.slice(0, last.sk.indexOf('#')), sessionId: last.sk.slice(last.sk.indexOf('#') + 1) } : null;
  return { sessions, nextCursor: position && (await merged.more()) ? encodeCursor(position) : null };
}
