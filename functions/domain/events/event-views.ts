import { eventStatus } from '../event-status';
import type { EventRecord } from '../records';
import { cancellationView, saleView } from './sale';

/** The admin view of an event (spec "Event (admin view)"). */
export function adminEventView(event: EventRecord) {
  return {
    id: event.id,
    title: event.title,
    description: event.description,
    streamUrl: event.streamUrl,
    posterUrl: event.posterUrl,
    startsAt: event.startsAt,
    endsAt: event.endsAt,
    accessWindowHours: event.accessWindowHours,
    isActive: event.isActive,
    isArchived: event.isArchived,
    createdAt: event.createdAt,
    updatedAt: event.updatedAt,
    _count: { tokens: event.tokenCount },
    sale: event.sale ?? null,
    /** Tickets taken from the sale: held by open checkouts and sold. */
    ticketsTaken: event.ticketsTaken ?? 0,
    contactEmail: event.contactEmail ?? null,
    /** The show's cancellation (`POST /api/admin/events/:id/cancel`): `{ reason, at }`, or null. */
    cancelled: cancellationView(event),
    /** Where it may be watched: `{ allow }`, `{ deny }` or null (anywhere). */
    geo: event.geo ?? null,
    devicesPerCode: devicesPerCodeOf(event),
    /** Forensic A/B watermarking of the next publishes, and when it was first turned on (null: never). */
    watermark: event.watermark ?? false,
    watermarkSince: event.watermarkSince ?? null,
  };
}

/** How many devices may watch on one of the event's codes at once (an event from before the field: 1). */
export function devicesPerCodeOf(event: Pick<EventRecord, 'devicesPerCode'>): number {
  return event.devicesPerCode ?? 1;
}

/** An event in the admin list: the admin view and whether it is on air (`status`, as the public status answers). */
export function adminEventListView(event: EventRecord, now: Date) {
  return { ...adminEventView(event), status: eventStatus(event, now) };
}

/** `GET /api/events/:id/status`: what a waiting viewer page polls. */
export function eventStatusView(event: EventRecord, now: Date) {
  return { eventId: event.id, status: eventStatus(event, now), startsAt: event.startsAt, endsAt: event.endsAt };
}

/** `GET /api/events/:id/sale`: what a buyer's page shows before any code exists. */
export function eventSaleView(event: EventRecord, now: Date) {
  return { eventId: event.id, title: event.title, sale: saleView(event, now), contactEmail: event.contactEmail ?? null, cancelled: cancellationView(event) };
}

/** What a viewer learns about the event on validation (spec: `posterUrl` is a string, '' when there is none). */
export function viewerEventView(event: EventRecord, now: Date) {
  return {
    title: event.title,
    description: event.description,
    startsAt: event.startsAt,
    endsAt: event.endsAt,
    posterUrl: event.posterUrl ?? '',
    isLive: eventStatus(event, now) === 'live',
    contactEmail: event.contactEmail ?? null,
  };
}
