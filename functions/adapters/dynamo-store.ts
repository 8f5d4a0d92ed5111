import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { DynamoAccountStore } from './dynamo-account-store';
import { AccessRevoked, AlreadyExists, CodeInUse, Contended, LeaseHeld, NotFound, RateLimited, SessionGone } from '../domain/errors';
import type { AuditEntry, AuditScope } from '../domain/audit-log';
import { codeDenyUntil, endedSessionsAfter } from '../domain/edge-deny';
import type { CodeAccessState, CodeRecord, CodeSummary, EventAccessState, EventRecord, PublishRefusal } from '../domain/records';
import type { EventChanges, EventCounters, Store } from '../domain/store';
import { auditKeysOf, listAuditEntries, putAuditEntry } from './dynamo-audit';
import { listLiveSessions, liveSessionSk } from './dynamo-sessions';
import { CODE_SHARDS, FEED_SHARDS, tableSchema } from './table-schema';

/** Deleted events stay as tombstones long enough for every poller and the edge to see the deactivation. */
const TOMBSTONE_SECONDS = 24 * 60 * 60;
const FAN_OUT = 16;
/** Counter items are spread like the codes, so that a crowd's validations never meet on one key. */
const COUNTER_SHARDS = 32;
/** Presence is counted in buckets of this many seconds; old buckets are collected by TTL. */
const PRESENCE_BUCKET_SECONDS = 10;
const PRESENCE_KEEP_SECONDS = 24 * 60 * 60;

/** Read-then-write attempts on a code that others keep changing (claims, releases, long-lived marks) before Contended. */
const REVOKE_ATTEMPTS = 9;
const RELEASE_ATTEMPTS = 5;

/** FNV-1a: a stable, well-spread shard number for a key (same key, same shard, on every instance). */
export function shardOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}
const pad = (n: number) => String(n).padStart(2, '0');

/** An event item's key (the job store counts a generation job's codes on it). */
export const eventKey = (id: string) => ({ pk: `EVENT#${id}`, sk: 'EVENT' });
const codeKey = (code: string) => ({ pk: `CODE#${code}`, sk: 'CODE' });
const eventCodesPk = (eventId: string, shard: number) => `EVENT#${eventId}#${pad(shard)}`;
const feedPk = (shard: number) => `FEED#${pad(shard)}`;
const feedKeys = (at: string, pk: string) => ({ feedPk: feedPk(shardOf(pk, FEED_SHARDS)), feedSk: `${at}#${pk}` });
const countersPk = (eventId: string, shard: number) => `STATS#${eventId}#${pad(shard)}`;
const presenceSk = (bucket: number) => `PRESENCE#${String(bucket).padStart(12, '0')}`;
const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

type Item = Record<string, unknown>;

function toEvent(item: Item): EventRecord {
  const { pk, sk, entity, gsi1pk, gsi1sk, feedPk, feedSk, ttl, deleted, ...event } = item;
  return event as unknown as EventRecord;
}

function toCode(item: Item): CodeRecord {
  const { pk, sk, entity, codesPk, codesSk, feedPk, feedSk, liveSk, ttl, tokenId, ...rest } = item;
  return { ...(rest as unknown as Omit<CodeRecord, 'id'>), id: tokenId as string };
}

/** From the `codesByEvent` projection: the admin-facing fields only. */
function toCodeSummary(item: Item): CodeSummary {
  return {
    id: item.tokenId as string,
    code: item.code as string,
    eventId: item.eventId as string,
    label: item.label as string,
    isRevoked: item.isRevoked as boolean,
    revokedAt: (item.revokedAt as string | null) ?? null,
    revokedChangedAt: (item.revokedChangedAt as string | null) ?? null,
    redeemedAt: (item.redeemedAt as string | null) ?? null,
    redeemedIp: (item.redeemedIp as string | null) ?? null,
    createdAt: item.createdAt as string,
  };
}

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
  };
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

/**
 * The Store on DynamoDB. Only single-item conditional writes, queries and
 * batch writes: operations that DynamoDB, DynamoDB Local and dynalite all accept.
 */
export class DynamoStore extends DynamoAccountStore implements Store {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {
    super(client, table);
  }

  private async queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> {
    const items: Item[] = [];
    let ExclusiveStartKey: Item | undefined;
    do {
      const page = await this.client.send(new QueryCommand({ ...input, TableName: this.table, ExclusiveStartKey }));
      items.push(...((page.Items ?? []) as Item[]));
      ExclusiveStartKey = page.LastEvaluatedKey as Item | undefined;
    } while (ExclusiveStartKey);
    return items;
  }

