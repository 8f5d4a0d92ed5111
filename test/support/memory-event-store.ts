import { AlreadyExists, LeaseHeld, NotFound } from '../../functions/domain/errors';
import type { EventChanges, EventGeoRule, EventStore, SaleMark, SaleMove, StreamLease } from '../../functions/domain/events';
import type { EncoderRole } from '../../functions/domain/records';
import type { EventAccessState, EventRecord, EventSale, PublishRefusal } from '../../functions/domain/records';
import { changedSince, copy } from './memory-records';

interface StoredEvent {
  record: EventRecord;
  /** Per generation job: how many of its codes `tokenCount` holds. */
  jobCodes: Map<string, number>;
  /** Per checkout: its mark, as DynamoDB's `hold#<checkout id>` attribute. */
  holds: Map<string, 'taken' | 'returned'>;
  /** Per order: its mark, as DynamoDB's `sale#<order id>` attribute. */
  sales: Map<string, SaleMark>;
  /** A deleted event stays as a tombstone for the access feed. */
  deleted: boolean;
  /** When it last entered the access feed. */
  feedAt: string | null;
}

/**
 * The events port in memory (memory-stores.ts). Each method reads and writes without awaiting in
 * between, so it is as atomic as DynamoDB's conditional write.
 */
export class MemoryEventStore implements EventStore {
  private readonly events = new Map<string, StoredEvent>();

  private liveEvent(id: string): StoredEvent {
    const stored = this.events.get(id);
    if (!stored || stored.deleted) throw new NotFound('event', id);
    return stored;
  }

  async createEvent(event: EventRecord): Promise<void> {
    if (this.events.has(event.id)) throw new AlreadyExists(`event ${event.id} exists`);
    this.events.set(event.id, { record: copy(event), jobCodes: new Map(), holds: new Map(), sales: new Map(), deleted: false, feedAt: null });
  }

  async getEvent(id: string): Promise<EventRecord | null> {
    const stored = this.events.get(id);
    return stored && !stored.deleted ? copy(stored.record) : null;
  }

  async listEvents(limit: number): Promise<EventRecord[]> {
    return [...this.events.values()]
      .filter((stored) => !stored.deleted)
      .map(({ record }) => record)
      .sort((a, b) => `${b.createdAt}#${b.id}`.localeCompare(`${a.createdAt}#${a.id}`))
      .slice(0, limit)
      .map(copy);
  }

  async updateEvent(id: string, changes: EventChanges, now: string): Promise<EventRecord> {
    const { record } = this.liveEvent(id);
    for (const [field, value] of Object.entries(changes)) {
      if (value !== undefined) Object.assign(record, { [field]: copy(value) });
    }
    record.updatedAt = now;
    return copy(record);
  }

  async setEventActive(id: string, active: boolean, now: string): Promise<EventRecord> {
    const stored = this.liveEvent(id);
    Object.assign(stored.record, { isActive: active, activeChangedAt: now, updatedAt: now });
    stored.feedAt = now;
    return copy(stored.record);
  }

  async appendPublishRefusal(id: string, refusal: PublishRefusal, keep: number): Promise<void> {
    const { record } = this.liveEvent(id);
    const all = [...(record.publishRefusals ?? []), copy(refusal)];
    record.publishRefusals = all.length > keep * 2 ? all.slice(-keep) : all;
  }

  async acquireStreamLease(id: string, { holder, now, expiresAt, role = 'primary' }: { holder: string; now: string; expiresAt: string; role?: EncoderRole }): Promise<EventRecord> {
    const { record } = this.liveEvent(id);
    const free = !record.leaseHolder || record.leaseHolder === holder || (record.leaseExpiresAt ?? '') <= now;
    if (!free) throw new LeaseHeld(`event ${id}`);
    Object.assign(record, { leaseHolder: holder, leaseExpiresAt: expiresAt, leaseRole: role, updatedAt: now });
    return copy(record);
  }

  async registerStandby(
    id: string,
    { holder, role, now, expiresAt, seen }: { holder: string; role: EncoderRole; now: string; expiresAt: string; seen: { holder: string; role: EncoderRole | null } },
  ): Promise<EventRecord> {
    const { record } = this.liveEvent(id);
    const leaseAsSeen = record.leaseHolder === seen.holder && (record.leaseExpiresAt ?? '') > now && (record.leaseRole ?? null) === seen.role;
    const slotFree = !record.standbyHolder || record.standbyHolder === holder || (record.standbyExpiresAt ?? '') <= now;
    if (!leaseAsSeen || !slotFree) throw new LeaseHeld(`event ${id}`);
    Object.assign(record, { standbyHolder: holder, standbyRole: role, standbyExpiresAt: expiresAt });
    return copy(record);
  }

  async handOverStreamLease(id: string, { holder, to, now, expiresAt }: { holder: string; to: { holder: string; role: EncoderRole }; now: string; expiresAt: string }): Promise<EventRecord> {
    const { record } = this.liveEvent(id);
    const ok = record.leaseHolder === holder && record.standbyHolder === to.holder && record.standbyRole === to.role && (record.standbyExpiresAt ?? '') > now;
    if (!ok) throw new LeaseHeld(`event ${id}`);
    Object.assign(record, { leaseHolder: to.holder, leaseRole: to.role, leaseExpiresAt: expiresAt, standbyHolder: null, standbyRole: null, standbyExpiresAt: null, updatedAt: now });
    return copy(record);
  }

