import { randomInt } from 'node:crypto';
import { BatchGetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AirChange, AudienceStore, EndedSessionSummary, MinuteTally, TicketWatch, TroubleEntry } from '../domain/audience';
import { MINUTE_SUMS, emptyMinute, mergeMinute } from '../domain/audience';
import { TROUBLE_MIN_WATCH_MS, failedToStart, stallRatio } from '../domain/playback-quality';
import { decodeCursor, encodeCursor } from './dynamo-cursor';
import { epochSeconds, shardOf } from './dynamo-keys';
import type { DynamoTable, Item } from './dynamo-table';
import { tableSchema } from './table-schema';

/**
 * How the audience is spread. Minutes: a few writes a second per event from the recorder's batches
 * (docs/performance.md, partition load), over 4 keys. Tickets: one write per ended session, over
 * 16 (a million departures in 5 minutes put 210 writes/s on each). Trouble: one write per session
 * that crosses into it, over 128, so that a whole audience of a million stalling within one beat
 * (33,000 crossings a second) puts some 260 writes/s on each; a page of the list reads every shard.
 */
const MINUTE_SHARDS = 4;
const TICKET_SHARDS = 16;
const TROUBLE_SHARDS = 128;

const pad = (n: number) => String(n).padStart(2, '0');
const shards = (count: number, pk: (shard: number) => string) => Array.from({ length: count }, (_, shard) => pk(shard));
const minutePk = (eventId: string, shard: number) => `AUDIENCE#${eventId}#M${shard}`;
const ticketKey = (eventId: string, code: string) => ({ pk: `AUDIENCE#${eventId}#T${pad(shardOf(code, TICKET_SHARDS))}`, sk: code });
const troublePk = (eventId: string, shard: number) => `AUDIENCE#${eventId}#X${pad(shard)}`;
const airPk = (eventId: string) => `AUDIENCE#${eventId}#AIR`;

/** A minute's sketch buckets and rendition classes are attributes of their own, added to one by one. */
const STARTUP_PREFIX = 'su';
const RENDITION_PREFIX = 'kb';
/** Errors by name: `et.<name>` (names are letters, digits and `_.:-`, playback-quality.ts; not `er`, which `errors` starts with). */
const ERROR_PREFIX = 'et.';

function toMinute(item: Item): MinuteTally {
  const minute = emptyMinute(item.sk as string);
  for (const field of MINUTE_SUMS) minute[field] = Number(item[field] ?? 0);
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(STARTUP_PREFIX)) minute.startups.set(Number(name.slice(STARTUP_PREFIX.length)), Number(value));
    else if (name.startsWith(RENDITION_PREFIX)) minute.renditions.set(Number(name.slice(RENDITION_PREFIX.length)), Number(value));
    else if (name.startsWith(ERROR_PREFIX)) minute.errorTypes.set(name.slice(ERROR_PREFIX.length), Number(value));
  }
  return minute;
}

function toTicket(item: Item): TicketWatch {
  const numbers = (value: unknown) => (value instanceof Set ? [...value].map(Number) : []);
  return {
    eventId: item.eventId as string,
    code: item.code as string,
    sessions: Number(item.sessions ?? 0),
    playingMs: Number(item.playingMs ?? 0),
    stalledMs: Number(item.stalledMs ?? 0),
    stalls: Number(item.stalls ?? 0),
    errors: Number(item.errors ?? 0),
    droppedFrames: Number(item.droppedFrames ?? 0),
    startFailures: Number(item.startFailures ?? 0),
    stallRatios: numbers(item.stallRatios).sort((a, b) => a - b),
    devices: item.devices instanceof Set ? [...(item.devices as Set<string>)].sort() : [],
    firstWatchedAt: (item.firstWatchedAt as string | undefined) ?? null,
    lastWatchedAt: (item.lastWatchedAt as string | undefined) ?? null,
    lastFatal: (item.lastFatal as string | undefined) ?? null,
  };
}

function toTrouble(item: Item): TroubleEntry {
  return {
    eventId: item.eventId as string,
    code: item.sk as string,
    codeId: item.codeId as string,
    label: (item.label as string | undefined) ?? '',
    reason: item.reason as TroubleEntry['reason'],
    at: item.at as string,
  };
}

/**
 * The audience port on DynamoDB: an event's minutes (`AUDIENCE#<eventId>#M<shard>` / `<minute>`),
 * its tickets' records (`…#T<shard>` / `<code>`), its trouble list (`…#X<shard>` / `<code>`) and
 * its air marks (`…#AIR` / `<at>#on|off`), each with the event's keep-until as TTL.
 */
export class DynamoAudienceStore implements AudienceStore {
  constructor(private readonly table: DynamoTable) {}

