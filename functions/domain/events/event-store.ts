import type { EncoderRole, EventRecord, EventSale, GeoRule, PublishRefusal, SalesDeltas } from '../records';

/** A publish lease as the table holds it: fresh while an ingest renews it, run out when that ingest died. */
export interface StreamLease {
  eventId: string;
  holder: string;
  expiresAt: string;
}

export type EventChanges = Partial<
  Pick<EventRecord, 'title' | 'description' | 'streamUrl' | 'posterUrl' | 'startsAt' | 'endsAt' | 'accessWindowHours' | 'isArchived' | 'ingestKey' | 'srtKey' | 'srtPassphrase' | 'retiredIngestKeyHashes' | 'ingestVideo' | 'sale' | 'contactEmail' | 'geo' | 'backupIngestKey' | 'backupSrtKey' | 'primaryEncoder' | 'backupEncoder' | 'onAirRequest'> &
    Pick<EventRecord, 'devicesPerCode' | 'watermark' | 'watermarkSince'>
>;

/** An event's country rule as the edge needs it. */
export interface EventGeoRule {
  eventId: string;
  geo: NonNullable<GeoRule>;
}

/** Which of an order's changes the event's sales figures hold (the order's mark on the event, until the order agrees). */
export type SaleMark = 'paid' | 'refunded';
/** One way a count step may find the event: the order's mark now (`none`: no mark) and what it then adds. */
export interface SaleMove {
  from: SaleMark | 'none';
  deltas: SalesDeltas;
}

/**
 * The events port: the event item, its publish lease and its code count. What an event
 * change means for its codes (the `eventActive` copies, deleting them) is the codes port's
 * part; the domain does both (event-admin.ts). Adapters raise the errors of `errors.ts`
 * (NotFound, AlreadyExists, LeaseHeld) and nothing from their SDK.
 */