  async releaseStreamLease(id: string, { holder, now, expiresAt }: { holder: string; now: string; expiresAt?: string }): Promise<EventRecord> {
    const { record } = this.liveEvent(id);
    if (record.leaseHolder === holder && (!expiresAt || record.leaseExpiresAt === expiresAt)) {
      Object.assign(record, { leaseHolder: null, leaseExpiresAt: null, lastLiveEndedAt: now, updatedAt: now });
    }
    return copy(record);
  }

  async listStreamLeases(): Promise<StreamLease[]> {
    return [...this.events.values()].flatMap(({ record, deleted }) =>
      !deleted && record.leaseHolder && record.leaseExpiresAt ? [{ eventId: record.id, holder: record.leaseHolder, expiresAt: record.leaseExpiresAt }] : [],
    );
  }

  async listGeoRules(): Promise<EventGeoRule[]> {
    return [...this.events.values()].flatMap(({ record, deleted }) => (!deleted && record.geo ? [{ eventId: record.id, geo: record.geo }] : []));
  }

  async listWatermarkedEvents(): Promise<string[]> {
    return [...this.events.values()].flatMap(({ record, deleted }) => (!deleted && record.watermarkSince ? [record.id] : []));
  }

  async deleteEvent(id: string, now: string): Promise<void> {
    const stored = this.liveEvent(id);
    Object.assign(stored, { deleted: true, feedAt: now });
    Object.assign(stored.record, { isActive: false, activeChangedAt: now });
  }

  async cancelEvent(id: string, cancel: { at: string; reason: string; closedSale: EventSale | null }): Promise<boolean> {
    const { record } = this.liveEvent(id);
    if (record.cancelledAt) return false;
    Object.assign(record, { cancelledAt: cancel.at, cancelReason: cancel.reason, updatedAt: cancel.at }, cancel.closedSale ? { sale: copy(cancel.closedSale) } : {});
    return true;
  }

  async extendEventDenyUntil(id: string, until: string): Promise<void> {
    const stored = this.events.get(id);
    if (!stored) throw new NotFound('event', id);
    if (!stored.record.denyUntil || stored.record.denyUntil < until) stored.record.denyUntil = until;
  }

  async takeTickets(id: string, quantity: number, capacity: number | null, checkoutId: string): Promise<boolean> {
    const { record, holds } = this.liveEvent(id);
    if (holds.has(checkoutId)) return holds.get(checkoutId) === 'taken';
    const taken = record.ticketsTaken ?? 0;
    if (!record.sale?.open || record.sale.capacity !== capacity || (capacity !== null && taken + quantity > capacity)) return false;
    record.ticketsTaken = taken + quantity;
    record.ticketsHeld = (record.ticketsHeld ?? 0) + quantity;
    holds.set(checkoutId, 'taken');
    return true;
  }

  async releaseTickets(id: string, quantity: number, checkoutId: string, kind: 'return' | 'untake'): Promise<void> {
    const stored = this.events.get(id);
    if (!stored || stored.deleted) return;
    const mark = stored.holds.get(checkoutId);
    if (kind === 'return' ? mark === 'returned' : mark !== 'taken') return;
    stored.record.ticketsTaken = (stored.record.ticketsTaken ?? 0) - quantity;
    stored.record.ticketsHeld = (stored.record.ticketsHeld ?? 0) - quantity;
    stored.holds.set(checkoutId, 'returned');
  }

  async forgetCheckout(id: string, checkoutId: string): Promise<void> {
    this.events.get(id)?.holds.delete(checkoutId);
  }

  async countSale(id: string, orderId: string, moves: readonly SaleMove[], to: SaleMark): Promise<void> {
    const stored = this.events.get(id);
    if (!stored || stored.deleted) return;
    const move = moves.find(({ from }) => from === (stored.sales.get(orderId) ?? 'none'));
    if (!move) return;
    const { record } = stored;
    for (const [figure, delta] of Object.entries(move.deltas) as [keyof typeof move.deltas, number][]) record[figure] = (record[figure] ?? 0) + delta;
    stored.sales.set(orderId, to);
  }

  async forgetSale(id: string, orderId: string, mark: SaleMark): Promise<void> {
    const stored = this.events.get(id);
    if (stored?.sales.get(orderId) === mark) stored.sales.delete(orderId);
  }

  async addToCodeCount(eventId: string, delta: number): Promise<void> {
    this.liveEvent(eventId).record.tokenCount += delta;
  }

  async countJobCodes({ eventId, jobId, done }: { eventId: string; jobId: string; done: number }): Promise<void> {
    const stored = this.events.get(eventId);
    if (!stored || stored.deleted) return;
    const counted = stored.jobCodes.get(jobId) ?? 0;
    if (done <= counted) return;
    stored.record.tokenCount += done - counted;
    stored.jobCodes.set(jobId, done);
  }

  /** Events (tombstones included) whose access state entered the feed at or after `since`, in order: the codes port's feed reads them. */
  accessChangesSince(since: string): EventAccessState[] {
    return changedSince(this.events.values(), since).map(({ record }) => ({
      id: record.id,
      isActive: record.isActive,
      activeChangedAt: record.activeChangedAt,
      endsAt: record.endsAt,
      accessWindowHours: record.accessWindowHours,
      denyUntil: record.denyUntil ?? null,
    }));
  }
}