  async addMinutes(eventId: string, tallies: MinuteTally[], keepUntil: string): Promise<void> {
    // Any shard will do: readers merge them all.
    const shard = randomInt(MINUTE_SHARDS);
    await Promise.all(
      tallies.map((tally) => {
        const names: Record<string, string> = { '#ttl': tableSchema.ttlAttribute };
        const values: Record<string, unknown> = { ':ttl': epochSeconds(keepUntil) };
        const adds: string[] = [];
        // Placeholders by position: an error's name may hold characters a placeholder may not.
        const add = (name: string, value: number) => {
          if (value === 0) return;
          const at = adds.length;
          names[`#a${at}`] = name;
          values[`:a${at}`] = value;
          adds.push(`#a${at} :a${at}`);
        };
        for (const field of MINUTE_SUMS) add(field, tally[field]);
        for (const [index, count] of tally.startups) add(`${STARTUP_PREFIX}${index}`, count);
        for (const [kbps, ms] of tally.renditions) add(`${RENDITION_PREFIX}${kbps}`, ms);
        for (const [name, count] of tally.errorTypes) add(`${ERROR_PREFIX}${name}`, count);
        if (adds.length === 0) return undefined;
        return this.table.client.send(
          new UpdateCommand({
            TableName: this.table.name,
            Key: { pk: minutePk(eventId, shard), sk: tally.at },
            UpdateExpression: `ADD ${adds.join(', ')} SET #ttl = :ttl`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          }),
        );
      }),
    );
  }

  async minutes(eventId: string, from: string, to: string): Promise<MinuteTally[]> {
    const last = new Date(Date.parse(to) - 1).toISOString();
    const items = await Promise.all(
      shards(MINUTE_SHARDS, (shard) => minutePk(eventId, shard)).map((pk) =>
        this.table.queryAll({
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :last',
          ExpressionAttributeValues: { ':pk': pk, ':from': from, ':last': last },
          ConsistentRead: false,
        }),
      ),
    );
    const merged = new Map<string, MinuteTally>();
    for (const minute of items.flat().map(toMinute)) {
      const into = merged.get(minute.at);
      merged.set(minute.at, into ? mergeMinute(into, minute) : minute);
    }
    return [...merged.values()].sort((a, b) => a.at.localeCompare(b.at));
  }