export interface EventStore {
  /** AlreadyExists when the id is taken. */
  createEvent(event: EventRecord): Promise<void>;
  /**
   * `consistent: false` reads eventually consistent (half the read units): the viewer paths read one
   * event item for every validation and refresh, thousands a second on one key at a large show.
   */
  getEvent(id: string, options?: { consistent?: boolean }): Promise<EventRecord | null>;
  /** Newest first, at most `limit`. */
  listEvents(limit: number): Promise<EventRecord[]>;
  /** Throws NotFound. */
  updateEvent(id: string, changes: EventChanges, now: string): Promise<EventRecord>;
  /** Sets `isActive` (the change enters the access feed). Throws NotFound. */
  setEventActive(id: string, active: boolean, now: string): Promise<EventRecord>;
  /** Appends atomically; keeps at least the last `keep` (older ones are trimmed now and then). Throws NotFound. */
  appendPublishRefusal(id: string, refusal: PublishRefusal, keep: number): Promise<void>;
  /**
   * Takes or renews the event's publish lease for `holder` until `expiresAt`:
   * when there is none, it is `holder`'s, or it expired before `now`. One
   * conditional write. LeaseHeld when another holder's lease is fresh; NotFound.
   */
  acquireStreamLease(id: string, args: { holder: string; now: string; expiresAt: string; role?: EncoderRole }): Promise<EventRecord>;
  /**
   * Registers `holder` as the standby of the lease `seen` (its holder and role as read): only while that
   * lease is fresh and unchanged in holder and role, and no other fresh standby is registered. One
   * conditional write; LeaseHeld otherwise; NotFound.
   */
  registerStandby(id: string, args: { holder: string; role: EncoderRole; now: string; expiresAt: string; seen: { holder: string; role: EncoderRole | null } }): Promise<EventRecord>;
  /**
   * Hands `holder`'s lease to the fresh standby `to` (its encoder goes on air there) without the lease
   * ever being free: the event stays `live`. One conditional write; LeaseHeld when the lease is not
   * `holder`'s or `to` is no longer a fresh standby; NotFound.
   */
  handOverStreamLease(id: string, args: { holder: string; to: { holder: string; role: EncoderRole }; now: string; expiresAt: string }): Promise<EventRecord>;
  /**
   * Ends the lease if it is still `holder`'s (and, with `expiresAt`, still that
   * very lease: a finalizer must not end one that was renewed meanwhile); records
   * the end of the show. Otherwise a no-op returning the event. Throws NotFound.
   */
  releaseStreamLease(id: string, args: { holder: string; now: string; expiresAt?: string }): Promise<EventRecord>;
  /**
   * Every publish lease held, fresh or run out (its ingest died), a released one not: one query of
   * the events listing, never of codes (events are few), for the recording sweep.
   */
  listStreamLeases(): Promise<StreamLease[]>;
  /**
   * Every live event's country rule (events without one left out): one query of the events listing, for
   * edge-sync's reconciliation, which writes one `g:` entry per event. A deleted event has none.
   */
  listGeoRules(): Promise<EventGeoRule[]>;
  /**
   * The ids of every live event that was ever watermarked (`watermarkSince` set): one query of the events
   * listing, for edge-sync's reconciliation, which writes one `w:` entry (the mark key) per event. A deleted event has none.
   */
  listWatermarkedEvents(): Promise<string[]>;
  /**
   * Replaces the event with a deactivated tombstone: from then on it is gone for every read but
   * the access feed, which must tell the edge. Its codes are the codes port's. Throws NotFound.
   */
  deleteEvent(id: string, now: string): Promise<void>;
  /**
   * Cancels the show in one conditional write: `cancelledAt` and `cancelReason` set, and its sale (the caller's
   * read, null: none) written back closed. False when it was cancelled already; throws NotFound.
   */
  cancelEvent(id: string, cancel: { at: string; reason: string; closedSale: EventSale | null }): Promise<boolean>;
  /** Raises the event's `denyUntil` to `until` unless it is that late already (never lowers it). Throws NotFound. */
  extendEventDenyUntil(id: string, until: string): Promise<void>;
  /**
   * Takes `quantity` tickets of the event's sale for checkout `checkoutId` in one conditional write (they
   * count in `ticketsTaken` and `ticketsHeld`):
   * only while the sale is open, with this `capacity` (the caller's read; null: no limit) and room for
   * them, so parallel buyers never take more than the capacity. The write leaves the checkout's mark
   * on the event, so the same take sent again (a retry, a repair) takes nothing more: true when this
   * checkout holds them (now or already). False when refused (closed, sold out, the sale changed since
   * the read, or the checkout gave them back already). Throws NotFound.
   */
  takeTickets(id: string, quantity: number, capacity: number | null, checkoutId: string): Promise<boolean>;
  /**
   * Gives checkout `checkoutId`'s `quantity` tickets back to the sale (`ticketsTaken` and `ticketsHeld`), once however often it is sent:
   * `return` for a checkout whose record counts them (it took them), `untake` for one whose take may
   * never have happened (given back only if its mark says taken). A deleted event is left alone.
   */
  releaseTickets(id: string, quantity: number, checkoutId: string, kind: 'return' | 'untake'): Promise<void>;
  /** Drops checkout `checkoutId`'s mark from the event, once its record agrees with the count (it is only needed until then). */
  forgetCheckout(id: string, checkoutId: string): Promise<void>;
  /**
   * Adds to the event's sales figures the `deltas` of the first move whose `from` is order `orderId`'s mark on
   * the event now, and sets the mark to `to`, in one conditional write: the same step sent again (a retry, a
   * repair) finds the mark and adds nothing. No move matching: nothing. A deleted event is left alone.
   */
  countSale(id: string, orderId: string, moves: readonly SaleMove[], to: SaleMark): Promise<void>;
  /** Drops order `orderId`'s mark from the event if it is still `mark`, once the order's record agrees with the count. */
  forgetSale(id: string, orderId: string, mark: SaleMark): Promise<void>;
  /** Adds to the event's code count (`tokenCount`). Throws NotFound. */
  addToCodeCount(eventId: string, delta: number): Promise<void>;
  /**
   * Raises the event's code count so that it holds the first `done` codes of background job `jobId`,
   * none of them twice, whatever order and repetition the calls come in: the event item keeps how many
   * of the job's codes it counted, and the two change in one conditional write (without transactions,
   * nothing else survives a worker that dies between "counted" and "noted"). A deleted event is left alone.
   */
  countJobCodes(args: { eventId: string; jobId: string; done: number }): Promise<void>;
}
