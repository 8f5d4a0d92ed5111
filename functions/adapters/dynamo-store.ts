import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { DynamoAccountStore } from './dynamo-account-store';
import { AccessRevoked, AlreadyExists, CodeInUse, LeaseHeld, NotFound, RateLimited, SessionGone } from '../domain/errors';
import { endedSessionMatters, endOf } from '../domain/ended-sessions';
import type { AuditEntry, AuditScope } from '../domain/audit-log';
import type { CodeRecord, EventRecord, PublishRefusal } from '../domain/records';
import type { EventChanges, Store } from '../domain/store';
import { auditKeysOf, listAuditEntries, putAuditEntry } from './dynamo-audit';
import { listEventSessions } from './dynamo-sessions';
import { tableSchema } from './table-schema';

const FEED = 'FEED';
/** Deleted events stay as tombstones long enough for every poller and the edge to see the deactivation. */
const TOMBSTONE_SECONDS = 24 * 60 * 60;
const FAN_OUT = 16;

const eventKey = (id: string) => ({ pk: `EVENT#${id}`, sk: 'EVENT' });
const codeKey = (code: string) => ({ pk: `CODE#${code}`, sk: 'CODE' });
const feedKeys = (at: string, pk: string) => ({ feedPk: FEED, feedSk: `${at}#${pk}` });
const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

type Item = Record<string, unknown>;

function toEvent(item: Item): EventRecord {
  const { pk, sk, entity, gsi1pk, gsi1sk, feedPk, feedSk, ttl, deleted, ...event } = item;
  return event as unknown as EventRecord;
}

function toCode(item: Item): CodeRecord {
  const { pk, sk, entity, gsi1pk, gsi1sk, feedPk, feedSk, ttl, tokenId, ...rest } = item;
  return { ...(rest as unknown as Omit<CodeRecord, 'id'>), id: tokenId as string };
}

function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}