  async foldSession(eventId: string, code: string, session: EndedSessionSummary, keepUntil: string): Promise<void> {
    const q = session.quality;
    const watched = (q.playingMs ?? 0) + (q.stalledMs ?? 0);
    const values: Record<string, unknown> = {
      ':one': 1,
      ':playingMs': q.playingMs ?? 0,
      ':stalledMs': q.stalledMs ?? 0,
      ':stalls': q.stalls ?? 0,
      ':errors': q.errors ?? 0,
      ':droppedFrames': q.droppedFrames ?? 0,
      ':startFailures': failedToStart(q) ? 1 : 0,
      ':devices': new Set([session.device]),
      ':sessionIds': new Set([session.sessionId]),
      ':eventId': eventId,
      ':code': code,
      ':startedAt': session.startedAt,
      ':endedAt': session.endedAt,
      ':folded': `${session.startedAt}#${session.sessionId}`,
      ':ttl': epochSeconds(keepUntil),
    };
    const adds = ['sessions :one', 'playingMs :playingMs', 'stalledMs :stalledMs', 'stalls :stalls', '#errors :errors', 'droppedFrames :droppedFrames', 'startFailures :startFailures', 'devices :devices', 'sessionIds :sessionIds'];
    // A ratio says something only once the session watched a while (the trouble rule's own threshold).
    if (watched >= TROUBLE_MIN_WATCH_MS) {
      adds.push('stallRatios :ratio');
      values[':ratio'] = new Set([Math.round(stallRatio({ playingMs: q.playingMs ?? 0, stalledMs: q.stalledMs ?? 0 }) * 1000) / 1000]);
    }
    const sets = ['eventId = :eventId', 'code = :code', 'firstWatchedAt = if_not_exists(firstWatchedAt, :startedAt)', 'lastWatchedAt = :endedAt', 'lastFolded = :folded', '#ttl = :ttl'];
    if (q.lastFatal) {
      sets.push('lastFatal = :lastFatal');
      values[':lastFatal'] = q.lastFatal;
    }
    // Sessions of one code end one after another, and the stream hands them over in that order: a
    // session at or before the last one added is a batch delivered again.
    await this.table.writeIf({
      update: {
        Key: ticketKey(eventId, code),
        UpdateExpression: `ADD ${adds.join(', ')} SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_not_exists(lastFolded) OR lastFolded < :folded',
        ExpressionAttributeNames: { '#errors': 'errors', '#ttl': tableSchema.ttlAttribute },
        ExpressionAttributeValues: values,
      },
    });
  }

  async ticket(eventId: string, code: string): Promise<TicketWatch | null> {
    const item = await this.table.get(ticketKey(eventId, code), { consistent: false });
    return item ? toTicket(item) : null;
  }

  async tickets(eventId: string, codes: string[]): Promise<Map<string, TicketWatch>> {
    const items = await this.ticketItems(eventId, codes);
    return new Map([...items].map(([code, item]) => [code, toTicket(item)]));
  }

  async ticketSessionIds(eventId: string, codes: string[]): Promise<Map<string, string[]>> {
    const items = await this.ticketItems(eventId, codes, 'code, sessionIds');
    return new Map([...items].map(([code, item]) => [code, item.sessionIds instanceof Set ? [...(item.sessionIds as Set<string>)].sort() : []]));
  }

  /** Ticket items by code, 100 per BatchGet, retrying what DynamoDB left unprocessed. */
  private async ticketItems(eventId: string, codes: string[], projection?: string): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    for (let i = 0; i < codes.length; i += 100) {
      let keys: Item[] | undefined = codes.slice(i, i + 100).map((code) => ticketKey(eventId, code));
      for (let attempt = 0; keys && keys.length > 0; attempt++) {
        if (attempt > 8) throw new Error('could not read all tickets');
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
        const request = { Keys: keys, ...(projection ? { ProjectionExpression: projection } : {}) };
        const { Responses, UnprocessedKeys } = await this.table.client.send(new BatchGetCommand({ RequestItems: { [this.table.name]: request } }));
        for (const item of (Responses?.[this.table.name] ?? []) as Item[]) found.set(item.code as string, item);
        keys = UnprocessedKeys?.[this.table.name]?.Keys as Item[] | undefined;
      }
    }
    return found;
  }

  async markTrouble(entry: TroubleEntry, keepUntil: string): Promise<void> {
    const { code, ...rest } = entry;
    await this.table.client.send(
      new PutCommand({
        TableName: this.table.name,
        Item: { pk: troublePk(entry.eventId, shardOf(code, TROUBLE_SHARDS)), sk: code, ...rest, [tableSchema.ttlAttribute]: epochSeconds(keepUntil) },
      }),
    );
  }

  async troubleList(eventId: string, args: { cursor: string | null; limit: number }): Promise<{ entries: TroubleEntry[]; nextCursor: string | null }> {
    const after = args.cursor ? decodeCursor(args.cursor, ['eventId', 'code'], (key) => key.eventId === eventId).code! : null;
    // Each shard in code order from the cursor on; the page is the first `limit` of their merge.
    const pages = await Promise.all(
      shards(TROUBLE_SHARDS, (shard) => troublePk(eventId, shard)).map((pk) =>
        this.table.client.send(
          new QueryCommand({
            TableName: this.table.name,
            KeyConditionExpression: after === null ? 'pk = :pk' : 'pk = :pk AND sk > :after',
            ExpressionAttributeValues: { ':pk': pk, ...(after === null ? {} : { ':after': after }) },
            Limit: args.limit,
            ConsistentRead: false,
          }),
        ),
      ),
    );
    const all = pages.flatMap((page) => ((page.Items ?? []) as Item[]).map(toTrouble)).sort((a, b) => a.code.localeCompare(b.code));
    const entries = all.slice(0, args.limit);
    const more = all.length > args.limit || pages.some((page) => page.LastEvaluatedKey);
    const last = entries[entries.length - 1];
    return { entries, nextCursor: more && last ? encodeCursor({ eventId, code: last.code }) : null };
  }

  async recordAirChange(eventId: string, change: AirChange, keepUntil: string): Promise<void> {
    await this.table.client.send(
      new PutCommand({
        TableName: this.table.name,
        Item: { pk: airPk(eventId), sk: `${change.at}#${change.onAir ? 'on' : 'off'}`, ...change, [tableSchema.ttlAttribute]: epochSeconds(keepUntil) },
      }),
    );
  }

  async airChanges(eventId: string): Promise<AirChange[]> {
    const items = await this.table.queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': airPk(eventId) } });
    return items.map((item) => ({ at: item.at as string, onAir: item.onAir === true }));
  }

  async deleteEventAudience(eventId: string): Promise<void> {
    const partitions = [
      ...shards(MINUTE_SHARDS, (shard) => minutePk(eventId, shard)),
      ...shards(TICKET_SHARDS, (shard) => `AUDIENCE#${eventId}#T${pad(shard)}`),
      ...shards(TROUBLE_SHARDS, (shard) => troublePk(eventId, shard)),
      airPk(eventId),
    ];
    for (const pk of partitions) {
      const keys = await this.table.queryAll({
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ProjectionExpression: 'pk, sk',
      });
      await this.table.deleteAll(keys);
    }
  }
}
