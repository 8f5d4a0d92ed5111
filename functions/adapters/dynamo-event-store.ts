import { AlreadyExists, Contended, LeaseHeld, NotFound } from '../domain/errors';
import type { EventChanges, EventGeoRule, EventStore, SaleMark, SaleMove, StreamLease } from '../domain/events';
import type { EventRecord, EventSale, PublishRefusal } from '../domain/records';
import { acquireUpdate, handOverUpdate, registerStandbyUpdate, type AcquireArgs, type HandOverArgs, type StandbyArgs } from './dynamo-lease-writes';
import { epochSeconds, eventKey, feedValues } from './dynamo-keys';
import { countSale, forgetSale, isSaleMark } from './dynamo-sale-counts';
import { listGeoRules, listWatermarkedEvents } from './dynamo-geo-rules';
import type { DynamoTable, Item } from './dynamo-table';
import { tableSchema } from './table-schema';

/** Deleted events stay as tombstones long enough for every poller and the edge to see the deactivation. */
const TOMBSTONE_SECONDS = 24 * 60 * 60;
/** How many of a generation job's codes the event's count holds: one attribute of the event item per job. */
const JOB_CODES = 'jobCodes#';
const COUNT_ATTEMPTS = 8;
/**
 * A checkout's mark on the event (`hold#<checkout id>`): `taken` once its take counted its tickets,
 * `returned` once they went back. Only the writes that change `ticketsTaken` set it, in the same write,
 * so a take or a release sent again finds it and changes nothing; dropped once the checkout's record agrees.
 */
const HOLD = 'hold#';
const TAKEN = 'taken';
const RETURNED = 'returned';
/** Attributes of the event item that are bookkeeping of its counts, not part of the event. */
const isCountMark = (name: string) => name.startsWith(JOB_CODES) || name.startsWith(HOLD) || isSaleMark(name);

export function toEvent(item: Item): EventRecord {
  const { pk, sk, entity, gsi1pk, gsi1sk, feedPk, feedSk, ttl, deleted, ...event } = item;
  for (const name of Object.keys(event)) if (isCountMark(name)) delete event[name];
  return event as unknown as EventRecord;
}

/** The event a write saw, unless there was none or it is a deleted event's tombstone. */
const liveEvent = (item: Item | null) => (item && !item.deleted ? item : null);
/** A refused lease write: the lease is another's (LeaseHeld), or the event is gone (NotFound). */
const leaseRefused = (id: string) => async (seen: () => Promise<Item | null>) => (liveEvent(await seen()) ? new LeaseHeld(`event ${id}`) : new NotFound('event', id));

/** The events port on DynamoDB: one item per event (`EVENT#<id>`), listed by the `byEvent` index. */
export class DynamoEventStore implements EventStore {
  constructor(private readonly table: DynamoTable) {}
  readonly listGeoRules = (): Promise<EventGeoRule[]> => listGeoRules(this.table);
  readonly listWatermarkedEvents = (): Promise<string[]> => listWatermarkedEvents(this.table);