/** Turns a failed condition into a domain error; everything else propagates. */
async function conditional<T>(write: () => Promise<T>, onFailure: () => Error | Promise<Error>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isConditionFailure(error)) throw await onFailure();
    throw error;
  }
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
    await conditional(
      () =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: { ...eventKey(event.id), entity: 'event', gsi1pk: 'EVENTS', gsi1sk: `${event.createdAt}#${event.id}`, ...event },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      () => new AlreadyExists(`event ${event.id} exists`),
    );
  }

  async getEvent(id: string): Promise<EventRecord | null> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.table, Key: eventKey(id), ConsistentRead: true }));
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
    const { Attributes } = await conditional(
      () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: eventKey(id),
            UpdateExpression: update,
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted)',
            ExpressionAttributeNames: Object.keys(names).length ? names : undefined,
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        ),
      () => new NotFound(`event ${id}`),
    );
    return toEvent(Attributes!);
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
    const codes = await this.listCodes(id);
    await inBatches(codes, FAN_OUT, (code) =>
      this.client
        .send(
          new UpdateCommand({
            TableName: this.table,
            Key: codeKey(code.code),
            UpdateExpression: 'SET eventActive = :active',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':active': active },
          }),
        )
        .catch((error) => {
          if (!isConditionFailure(error)) throw error;
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
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: eventKey(id),
          UpdateExpression: 'SET publishRefusals = :kept',
          ConditionExpression: 'size(publishRefusals) = :count',
          ExpressionAttributeValues: { ':kept': all.slice(-keep), ':count': all.length },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async setEventLive(id: string, live: boolean, now: string): Promise<EventRecord> {
    return live
      ? this.updateEventItem(id, 'SET liveSince = :now, updatedAt = :now', {}, { ':now': now })
      : this.updateEventItem(id, 'SET liveSince = :null, lastLiveEndedAt = :now, updatedAt = :now', {}, { ':now': now, ':null': null });
  }

  async acquireStreamLease(id: string, { holder, now, expiresAt }: { holder: string; now: string; expiresAt: string }): Promise<EventRecord> {
    const { Attributes } = await conditional(
      () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: eventKey(id),
            UpdateExpression: 'SET leaseHolder = :holder, leaseExpiresAt = :expires, updatedAt = :now',
            ConditionExpression:
              'attribute_exists(pk) AND attribute_not_exists(deleted) AND (attribute_not_exists(leaseHolder) OR leaseHolder = :null OR leaseHolder = :holder OR leaseExpiresAt <= :now)',
            ExpressionAttributeValues: { ':holder': holder, ':expires': expiresAt, ':now': now, ':null': null },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      async () => ((await this.getEvent(id)) ? new LeaseHeld(`event ${id}`) : new NotFound(`event ${id}`)),
    );
    return toEvent(Attributes!);
  }

  async releaseStreamLease(id: string, { holder, now, expiresAt }: { holder: string; now: string; expiresAt?: string }): Promise<EventRecord> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: eventKey(id),
          UpdateExpression: 'SET leaseHolder = :null, leaseExpiresAt = :null, liveSince = :null, lastLiveEndedAt = :now, updatedAt = :now',
          ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleted) AND leaseHolder = :holder${expiresAt ? ' AND leaseExpiresAt = :expires' : ''}`,
          ExpressionAttributeValues: { ':holder': holder, ':now': now, ':null': null, ...(expiresAt ? { ':expires': expiresAt } : {}) },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toEvent(Attributes!);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const event = await this.getEvent(id);
      if (!event) throw new NotFound(`event ${id}`);
      return event;
    }
  }

  async deleteEvent(id: string, now: string): Promise<void> {
    // Tombstone first: from here on validation, refresh and the feed treat the event as gone.
    const { pk } = eventKey(id);
    await conditional(
      () =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              ...eventKey(id),
              entity: 'event',
              deleted: true,
              id,
              isActive: false,
              activeChangedAt: now,
              ...feedKeys(now, pk),
              [tableSchema.ttlAttribute]: epochSeconds(now) + TOMBSTONE_SECONDS,
            },
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted)',
          }),
        ),
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
    await conditional(
      () =>
        this.client.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              ...codeKey(code.code),
              entity: 'code',
              tokenId: id,
              gsi1pk: eventKey(code.eventId).pk,
              gsi1sk: `${code.createdAt}#${id}`,
              ...rest,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      () => new AlreadyExists(`code exists`),
    );
  }

  async addToTokenCount(eventId: string, delta: number): Promise<void> {
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

  async listCodes(eventId: string): Promise<CodeRecord[]> {
    const items = await this.queryAll({
      IndexName: 'byEvent',
      KeyConditionExpression: 'gsi1pk = :event',
      ExpressionAttributeValues: { ':event': eventKey(eventId).pk },
      ScanIndexForward: false,
    });
    return items.map(toCode);
  }

  async setCodeRevoked(id: string, revoked: boolean, now: string): Promise<CodeRecord> {
    const current = await this.getCodeById(id);
    if (!current) throw new NotFound(`token ${id}`);
    if (current.isRevoked === revoked) return current;
    const { pk } = codeKey(current.code);
    const { Attributes } = await conditional(
      () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: codeKey(current.code),
            UpdateExpression:
              'SET isRevoked = :revoked, revokedAt = :revokedAt, revokedChangedAt = :now, feedPk = :feedPk, feedSk = :feedSk',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: {
              ':revoked': revoked,
              ':revokedAt': revoked ? now : null,
              ':now': now,
              ...prefixed(feedKeys(now, pk)),
            },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      () => new NotFound(`token ${id}`),
    );
    return toCode(Attributes!);
  }

  async claimSession(args: Parameters<Store['claimSession']>[0]): Promise<CodeRecord> {
    const { pk } = codeKey(args.code);
    const sets = ['#session = :session', 'endedSessions = :ended', 'revision = revision + :one'];
    const values: Record<string, unknown> = {
      ':session': args.session,
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
    if (args.endedSessions.some((ended) => ended.endedAt === args.now)) {
      sets.push('feedPk = :feedPk', 'feedSk = :feedSk');
      Object.assign(values, prefixed(feedKeys(args.now, pk)));
    }
    const { Attributes } = await conditional(
      () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: codeKey(args.code),
            UpdateExpression: `SET ${sets.join(', ')}`,
            ConditionExpression: 'revision = :expected AND isRevoked = :false AND eventActive = :true',
            ExpressionAttributeNames: { '#session': 'session' },
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
          }),
        ),
      () => new CodeInUse('the code changed while claiming it'),
    );
    return toCode(Attributes!);
  }

  async heartbeat(args: { code: string; sessionId: string; now: string; staleBefore: string }): Promise<void> {
    await conditional(
      () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: codeKey(args.code),
            UpdateExpression: 'SET #session.heartbeatAt = :now',
            ConditionExpression:
              '#session.id = :sid AND #session.heartbeatAt >= :staleBefore AND isRevoked = :false AND eventActive = :true',
            ExpressionAttributeNames: { '#session': 'session' },
            ExpressionAttributeValues: {
              ':now': args.now,
              ':sid': args.sessionId,
              ':staleBefore': args.staleBefore,
              ':false': false,
              ':true': true,
            },
          }),
        ),
      async () => {
        // Only the failure path pays a read, to tell a revoked code from a gone session.
        const code = await this.getCode(args.code);
        if (!code || code.isRevoked || !code.eventActive) return new AccessRevoked('code or event no longer active');
        return new SessionGone('session ended');
      },
    );
  }

  async markSessionLongLived(args: { code: string; sessionId: string; until: string; staleBefore: string }): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.table,
          Key: codeKey(args.code),
          UpdateExpression: 'SET #session.longLivedUntil = :until',
          ConditionExpression:
            '#session.id = :sid AND #session.heartbeatAt >= :staleBefore AND isRevoked = :false AND eventActive = :true' +
            ' AND (attribute_not_exists(#session.longLivedUntil) OR #session.longLivedUntil < :until)',
          ExpressionAttributeNames: { '#session': 'session' },
          ExpressionAttributeValues: {
            ':until': args.until,
            ':sid': args.sessionId,
            ':staleBefore': args.staleBefore,
            ':false': false,
            ':true': true,
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const code = await this.getCode(args.code);
      if (!code || code.isRevoked || !code.eventActive) throw new AccessRevoked('code or event no longer active');
      const session = code.session;
      const live = session?.id === args.sessionId && session.heartbeatAt >= args.staleBefore;
      // Marked already with a later time: nothing to do.
      if (!live || (session.longLivedUntil ?? '') < args.until) throw new SessionGone('session ended');
    }
  }

  async releaseSession(args: Parameters<Store['releaseSession']>[0]): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const code = await this.getCode(args.code);
      if (!code || code.session?.id !== args.sessionId) return false;
      const ended = [
        ...code.endedSessions.filter((entry) => endedSessionMatters(entry, args.keepEndedAfter, args.now)),
        { ...endOf(code.session, args.now), ...(args.by ? { by: args.by } : {}) },
      ];
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: codeKey(args.code),
            UpdateExpression:
              'SET #session = :null, endedSessions = :ended, revision = revision + :one, feedPk = :feedPk, feedSk = :feedSk',
            ConditionExpression: 'revision = :expected',
            ExpressionAttributeNames: { '#session': 'session' },
            ExpressionAttributeValues: {
              ':null': null,
              ':ended': ended,
              ':one': 1,
              ':expected': code.revision,
              ...prefixed(feedKeys(args.now, codeKey(args.code).pk)),
            },
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    return false;
  }

  listEventSessions(args: Parameters<Store['listEventSessions']>[0]) {
    return listEventSessions(this.client, this.table, args);
  }

  async hitRateLimit(args: { key: string; limit: number; windowSeconds: number; now: Date }): Promise<void> {
    const nowSeconds = Math.floor(args.now.getTime() / 1000);
    const windowStart = nowSeconds - (nowSeconds % args.windowSeconds);
    const windowEnd = windowStart + args.windowSeconds;
    await conditional(
      () =>
        this.client.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: `RATE#${args.key}#${windowStart}`, sk: 'RATE' },
            UpdateExpression: 'ADD hits :one SET #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
            ExpressionAttributeNames: { '#ttl': tableSchema.ttlAttribute },
            ExpressionAttributeValues: { ':one': 1, ':limit': args.limit, ':ttl': windowEnd + 60 },
          }),
        ),
      () => new RateLimited(Math.max(1, windowEnd - nowSeconds)),
    );
  }

  async accessChangesSince(since: string): Promise<{ codes: CodeRecord[]; events: EventRecord[] }> {
    const items = await this.queryAll({
      IndexName: 'feed',
      KeyConditionExpression: 'feedPk = :feed AND feedSk >= :since',
      ExpressionAttributeValues: { ':feed': FEED, ':since': since },
    });
    return {
      codes: items.filter((item) => item.entity === 'code').map(toCode),
      events: items.filter((item) => item.entity === 'event').map(toEvent),
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

function prefixed(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [`:${key}`, value]));
}
