import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LiveSessionRecord, PlaybackSession } from '../domain/records';
import { decodeCursor, encodeCursor } from './dynamo-cursor';
import type { DynamoTable, Item } from './dynamo-table';

/**
 * The `liveSessions` index: an event's live sessions in the shards of its
 * codes (`codesPk`), each sorted by start (`liveSk`). A claim puts its
 * session there and a release or an admin's end takes it out, both in the
 * same write as the session itself; a heartbeat changes nothing the index
 * holds, so it never writes it. A session that timed out without a release
 * stays until its code is claimed again (or released): a listing only reads,
 * and passes over it.
 *
 * A page is a k-way merge of the shards, newest first, reading a few entries
 * of each at a time; its codes' current state (one BatchGet) says which
 * sessions are still live. It reads about `limit` entries and codes whatever
 * the audience, where walking the event's codes read all of them.
 */

/** Where an event's sessions are: the table, the event's shards of the index, and a code item's key. */
export interface LiveSessionsTable {
  table: DynamoTable;
  partitions: string[];
  codeKey(code: string): Item;
}

/** Entries read from a shard at a time: enough that most pages need one query per shard. */
const MIN_SHARD_CHUNK = 4;
/** A page passes at most this many times `limit` timed-out entries before it returns what it has. */
const PAGE_SCAN_FACTOR = 4;

const liveSk = (startedAt: string, sessionId: string) => `${startedAt}#${sessionId}`;

/** The index's sort key that a claim sets on the code item (its partition key is the code's `codesPk`). */
export function liveSessionSk(session: Pick<PlaybackSession, 'id' | 'startedAt'>): string {
  return liveSk(session.startedAt, session.id);
}

interface Entry {
  code: string;
  sk: string;
}

/** One shard of an event's entries, newest first, read `chunk` at a time below `before`. */
class ShardReader {
  private buffer: Entry[] = [];
  private next: Item | undefined;
  private done = false;

  constructor(
    private readonly table: DynamoTable,
    private readonly pk: string,
    private readonly before: string | null,
    private readonly chunk: number,
  ) {}

  /** The newest entry not taken yet (reading the next chunk when needed), or null at the end. */
  async head(): Promise<Entry | null> {
    while (this.buffer.length === 0 && !this.done) {
      const page = await this.table.client.send(
        new QueryCommand({
          TableName: this.table.name,
          IndexName: 'liveSessions',
          KeyConditionExpression: this.before ? 'codesPk = :pk AND liveSk < :before' : 'codesPk = :pk',
          ExpressionAttributeValues: { ':pk': this.pk, ...(this.before ? { ':before': this.before } : {}) },
          ScanIndexForward: false,
          Limit: this.chunk,
          ExclusiveStartKey: this.next,
        }),
      );
      this.buffer = ((page.Items ?? []) as Item[]).map((item) => ({ code: item.code as string, sk: item.liveSk as string }));
      this.next = page.LastEvaluatedKey as Item | undefined;
      this.done = !this.next;
    }
    return this.buffer[0] ?? null;
  }

  take(): void {
    this.buffer.shift();
  }
}

/** The shards merged newest first: `take(n)` gives the next `n` entries of the event (fewer at the end). */
function mergeShards(readers: ShardReader[]) {
  return {
    async take(n: number): Promise<Entry[]> {
      const taken: Entry[] = [];
      while (taken.length < n) {
        const heads = await Promise.all(readers.map((reader) => reader.head()));
        let newest = -1;
        heads.forEach((head, i) => {
          if (head && (newest < 0 || head.sk > heads[newest]!.sk)) newest = i;
        });
        if (newest < 0) break;
        taken.push(heads[newest]!);
        readers[newest]!.take();
      }
      return taken;
    },
    async more(): Promise<boolean> {
      return (await Promise.all(readers.map((reader) => reader.head()))).some(Boolean);
    },
  };
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
  // Twice a shard's share of the page: one query per shard usually fills it; a shard richer than that reads on.
  const chunk = Math.max(MIN_SHARD_CHUNK, Math.ceil((2 * args.limit) / where.partitions.length));
  const merged = mergeShards(where.partitions.map((pk) => new ShardReader(where.table, pk, before, chunk)));

  const sessions: LiveSessionRecord[] = [];
  let last: Entry | null = null;
  let passed = 0;
  while (sessions.length < args.limit && passed < args.limit * PAGE_SCAN_FACTOR) {
    const entries = await merged.take(args.limit - sessions.length);
    if (entries.length === 0) break;
    passed += entries.length;
    last = entries[entries.length - 1]!;
    const items = await codeItems(where, entries.map((entry) => entry.code));
    for (const entry of entries) {
      const item = items.get(entry.code);
      const session = item?.session as PlaybackSession | null | undefined;
      // The index may lag the item by a moment: only the item's own session counts.
      if (!item || !session || liveSk(session.startedAt, session.id) !== entry.sk) continue;
      // Timed out, or a revoked code's (over whatever its last heartbeat says: the edge refuses it): passed over.
      if (session.heartbeatAt >= args.liveAfter && item.isRevoked !== true) {
        sessions.push({ session, code: entry.code, codeId: item.tokenId as string, label: (item.label as string | undefined) ?? '' });
      }
    }
  }
  const position = last ? { startedAt: last.sk.slice(0, last.sk.indexOf('#')), sessionId: last.sk.slice(last.sk.indexOf('#') + 1) } : null;
  return { sessions, nextCursor: position && (await merged.more()) ? encodeCursor(position) : null };
}