  async createEvent(event: EventRecord): Promise<void> {
    await this.table.writeIf(
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
    const item = liveEvent(await this.table.get(eventKey(id), options));
    return item ? toEvent(item) : null;
  }

  async listEvents(limit: number): Promise<EventRecord[]> {
    const items = await this.table.queryAll(
      {
        IndexName: 'byEvent',
        KeyConditionExpression: 'gsi1pk = :events',
        ExpressionAttributeValues: { ':events': 'EVENTS' },
        ScanIndexForward: false,
      },
      limit,
    );
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
    return this.updateLiveEvent(id, `SET ${sets.join(', ')}`, values, names);
  }

  /** Updates the event unless it is gone (NotFound); the item after the update. */
  private async updateLiveEvent(id: string, update: string, values: Record<string, unknown>, names?: Record<string, string>): Promise<EventRecord> {
    const item = await this.table.writeIf(
      {
        update: {
          Key: eventKey(id),
          UpdateExpression: update,
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        },
      },
      () => new NotFound('event', id),
    );
    return toEvent(item);
  }

  setEventActive(id: string, active: boolean, now: string): Promise<EventRecord> {
    return this.updateLiveEvent(id, 'SET isActive = :active, activeChangedAt = :now, updatedAt = :now, feedPk = :feedPk, feedSk = :feedSk', {
      ':active': active,
      ':now': now,
      ...feedValues(now, eventKey(id).pk),
    });
  }

  async appendPublishRefusal(id: string, refusal: PublishRefusal, keep: number): Promise<void> {
    const event = await this.updateLiveEvent(id, 'SET publishRefusals = list_append(if_not_exists(publishRefusals, :none), :one)', {
      ':none': [],
      ':one': [refusal],
    });
    const all = event.publishRefusals ?? [];
    if (all.length <= keep * 2) return;
    // Trim only if nobody appended meanwhile (the append itself is atomic); a lost race leaves it to the next one.
    await this.table.writeIf({
      update: {
        Key: eventKey(id),
        UpdateExpression: 'SET publishRefusals = :kept',
        ConditionExpression: 'size(publishRefusals) = :count',
        ExpressionAttributeValues: { ':kept': all.slice(-keep), ':count': all.length },
      },
    });
  }

  async acquireStreamLease(id: string, args: AcquireArgs): Promise<EventRecord> {
    return toEvent(await this.table.writeIf({ update: acquireUpdate(id, args) }, leaseRefused(id)));
  }

  async registerStandby(id: string, args: StandbyArgs): Promise<EventRecord> {
    return toEvent(await this.table.writeIf({ update: registerStandbyUpdate(id, args) }, leaseRefused(id)));
  }

  async handOverStreamLease(id: string, args: HandOverArgs): Promise<EventRecord> {
    return toEvent(await this.table.writeIf({ update: handOverUpdate(id, args) }, leaseRefused(id)));
  }

  async releaseStreamLease(id: string, { holder, now, expiresAt }: { holder: string; now: string; expiresAt?: string }): Promise<EventRecord> {
    const outcome = await this.table.writeIf({
      update: {
        Key: eventKey(id),
        UpdateExpression: 'SET leaseHolder = :null, leaseExpiresAt = :null, lastLiveEndedAt = :now, updatedAt = :now',
        ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleted) AND leaseHolder = :holder${expiresAt ? ' AND leaseExpiresAt = :expires' : ''}`,
        ExpressionAttributeValues: { ':holder': holder, ':now': now, ':null': null, ...(expiresAt ? { ':expires': expiresAt } : {}) },
        ReturnValues: 'ALL_NEW',
      },
    });
    if (outcome.applied) return toEvent(outcome.item);
    // Not (any more) this holder's lease: nothing to end.
    const seen = liveEvent(await outcome.seen());
    if (!seen) throw new NotFound('event', id);
    return toEvent(seen);
  }

  async listStreamLeases(): Promise<StreamLease[]> {
    // A released lease holds NULL, which `attribute_type(…, S)` leaves out with the events that never had one.
    const items = await this.table.queryAll({
      IndexName: 'byEvent',
      KeyConditionExpression: 'gsi1pk = :events',
      FilterExpression: 'attribute_type(leaseHolder, :string)',
      ProjectionExpression: 'id, leaseHolder, leaseExpiresAt',
      ExpressionAttributeValues: { ':events': 'EVENTS', ':string': 'S' },
    });
    return items.map((item) => ({ eventId: item.id as string, holder: item.leaseHolder as string, expiresAt: item.leaseExpiresAt as string }));
  }

  async deleteEvent(id: string, now: string): Promise<void> {
    // It keeps `endsAt` and `accessWindowHours`, which say how long the edge must deny the event's credentials.
    await this.table.writeIf(
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
            ...feedValues(now, eventKey(id).pk),
          },
        },
      },
      () => new NotFound('event', id),
    );
  }

  async cancelEvent(id: string, cancel: { at: string; reason: string; closedSale: EventSale | null }): Promise<boolean> {
    const sale = cancel.closedSale ? ', sale = :sale' : '';
    const outcome = await this.table.writeIf({
      update: {
        Key: eventKey(id),
        UpdateExpression: `SET cancelledAt = :at, cancelReason = :reason, updatedAt = :at${sale}`,
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted) AND (attribute_not_exists(cancelledAt) OR cancelledAt = :null)',
        ExpressionAttributeValues: { ':at': cancel.at, ':reason': cancel.reason, ':null': null, ...(cancel.closedSale ? { ':sale': cancel.closedSale } : {}) },
      },
    });
    if (outcome.applied) return true;
    const seen = await outcome.seen();
    if (!seen || seen.deleted) throw new NotFound('event', id);
    return false;
  }

  async extendEventDenyUntil(id: string, until: string): Promise<void> {
    const outcome = await this.table.writeIf({
      update: {
        Key: eventKey(id),
        UpdateExpression: 'SET denyUntil = :until',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(denyUntil) OR denyUntil = :null OR denyUntil < :until)',
        ExpressionAttributeValues: { ':until': until, ':null': null },
      },
    });
    if (!outcome.applied && !(await outcome.seen())) throw new NotFound('event', id);
  }

  async takeTickets(id: string, quantity: number, capacity: number | null, checkoutId: string): Promise<boolean> {
    if (capacity !== null && quantity > capacity) return false;
    const names = { '#sale': 'sale', '#open': 'open', '#capacity': 'capacity', '#taken': 'ticketsTaken', '#held': 'ticketsHeld', '#mark': `${HOLD}${checkoutId}` };
    // Conditions cannot add: "taken + quantity <= capacity" is "taken <= capacity - quantity", for the capacity read.
    const room =
      capacity === null
        ? { condition: 'attribute_type(#sale.#capacity, :null)', values: { ':null': 'NULL' } }
        : { condition: '#sale.#capacity = :capacity AND (attribute_not_exists(#taken) OR #taken <= :most)', values: { ':capacity': capacity, ':most': capacity - quantity } };
    const outcome = await this.table.writeIf({
      update: {
        Key: eventKey(id),
        UpdateExpression: 'SET #mark = :marked ADD #taken :quantity, #held :quantity',
        ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleted) AND attribute_not_exists(#mark) AND #sale.#open = :open AND ${room.condition}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':quantity': quantity, ':open': true, ':marked': TAKEN, ...room.values },
      },
    });
    if (outcome.applied) return true;
    const seen = liveEvent(await outcome.seen());
    if (!seen) throw new NotFound('event', id);
    // The same take sent again (its answer lost): this checkout holds them already.
    return seen[names['#mark']] === TAKEN;
  }

  async releaseTickets(id: string, quantity: number, checkoutId: string, kind: 'return' | 'untake'): Promise<void> {
    // A `taken` mark left by a take whose record agreed (its forget cut off) means nothing to a `return`.
    const given = kind === 'return' ? '(attribute_not_exists(#mark) OR #mark = :taken)' : '#mark = :taken';
    await this.table.writeIf({
      update: {
        Key: eventKey(id),
        UpdateExpression: 'SET #mark = :returned ADD #taken :minus, #held :minus',
        ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleted) AND ${given}`,
        ExpressionAttributeNames: { '#taken': 'ticketsTaken', '#held': 'ticketsHeld', '#mark': `${HOLD}${checkoutId}` },
        ExpressionAttributeValues: { ':minus': -quantity, ':taken': TAKEN, ':returned': RETURNED },
      },
    });
  }

