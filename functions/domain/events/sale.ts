import { accessEndsAt } from '../event-status';
import type { EventRecord, EventSale } from '../records';

/** Whether the event sells now: its sale open, the event active, not cancelled, and its access not over. */
export function onSale(event: EventRecord, now: Date): event is EventRecord & { sale: EventSale } {
  return Boolean(event.sale?.open && event.isActive && !event.cancelledAt && now.toISOString() < accessEndsAt(event));
}

/** What the viewer page shows of a sale (`GET /api/events/:id/sale`): null when the event is not sold here. */
export function saleView(event: EventRecord, now: Date) {
  if (!event.sale) return null;
  const { priceMinor, currency, capacity, maxPerOrder } = event.sale;
  return { open: onSale(event, now), priceMinor, currency, maxPerOrder, soldOut: capacity !== null && (event.ticketsTaken ?? 0) >= capacity };
}

/**
 * The organiser's sales figures (`sales` of the admin event view and the dashboard), from the event's counters,
 * never from its orders: `orders` and `ticketsSold` of orders paid and not refunded, `revenueMinor` net of refunds,
 * `ticketsLeft` what the capacity has left beside the tickets held and sold through checkouts (null: no limit).
 */
export function salesView(event: EventRecord, now: Date) {
  const sale = event.sale ?? null;
  const capacity = sale?.capacity ?? null;
  return {
    onSale: onSale(event, now),
    priceMinor: sale?.priceMinor ?? null,
    currency: sale?.currency ?? null,
    capacity,
    ticketsSold: event.ticketsSold ?? 0,
    // Holds taken before the count existed give theirs back all the same: never shown below none.
    ticketsHeld: Math.max(0, event.ticketsHeld ?? 0),
    ticketsLeft: capacity === null ? null : Math.max(0, capacity - (event.ticketsTaken ?? 0)),
    revenueMinor: event.revenueMinor ?? 0,
    refundedMinor: event.refundedMinor ?? 0,
    orders: event.paidOrders ?? 0,
  };
}
export type SalesView = ReturnType<typeof salesView>;

/** The page that sells the event and plays it (`viewerUrl` of the admin view): the viewer page's origin and the event. */
export function saleLink(viewerOrigin: string, eventId: string): string {
  return `${viewerOrigin}/?event=${encodeURIComponent(eventId)}`;
}

/** The show's cancellation as the sale link and the console show it; null: not cancelled. */
export function cancellationView(event: EventRecord) {
  return event.cancelledAt ? { reason: event.cancelReason ?? '', at: event.cancelledAt } : null;
}
