import { BatchGetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { CounterStore, EventCounters, RateWindow, RevocationMark } from '../domain/counter-store';
import { RateLimited } from '../domain/errors';
import { epochSeconds, shardOf } from './dynamo-keys';
import type { DynamoTable, Item } from './dynamo-table';
import { tableSchema } from './table-schema';
import { APP_METRICS, reportLostWrite } from './telemetry';

/** Counter items are spread like the codes, so that a crowd's validations never meet on one key. */
export const COUNTER_SHARDS = 32;
/** Presence is counted in buckets of this many seconds; old buckets are collected by TTL. */
const PRESENCE_BUCKET_SECONDS = 10;
const PRESENCE_KEEP_SECONDS = 24 * 60 * 60;

const pad = (n: number) => String(n).padStart(2, '0');
const countersPk = (eventId: string, shard: number) => `STATS#${eventId}#${pad(shard)}`;
const totalsKey = (eventId: string, code: string) => ({ pk: countersPk(eventId, shardOf(code, COUNTER_SHARDS)), sk: 'TOTALS' });
/** A code's mark on its shard's `TOTALS` item (`{ c: counted as revoked, v: version }`), and the item's version of `revoked`. */
const revocationMarkName = (code: string) => `rv#${code}`;
/**
 * Each shard's revoked count is versioned in buckets of its codes (`rvv#<bucket>`): a count of one code
 * must see no other count of it in between (the version), but codes of other buckets never make it read
 * again, so a page of codes revoked at once seldom contends.
 */
export const REVOCATION_BUCKETS = 64;
/** A code's bucket: hashed apart from its shard (the shard is the same hash modulo 32, which would leave 2 buckets). */
export const revocationBucketOf = (code: string) => shardOf(`rv:${code}`, REVOCATION_BUCKETS);
const revocationVersionName = (code: string) => `rvv#${revocationBucketOf(code)}`;
const presenceSk = (bucket: number) => `PRESENCE#${String(bucket).padStart(12, '0')}`;

/** The fixed window, aligned to the clock, that a rate-limit hit at `now` counts in (also the in-memory store's). */
export function rateWindow(args: { key: string; windowSeconds: number; now: Date }) {
  const nowSeconds = Math.floor(args.now.getTime() / 1000);
  const windowStart = nowSeconds - (nowSeconds % args.windowSeconds);
  return { key: { pk: `RATE#${args.key}#${windowStart}`, sk: 'RATE' }, windowEnd: windowStart + args.windowSeconds, nowSeconds };
}

/** What a lost counter write tells: which counter of which event, and the error. */
export type CounterWriteFailure = { counter: 'redeemed' | 'presence'; eventId: string; delta: number; error: unknown };

/** Logs a lost counter write once, with a `CounterWriteFailed` metric. */
export function reportCounterWriteFailed({ error, ...fields }: CounterWriteFailure): void {
  reportLostWrite(APP_METRICS.counterWriteFailed, 'counter write failed', { ...fields, error: error instanceof Error ? error : String(error) });
}

/**
 * The counters port on DynamoDB: rate-limit windows (`RATE#…`, one item per window) and an event's
 * sharded counters (`STATS#<eventId>#<shard>`: `TOTALS`, and `PRESENCE#<bucket>` items).
 */
export class DynamoCounterStore implements CounterStore {
  constructor(
    private readonly table: DynamoTable,
    private readonly reportFailure: (failure: CounterWriteFailure) => void = reportCounterWriteFailed,
  ) {}

  async rateLimitRetryAfter(args: RateWindow): Promise<number | null> {
    const { key, windowEnd, nowSeconds } = rateWindow(args);
    const item = await this.table.get(key);
    return item && (item.hits as number) >= args.limit ? Math.max(1, windowEnd - nowSeconds) : null;
  }

  async hitRateLimit(args: RateWindow): Promise<void> {
    const { key, windowEnd, nowSeconds } = rateWindow(args);
    await this.table.writeIf(
      {
        update: {
          Key: key,
          UpdateExpression: 'ADD hits :one SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
          ExpressionAttributeNames: { '#ttl': tableSchema.ttlAttribute },
          ExpressionAttributeValues: { ':one': 1, ':limit': args.limit, ':ttl': windowEnd + 60 },
        },
      },
      () => new RateLimited(Math.max(1, windowEnd - nowSeconds)),
    );
  }

  /** Redemptions and presence are estimates: a lost write is reported once and dropped, never failing the request it counts. */
  private async count(failure: Omit<CounterWriteFailure, 'error'>, update: Omit<UpdateCommandInput, 'TableName'>): Promise<void> {
    try {
      await this.table.client.send(new UpdateCommand({ ...update, TableName: this.table.name }));
    } catch (error) {
      this.reportFailure({ ...failure, error });
    }
  }

  countRedemption(args: { eventId: string; code: string; delta: number }): Promise<void> {
    return this.count(
      { counter: 'redeemed', eventId: args.eventId, delta: args.delta },
      {
        Key: totalsKey(args.eventId, args.code),
        UpdateExpression: 'ADD redeemed :delta',
        ExpressionAttributeValues: { ':delta': args.delta },
      },
    );
  }

  async revocationMark(args: { eventId: string; code: string }): Promise<{ version: number; mark: RevocationMark | null }> {
    const item = await this.table.get(totalsKey(args.eventId, args.code));
    const mark = item?.[revocationMarkName(args.code)] as { c: boolean; v: number } | undefined;
    return { version: (item?.[revocationVersionName(args.code)] as number | undefined) ?? 0, mark: mark ? { counted: mark.c, version: mark.v } : null };
  }

  async countRevocation(args: { eventId: string; code: string; counted: boolean; version: number }): Promise<boolean> {
    const outcome = await this.table.writeIf({
      update: {
        Key: totalsKey(args.eventId, args.code),
        UpdateExpression: 'SET #mark = :mark ADD revoked :delta, #version :one',
        ConditionExpression: args.version === 0 ? 'attribute_not_exists(#version)' : '#version = :version',
        ExpressionAttributeNames: { '#mark': revocationMarkName(args.code), '#version': revocationVersionName(args.code) },
        ExpressionAttributeValues: {
          ':mark': { c: args.counted, v: args.version + 1 },
          ':delta': args.counted ? 1 : -1,
          ':one': 1,
          ...(args.version === 0 ? {} : { ':version': args.version }),
        },
      },
    });
    return outcome.applied;
  }

  async forgetRevocationMark(args: { eventId: string; code: string; version: number }): Promise<void> {
    await this.table.writeIf({
      update: {
        Key: totalsKey(args.eventId, args.code),
        UpdateExpression: 'REMOVE #mark',
        ConditionExpression: '#mark.v = :version',
        ExpressionAttributeNames: { '#mark': revocationMarkName(args.code) },
        ExpressionAttributeValues: { ':version': args.version },
      },
    });
  }

  countPresence(args: { eventId: string; seed: string; at: string; delta: number }): Promise<void> {
    const bucket = Math.floor(epochSeconds(args.at) / PRESENCE_BUCKET_SECONDS);
    return this.count(
      { counter: 'presence', eventId: args.eventId, delta: args.delta },
      {
        Key: { pk: countersPk(args.eventId, shardOf(args.seed, COUNTER_SHARDS)), sk: presenceSk(bucket) },
        UpdateExpression: 'ADD viewers :delta SET #ttl = :ttl',
        ExpressionAttributeNames: { '#ttl': tableSchema.ttlAttribute },
        ExpressionAttributeValues: { ':delta': args.delta, ':ttl': epochSeconds(args.at) + PRESENCE_KEEP_SECONDS },
      },
    );
  }

  async eventCounters(args: { eventId: string; presenceSince: string }): Promise<EventCounters> {
    const shards = Array.from({ length: COUNTER_SHARDS }, (_, shard) => countersPk(args.eventId, shard));
    const fromSk = presenceSk(Math.floor(epochSeconds(args.presenceSince) / PRESENCE_BUCKET_SECONDS));
    const [totals, presence] = await Promise.all([
      this.table.client.send(new BatchGetCommand({ RequestItems: { [this.table.name]: { Keys: shards.map((pk) => ({ pk, sk: 'TOTALS' })) } } })),
      Promise.all(
        shards.map((pk) =>
          this.table.queryAll({
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': pk, ':from': fromSk, ':to': 'PRESENCE#~' },
          }),
        ),
      ),
    ]);
    // 32 small keys fit one BatchGet (100 at most); a throttled remainder only makes the estimate smaller.
    const sum = (items: Item[], name: string) => items.reduce((total, item) => total + ((item[name] as number | undefined) ?? 0), 0);
    const totalItems = (totals.Responses?.[this.table.name] ?? []) as Item[];
    return {
      redeemed: sum(totalItems, 'redeemed'),
      revoked: sum(totalItems, 'revoked'),
      presence: Math.max(0, sum(presence.flat(), 'viewers')),
    };
  }
}
