import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { SESSION_SLOTS, sessionIdsOfCode, sessionsOf, slotAttribute } from '../domain/codes';
import type { LiveSessionRecord, PlaybackSession } from '../domain/records';
import { decodeCursor, encodeCursor } from './dynamo-cursor';
import type { DynamoTable, Item } from './dynamo-table';
import { mergedShards, type ShardEntry } from './dynamo-shard-merge';

/**
 * The `liveSessions` index: the codes of an event that hold sessions, in the shards of its
 * codes (`codesPk`), each sorted by its listing claim (`liveSk`: start and id of that session: the
 * latest claim of slot 1, or the first of another slot of a code not listed). A claim puts its code
 * there and the release or admin's end of the code's last session (of all its slots) takes it out,
 * both in the
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
async function codeItems({ table: { client, name: table }, codeKey }: Omit<LiveSessionsTable, 'partitions'>, codes: string[], more = ''): Promise<Map<string, Item>> {
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
              ProjectionExpression: `code, tokenId, label, isRevoked, liveSk, ${SESSION_SLOTS.map((slot) => `#s${slot}`).join(', ')}${more}`,
              ExpressionAttributeNames: Object.fromEntries(SESSION_SLOTS.map((slot) => [`#s${slot}`, slotAttribute(slot)])),
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

/** How many live sessions each of `codes` holds (every slot's; a revoked code's: 0), from one BatchGet per 100 codes. */
export async function liveSessionCounts(where: Omit<LiveSessionsTable, 'partitions'>, codes: string[], liveAfter: string): Promise<Map<string, number>> {
  const items = await codeItems(where, codes);
  return new Map([...items].map(([code, item]) => [code, item.isRevoked === true ? 0 : liveSessionsOf(item, liveAfter).length]));
}

/** The ids of every session each of `codes` holds (any slot, live or timed out) or ended recently (`endedSessions`), by code. */
export async function codeSessionIds(where: Omit<LiveSessionsTable, 'partitions'>, codes: string[]): Promise<Map<string, string[]>> {
  const items = await codeItems(where, codes, ', endedSessions');
  return new Map([...items].map(([code, item]) => [code, sessionIdsOfCode(item as unknown as Parameters<typeof sessionIdsOfCode>[0])]));
}

/**
 * A listed code's live sessions, every slot's, newest start first: a timed-out one is passed over (a
 * revoked code's are all passed over by the caller, whatever their last heartbeat says: the edge refuses them).
 */
function liveSessionsOf(item: Item, liveAfter: string): LiveSessionRecord[] {
  const code = { code: item.code as string, codeId: item.tokenId as string, label: (item.label as string | undefined) ?? '' };
  return sessionsOf(item as unknown as Parameters<typeof sessionsOf>[0])
    .filter(({ session }) => session.heartbeatAt >= liveAfter)
    .sort((a, b) => (liveSessionSk(b.session) > liveSessionSk(a.session) ? 1 : -1))
    .map(({ session }) => ({ ...code, session }));
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
  // Entries taken past a full page are left for the next one (the cursor is the last entry used).
  let leftOver = false;
  while (sessions.length < args.limit && passed < args.limit * PAGE_SCAN_FACTOR) {
    const entries = await merged.take(args.limit - sessions.length);
    if (entries.length === 0) break;
    const items = await codeItems(where, entries.map((entry) => entry.item.code as string));
    for (const entry of entries) {
      if (sessions.length >= args.limit) {
        leftOver = true;
        break;
      }
      passed++;
      last = entry;
      const item = items.get(entry.item.code as string);
      // The index may lag the item by a moment: only the item's own entry counts (a code is listed once).
      if (!item || item.liveSk !== entry.sk || item.isRevoked === true) continue;
      sessions.push(...liveSessionsOf(item, args.liveAfter));
    }
  }
  const position = last ? { startedAt: last.sk.slice(0, last.sk.indexOf('#')), sessionId: last.sk.slice(last.sk.indexOf('#') + 1) } : null;
  return { sessions, nextCursor: position && (leftOver || (await merged.more())) ? encodeCursor(position) : null };
}