  async createEvent(event: EventRecord): Promise<void> {
    await this.writeIf(
      {
        put: {
          Item: { ...eventKey(event.id), entity: 'event', gsi1pk: 'EVENTS', gsi1sk: `${event.createdAt}#${event.id}`, ...event },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      () => new AlreadyExists(`event ${event.id} exists`),
    );
  }

  async getEvent(id: string, options: { consistent?: boolean } = {}): Promise<EventRecord | null> {
    const ConsistentRead = options.consistent ?? true;
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: eventKey(id), ConsistentRead }));
    return Item && !Item.deleted ? toEvent(Item) : null;
  }

  async listEvents(): Promise<EventRecord[]> {
    const items = await this.queryAll({
      IndexName: 'byEvent',
      KeyConditionExpression: 'gsi1pk = :events',
      ExpressionAttributeValues: { ':events': 'EVENTS' },
      ScanIndexForward: false,
    });
    return items.map(toEvent);
  }

  async updateEvent(id: string, changes: EventChanges, now: string): Promise<EventRecord> {
    const names: Record<string, string> = { '#updatedAt': 'updatedAt' };
    const values: Record<string, unknown> = { ':now': now };
    const sets = ['#updatedAt = :now'];
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    return this.updateEventItem(id, `SET ${sets.join(', ')}`, names, values);
  }

  private async updateEventItem(
    id: string,
    update: string,
    names: Record<string, string>,
    values: Record<string, unknown>,
  ): Promise<EventRecord> {
    const item = await this.writeIf(
      {
        update: {
          Key: eventKey(id),
          UpdateExpression: update,
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted)',
          ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        },
      },
      () => new NotFound(`event ${id}`),
    );
    return toEvent(item);
  }

  async setEventActive(id: string, active: boolean, now: string): Promise<EventRecord> {
    const event = await this.updateEventItem(
      id,
      'SET isActive = :active, activeChangedAt = :now, updatedAt = :now, feedPk = :feedPk, feedSk = :feedSk',
      {},
      { ':active': active, ':now': now, ...prefixed(feedKeys(now, eventKey(id).pk)) },
    );
    // The event item is the authority for validation and refresh; the copy on
    // each code lets a heartbeat stay one conditional write.
    // A code deleted meanwhile is skipped (the condition keeps the update from creating it again).
    const codes = await this.listCodes(id);
    await inBatches(codes, FAN_OUT, (code) =>
      this.writeIf({
        update: {
          Key: codeKey(code.code),
          UpdateExpression: 'SET eventActive = :active',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':active': active },
        },
      }),
    );
    return event;
  }

  async appendPublishRefusal(id: string, refusal: PublishRefusal, keep: number): Promise<void> {
    const event = await this.updateEventItem(
      id,
      'SET publishRefusals = list_append(if_not_exists(publishRefusals, :none), :one)',
      {},
      { ':none': [], ':one': [refusal] },
    );
    const all = event.publishRefusals ?? [];
    if (all.length <= keep * 2) return;
    // Trim only if nobody appended meanwhile (the append itself is atomic); a lost race leaves it to the next one.
    await this.writeIf({
      update: {
        Key: eventKey(id),
        UpdateExpression: 'SET publishRefusals = :kept',
        ConditionExpression: 'size(publishRefusals) = :count',
        ExpressionAttributeValues: { ':kept': all.slice(-keep), ':count': all.length },
      },
    });
  }

  async setEventLive(id: string, live: boolean, now: string): Promise<EventRecord> {
    return live
      ? this.updateEventItem(id, 'SET liveSince = :now, updatedAt = :now', {}, { ':now': now })
      : this.updateEventItem(id, 'SET liveSince = :null, lastLiveEndedAt = :now, updatedAt = :now', {}, { ':now': now, ':null': null });
  }

  async acquireStreamLease(id: string, { holder, now, expiresAt }: { holder: string; now: string; expiresAt: string }): Promise<EventRecord> {
    const item = await this.writeIf(
      {
        update: {
          Key: eventKey(id),
          UpdateExpression: 'SET leaseHolder = :holder, leaseExpiresAt = :expires, updatedAt = :now',
          ConditionExpression:
            'attribute_exists(pk) AND attribute_not_exists(deleted) AND (attribute_not_exists(leaseHolder) OR leaseHolder = :null OR leaseHolder = :holder OR leaseExpiresAt <= :now)',
          ExpressionAttributeValues: { ':holder': holder, ':expires': expiresAt, ':now': now, ':null': null },
          ReturnValues: 'ALL_NEW',
        },
      },
      async () => ((await this.getEvent(id)) ? new LeaseHeld(`event ${id}`) : new NotFound(`event ${id}`)),
    );
    return toEvent(item);
  }

  async releaseStreamLease(id: string, { holder, now, expiresAt }: { holder: string; now: string; expiresAt?: string }): Promise<EventRecord> {
    const item = await this.writeIf({
      update: {
        Key: eventKey(id),
        UpdateExpression: 'SET leaseHolder = :null, leaseExpiresAt = :null, liveSince = :null, lastLiveEndedAt = :now, updatedAt = :now',
        ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleted) AND leaseHolder = :holder${expiresAt ? ' AND leaseExpiresAt = :expires' : ''}`,
        ExpressionAttributeValues: { ':holder': holder, ':now': now, ':null': null, ...(expiresAt ? { ':expires': expiresAt } : {}) },
        ReturnValues: 'ALL_NEW',
      },
    });
    if (item) return toEvent(item);
    // Not (any more) this holder's lease: nothing to end.
    const event = await this.getEvent(id);
    if (!event) throw new NotFound(`event ${id}`);
    return event;
  }

  async deleteEvent(id: string, now: string): Promise<void> {
    // Tombstone first: from here on validation, refresh and the feed treat the event as gone. It keeps
    // `endsAt` and `accessWindowHours`, which say how long the edge must deny the event's credentials.
    const { pk } = eventKey(id);
    await this.writeIf(
      {
        update: {
          Key: eventKey(id),
          UpdateExpression:
            'SET deleted = :true, isActive = :false, activeChangedAt = :now, feedPk = :feedPk, feedSk = :feedSk, #ttl = :ttl REMOVE gsi1pk, gsi1sk',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted)',
          ExpressionAttributeNames: { '#ttl': tableSchema.ttlAttribute },
          ExpressionAttributeValues: {
            ':true': true,
            ':false': false,
            ':now': now,
            ':ttl': epochSeconds(now) + TOMBSTONE_SECONDS,
            ...prefixed(feedKeys(now, pk)),
          },
        },
      },
      () => new NotFound(`event ${id}`),
    );
    const codes = await this.listCodes(id);
    await this.deleteCodes(codes.map((code) => code.code));
  }

  async deleteCodes(codes: string[]): Promise<void> {
    await this.deleteItems(codes.map(codeKey));
  }

  private async deleteItems(keys: Item[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 25) {
      let requests = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 8) throw new Error('could not delete all items');
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
        const { UnprocessedItems } = await this.client.send(new BatchWriteCommand({ RequestItems: { [this.table]: requests } }));
        requests = (UnprocessedItems?.[this.table] ?? []) as typeof requests;
      }
    }
  }

  async createCode(code: CodeRecord): Promise<void> {
    const { id, ...rest } = code;
    await this.writeIf(
      {
        put: {
          Item: {
            ...codeKey(code.code),
            entity: 'code',
            tokenId: id,
            codesPk: eventCodesPk(code.eventId, shardOf(code.code, CODE_SHARDS)),
            codesSk: `${code.createdAt}#${id}`,
            ...rest,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      () => new AlreadyExists(`code exists`),
    );
  }

  async addToCodeCount(eventId: string, delta: number): Promise<void> {
    await this.updateEventItem(eventId, 'ADD tokenCount :delta', {}, { ':delta': delta });
  }

  async getCode(code: string): Promise<CodeRecord | null> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: codeKey(code), ConsistentRead: true }));
    return Item ? toCode(Item) : null;
  }

  async getCodeById(id: string): Promise<CodeRecord | null> {
    const [item] = await this.queryAll({
      IndexName: 'byTokenId',
      KeyConditionExpression: 'tokenId = :id',
      ExpressionAttributeValues: { ':id': id },
    });
    // The index may lag; the base item is the truth.
    return item ? this.getCode(item.code as string) : null;
  }

  async listCodes(eventId: string): Promise<CodeSummary[]> {
    const shards = await Promise.all(
      Array.from({ length: CODE_SHARDS }, (_, shard) =>
        this.queryAll({
          IndexName: 'codesByEvent',
          KeyConditionExpression: 'codesPk = :shard',
          ExpressionAttributeValues: { ':shard': eventCodesPk(eventId, shard) },
        }),
      ),
    );
    // Newest first, as one listing: the shards are merged on the sort key.
    return shards
      .flat()
      .sort((a, b) => ((a.codesSk as string) < (b.codesSk as string) ? 1 : -1))
      .map(toCodeSummary);
  }

  async setCodeRevoked(id: string, revoked: boolean, now: string): Promise<CodeRecord> {
    // The session state read first decides how long the edge denies the code, so the write
    // requires it unchanged (no claim in between); a lost race reads again.
    for (let attempt = 0; attempt < REVOKE_ATTEMPTS; attempt++) {
      const current = await this.getCodeById(id);
      if (!current) throw new NotFound(`token ${id}`);
      if (current.isRevoked === revoked) return current;
      const { pk } = codeKey(current.code);
      const item = await this.writeIf({
        update: {
          Key: codeKey(current.code),
          UpdateExpression:
            'SET isRevoked = :revoked, revokedAt = :revokedAt, revokedChangedAt = :now, denyUntil = :denyUntil, feedPk = :feedPk, feedSk = :feedSk',
          ConditionExpression: 'attribute_exists(pk) AND revision = :revision AND isRevoked = :was',
          ExpressionAttributeValues: {
            ':revoked': revoked,
            ':was': current.isRevoked,
            ':revokedAt': revoked ? now : null,
            ':now': now,
            ':denyUntil': revoked ? codeDenyUntil(current, now) : null,
            ':revision': current.revision,
            ...prefixed(feedKeys(now, pk)),
          },
          ReturnValues: 'ALL_NEW',
        },
      });
      if (!item) continue;
      await this.addToCounters(current.eventId, current.code, { revoked: revoked ? 1 : -1 });
      return toCode(item);
    }
    throw new Contended(`token ${id} kept changing while ${revoked ? 'revoking' : 'unrevoking'} it`);
  }

  async claimSession(args: Parameters<Store['claimSession']>[0]): Promise<CodeRecord> {
    const { pk } = codeKey(args.code);
    // The claim enters the event's live-sessions index (a takeover moves the code's entry within it).
    const sets = ['#session = :session', 'endedSessions = :ended', 'revision = revision + :one', 'liveSk = :liveSk'];
    const values: Record<string, unknown> = {
      ':session': args.session,
      ':liveSk': liveSessionSk(args.session),
      ':ended': args.endedSessions,
      ':one': 1,
      ':expected': args.expectedRevision,
      ':false': false,
      ':true': true,
    };
    if (args.redeemed) {
      sets.push('redeemedAt = :redeemedAt', 'redeemedIp = :redeemedIp');
      values[':redeemedAt'] = args.redeemed.at;
      values[':redeemedIp'] = args.redeemed.ip;
    }
    if (args.toEdge) {
      sets.push('feedPk = :feedPk', 'feedSk = :feedSk');
      Object.assign(values, prefixed(feedKeys(args.now, pk)));
    }
    const item = await this.writeIf(
      {
        update: {
          Key: codeKey(args.code),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'revision = :expected AND isRevoked = :false AND eventActive = :true',
          ExpressionAttributeNames: { '#session': 'session' },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        },
      },
      () => new CodeInUse('the code changed while claiming it'),
    );
    return toCode(item);
  }

  async heartbeat(args: { code: string; sessionId: string; now: string; staleBefore: string }): Promise<void> {
    await this.writeIf(
      {
        update: {
          Key: codeKey(args.code),
          UpdateExpression: 'SET #session.heartbeatAt = :now',
          ConditionExpression: '#session.id = :sid AND #session.heartbeatAt >= :staleBefore AND isRevoked = :false AND eventActive = :true',
          ExpressionAttributeNames: { '#session': 'session' },
          ExpressionAttributeValues: {
            ':now': args.now,
            ':sid': args.sessionId,
            ':staleBefore': args.staleBefore,
            ':false': false,
            ':true': true,
          },
        },
      },
      async () => {
        // Only the failure path pays a read, to tell a revoked code from a gone session.
        const code = await this.getCode(args.code);
        if (!code || code.isRevoked || !code.eventActive) return new AccessRevoked('code or event no longer active');
        return new SessionGone('session ended');
      },
    );
  }

  async markSessionLongLived(args: { code: string; sessionId: string; until: string; staleBefore: string }): Promise<void> {
    // The revision moves too: a revoke sizes the code's deny from the session it read, so it must read again.
    const marked = await this.writeIf({
      update: {
        Key: codeKey(args.code),
        UpdateExpression: 'SET #session.longLivedUntil = :until, revision = revision + :one',
        ConditionExpression:
          '#session.id = :sid AND #session.heartbeatAt >= :staleBefore AND isRevoked = :false AND eventActive = :true' +
          ' AND (attribute_not_exists(#session.longLivedUntil) OR #session.longLivedUntil < :until)',
        ExpressionAttributeNames: { '#session': 'session' },
        ExpressionAttributeValues: {
          ':until': args.until,
          ':one': 1,
          ':sid': args.sessionId,
          ':staleBefore': args.staleBefore,
          ':false': false,
          ':true': true,
        },
      },
    });
    if (marked) return;
    const code = await this.getCode(args.code);
    if (!code || code.isRevoked || !code.eventActive) throw new AccessRevoked('code or event no longer active');
    const session = code.session;
    const live = session?.id === args.sessionId && session.heartbeatAt >= args.staleBefore;
    // Marked already with a later time: nothing to do.
    if (!live || (session.longLivedUntil ?? '') < args.until) throw new SessionGone('session ended');
  }

  async releaseSession(args: Parameters<Store['releaseSession']>[0]): Promise<boolean> {
    for (let attempt = 0; attempt < RELEASE_ATTEMPTS; attempt++) {
      const code = await this.getCode(args.code);
      if (!code?.session || code.session.id !== args.sessionId) return false;
      const { endedSessions, toEdge } = endedSessionsAfter(code, code.session, args.by === 'admin' ? 'admin' : 'release', args.now);
      const values: Record<string, unknown> = { ':null': null, ':ended': endedSessions, ':one': 1, ':expected': code.revision };
      if (toEdge) Object.assign(values, prefixed(feedKeys(args.now, codeKey(args.code).pk)));
      const released = await this.writeIf({
        update: {
          Key: codeKey(args.code),
          UpdateExpression: `SET #session = :null, endedSessions = :ended, revision = revision + :one${toEdge ? ', feedPk = :feedPk, feedSk = :feedSk' : ''} REMOVE liveSk`,
          ConditionExpression: 'revision = :expected',
          ExpressionAttributeNames: { '#session': 'session' },
          ExpressionAttributeValues: values,
        },
      });
      if (released) return true;
    }
    // Not "gone already": the session may still stand, and a caller must not report it ended.
    throw new Contended(`code ${args.code} kept changing while ending session ${args.sessionId}`);
  }

  listEventSessions(args: Parameters<Store['listEventSessions']>[0]) {
    const partitions = Array.from({ length: CODE_SHARDS }, (_, shard) => eventCodesPk(args.eventId, shard));
    return listLiveSessions({ client: this.client, table: this.table, partitions, codeKey }, args);
  }

  async rateLimitRetryAfter(args: { key: string; limit: number; windowSeconds: number; now: Date }): Promise<number | null> {
    const { key, windowEnd, nowSeconds } = rateWindow(args);
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: key, ConsistentRead: true }));
    return Item && (Item.hits as number) >= args.limit ? Math.max(1, windowEnd - nowSeconds) : null;
  }

  async hitRateLimit(args: { key: string; limit: number; windowSeconds: number; now: Date }): Promise<void> {
    const { key, windowEnd, nowSeconds } = rateWindow(args);
    await this.writeIf(
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

  async accessChangesSince(since: string): Promise<{ codes: CodeAccessState[]; events: EventAccessState[] }> {
    const shards = await Promise.all(
      Array.from({ length: FEED_SHARDS }, (_, shard) =>
        this.queryAll({
          IndexName: 'accessFeed',
          KeyConditionExpression: 'feedPk = :shard AND feedSk >= :since',
          ExpressionAttributeValues: { ':shard': feedPk(shard), ':since': since },
        }),
      ),
    );
    const items = shards.flat();
    return {
      codes: items.filter((item) => item.entity === 'code').map(toCodeAccess),
      events: items.filter((item) => item.entity === 'event').map(toEventAccess),
    };
  }

  /**
   * Sharded counters are estimates: a counter write that fails after the write it counts
   * is dropped rather than failing a viewer's request whose real work is done.
   */
  private async addToCounters(eventId: string, seed: string, add: { redeemed?: number; revoked?: number }): Promise<void> {
    const names = Object.keys(add).filter((name) => add[name as keyof typeof add]);
    if (names.length === 0) return;
    await this.client
      .send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: countersPk(eventId, shardOf(seed, COUNTER_SHARDS)), sk: 'TOTALS' },
          UpdateExpression: `ADD ${names.map((name) => `${name} :${name}`).join(', ')}`,
          ExpressionAttributeValues: Object.fromEntries(names.map((name) => [`:${name}`, add[name as keyof typeof add]])),
        }),
      )
      .catch(() => undefined);
  }

  async countRedemption(args: { eventId: string; code: string; delta: number }): Promise<void> {
    await this.addToCounters(args.eventId, args.code, { redeemed: args.delta });
  }

  async countPresence(args: { eventId: string; seed: string; at: string; delta: number }): Promise<void> {
    const bucket = Math.floor(epochSeconds(args.at) / PRESENCE_BUCKET_SECONDS);
    await this.client
      .send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: countersPk(args.eventId, shardOf(args.seed, COUNTER_SHARDS)), sk: presenceSk(bucket) },
          UpdateExpression: 'ADD viewers :delta SET #ttl = :ttl',
          ExpressionAttributeNames: { '#ttl': tableSchema.ttlAttribute },
          ExpressionAttributeValues: { ':delta': args.delta, ':ttl': epochSeconds(args.at) + PRESENCE_KEEP_SECONDS },
        }),
      )
      .catch(() => undefined);
  }

  async eventCounters(args: { eventId: string; presenceSince: string }): Promise<EventCounters> {
    const shards = Array.from({ length: COUNTER_SHARDS }, (_, shard) => countersPk(args.eventId, shard));
    const fromSk = presenceSk(Math.floor(epochSeconds(args.presenceSince) / PRESENCE_BUCKET_SECONDS));
    const [totals, presence] = await Promise.all([
      this.client.send(new BatchGetCommand({ RequestItems: { [this.table]: { Keys: shards.map((pk) => ({ pk, sk: 'TOTALS' })) } } })),
      Promise.all(
        shards.map((pk) =>
          this.queryAll({
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': pk, ':from': fromSk, ':to': 'PRESENCE#~' },
          }),
        ),
      ),
    ]);
    // 32 small keys fit one BatchGet (100 at most); a throttled remainder only makes the estimate smaller.
    const sum = (items: Item[], name: string) => items.reduce((total, item) => total + ((item[name] as number | undefined) ?? 0), 0);
    const totalItems = (totals.Responses?.[this.table] ?? []) as Item[];
    return {
      redeemed: sum(totalItems, 'redeemed'),
      revoked: sum(totalItems, 'revoked'),
      presence: Math.max(0, sum(presence.flat(), 'viewers')),
    };
  }

  putAuditEntry(entry: AuditEntry, scope: AuditScope): Promise<void> {
    return putAuditEntry(this.client, this.table, entry, scope);
  }

  listAuditEntries(args: Parameters<Store['listAuditEntries']>[0]) {
    return listAuditEntries(this.client, this.table, args);
  }

  async deleteAuditEntries(eventId: string): Promise<void> {
    await this.deleteItems(await auditKeysOf(this.client, this.table, eventId));
  }

  async revokeAdminSession(id: string, expiresAt: string): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: `ADMINSESSION#${id}`, sk: 'ADMINSESSION', [tableSchema.ttlAttribute]: epochSeconds(expiresAt) + 60 },
      }),
    );
  }

  async isAdminSessionRevoked(id: string): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.table, Key: { pk: `ADMINSESSION#${id}`, sk: 'ADMINSESSION' }, ConsistentRead: true }),
    );
    return Item !== undefined;
  }
}

/** The fixed window, aligned to the clock, that a rate-limit hit at `now` counts in (also the in-memory store's). */
export function rateWindow(args: { key: string; windowSeconds: number; now: Date }) {
  const nowSeconds = Math.floor(args.now.getTime() / 1000);
  const windowStart = nowSeconds - (nowSeconds % args.windowSeconds);
  return { key: { pk: `RATE#${args.key}#${windowStart}`, sk: 'RATE' }, windowEnd: windowStart + args.windowSeconds, nowSeconds };
}

function prefixed(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [`:${key}`, value]));
}