  async forgetCheckout(id: string, checkoutId: string): Promise<void> {
    await this.table.writeIf({
      update: { Key: eventKey(id), UpdateExpression: 'REMOVE #mark', ConditionExpression: 'attribute_exists(#mark)', ExpressionAttributeNames: { '#mark': `${HOLD}${checkoutId}` } },
    });
  }

  countSale(id: string, orderId: string, moves: readonly SaleMove[], to: SaleMark): Promise<void> {
    return countSale(this.table, id, orderId, moves, to);
  }

  forgetSale(id: string, orderId: string, mark: SaleMark): Promise<void> {
    return forgetSale(this.table, id, orderId, mark);
  }

  async addToCodeCount(eventId: string, delta: number): Promise<void> {
    await this.updateLiveEvent(eventId, 'ADD tokenCount :delta', { ':delta': delta });
  }

  async countJobCodes({ eventId, jobId, done }: { eventId: string; jobId: string; done: number }): Promise<void> {
    const names = { '#counted': `${JOB_CODES}${jobId}` };
    for (let attempt = 0; attempt < COUNT_ATTEMPTS; attempt++) {
      const event = liveEvent(await this.table.get(eventKey(eventId)));
      if (!event) return;
      const counted = (event[names['#counted']] as number | undefined) ?? 0;
      if (done <= counted) return;
      const outcome = await this.table.writeIf({
        update: {
          Key: eventKey(eventId),
          UpdateExpression: 'SET #counted = :done ADD tokenCount :delta',
          ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleted) AND ${counted === 0 ? 'attribute_not_exists(#counted)' : '#counted = :counted'}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':done': done, ':delta': done - counted, ...(counted === 0 ? {} : { ':counted': counted }) },
        },
      });
      if (outcome.applied) return;
    }
    throw new Contended(`event ${eventId}: the codes of job ${jobId} kept being counted by others`);
  }
}
