import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoTable, Item } from './dynamo-table';

/**
 * An event's entries in one of the indexes sharded on its codes (`codesPk`: `codesByEvent`,
 * `liveSessions`; `labelPk`: `byLabel`) as one listing, newest first: a k-way merge of the shards on the index's sort key,
 * reading a few entries of each at a time. A page reads about what it returns whatever the
 * number of codes, where reading whole shards read all of them.
 */
export interface ShardedIndex {
  table: DynamoTable;
  index: string;
  /** The index's key attributes (the partition's: `codesPk` unless given). */
  partitionKey?: string;
  sortKey: string;
  partitions: string[];
  /** Only the entries whose sort key starts so (`byLabel`: one label's). */
  prefix?: string;
}

/** Entries read from a shard at a time: enough that most pages need one query per shard. */
const MIN_SHARD_CHUNK = 4;

export interface ShardEntry {
  sk: string;
  item: Item;
}

/** One shard newest first, read `chunk` at a time below `before`. */
class ShardReader {
  private buffer: ShardEntry[] = [];
  private next: Item | undefined;
  private done = false;

  constructor(
    private readonly where: ShardedIndex,
    private readonly pk: string,
    private readonly before: string | null,
    private readonly chunk: number,
  ) {}

  /** The newest entry not taken yet (reading the next chunk when needed), or null at the end. */
  async head(): Promise<ShardEntry | null> {
    const { table, index, sortKey } = this.where;
    while (this.buffer.length === 0 && !this.done) {
      const page = await table.client.send(
        new QueryCommand({
          TableName: table.name,
          IndexName: index,
          ...this.keyCondition(),
          ScanIndexForward: false,
          Limit: this.chunk,
          ExclusiveStartKey: this.next,
        }),
      );
      // A key condition has no "below" with a prefix: BETWEEN takes `before` itself, passed over here.
      this.buffer = ((page.Items ?? []) as Item[]).map((item) => ({ sk: item[sortKey] as string, item })).filter((entry) => entry.sk !== this.before);
      this.next = page.LastEvaluatedKey as Item | undefined;
      this.done = !this.next;
    }
    return this.buffer[0] ?? null;
  }

  private keyCondition() {
    const { sortKey, prefix, partitionKey = 'codesPk' } = this.where;
    const values: Record<string, string> = { ':pk': this.pk };
    let condition = `${partitionKey} = :pk`;
    if (prefix !== undefined && this.before) {
      condition += ' AND #sk BETWEEN :prefix AND :before';
      Object.assign(values, { ':prefix': prefix, ':before': this.before });
    } else if (prefix !== undefined) {
      condition += ' AND begins_with(#sk, :prefix)';
      values[':prefix'] = prefix;
    } else if (this.before) {
      condition += ' AND #sk < :before';
      values[':before'] = this.before;
    }
    return { KeyConditionExpression: condition, ...(condition.includes('#sk') ? { ExpressionAttributeNames: { '#sk': sortKey } } : {}), ExpressionAttributeValues: values };
  }

  take(): void {
    this.buffer.shift();
  }
}

/**
 * The shards merged newest first, from below `before` (a sort key; null from the newest):
 * `take(n)` gives the next `n` entries (fewer at the end), `more()` whether any is left.
 * `pageSize` sizes the reads: twice a shard's share of it, so one query per shard usually fills a page.
 */
export function mergedShards(where: ShardedIndex, before: string | null, pageSize: number) {
  const chunk = Math.max(MIN_SHARD_CHUNK, Math.ceil((2 * pageSize) / where.partitions.length));
  const readers = where.partitions.map((pk) => new ShardReader(where, pk, before, chunk));
  return {
    async take(n: number): Promise<ShardEntry[]> {
      const taken: ShardEntry[] = [];
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
