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

/** The show's cancellation as the sale link and the console show it; null: not cancelled. */
export function cancellationView(event: EventRecord) {
  return event.cancelledAt ? { reason: event.cancelReason ?? '', at: event.cancelledAt } : null;
}
