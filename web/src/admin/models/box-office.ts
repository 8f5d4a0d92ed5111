/**
 * The box office in the console's words, without the DOM: an event's sales as figures, what deleting,
 * cancelling and refunding would do (said before anyone confirms), and the cancelled show's line.
 * Each reads the fields the API added with the box office and leaves out what an older API does not send.
 */
import { formatDateTime } from '../../shared/time';
import type { Cancellation, EventDetail, OrderView, Sales } from '../api';
import { formatCount, formatMoney, plural } from '../labels';

export interface Figure {
  /** Its `data-key`, for tests and for focus across a redraw. */
  key: string;
  label: string;
  value: string;
}

/** The sale at a glance: on sale or not, price, sold, held, left, revenue, refunded, orders. */
export function salesFigures(sales: Sales): Figure[] {
  const money = (minor: number) => (sales.currency ? formatMoney(minor, sales.currency) : formatCount(minor));
  return [
    { key: 'on-sale', label: 'On sale', value: sales.onSale ? 'Yes' : 'No' },
    { key: 'price', label: 'Price', value: sales.priceMinor === null ? '—' : money(sales.priceMinor) },
    { key: 'sold', label: 'Sold', value: formatCount(sales.ticketsSold) },
    { key: 'held', label: 'In checkout', value: formatCount(sales.ticketsHeld) },
    { key: 'left', label: 'Left', value: sales.ticketsLeft === null ? 'No limit' : formatCount(sales.ticketsLeft) },
    { key: 'revenue', label: 'Revenue', value: money(sales.revenueMinor) },
    { key: 'refunded', label: 'Refunded', value: money(sales.refundedMinor) },
    { key: 'orders', label: 'Paid orders', value: formatCount(sales.orders) },
  ];
}

/**
 * The delete dialog's message: what the event holds (codes, live sessions, paid orders) before anyone
 * confirms. Paid orders are said first, with the way out: the API refuses the delete (409) until the show is cancelled.
 */
export function deleteMessage(event: { stats: EventDetail['stats']; _count?: { tokens?: number }; liveSessions?: number; sales?: Sales }): string {
  const codes = event._count?.tokens ?? event.stats.tokens;
  const held = [plural(codes, 'access code')];
  if (event.liveSessions !== undefined) held.push(plural(event.liveSessions, 'live session'));
  if (event.sales) held.push(plural(event.sales.orders, 'paid order'));
  const holds = `This event has ${listed(held)}.`;
  const orders = event.sales?.orders ?? 0;
  const paid = orders > 0 ? ` Its buyers are not told and not refunded: use “Cancel show” first, which refunds and emails them.` : '';
  return `${holds}${paid} The event and all its access codes are deleted. Viewers lose access at once. This cannot be undone.`;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The refund's confirmation names the amount and the buyer. */
export function refundPrompt(order: Pick<OrderView, 'orderId' | 'email' | 'quantity' | 'amount'>): { title: string; message: string; confirmLabel: string } {
  const amount = order.amount ? formatMoney(order.amount.minor, order.amount.currency ?? 'eur') : null;
  return {
    title: `Refund order ${order.orderId}?`,
    message: `${amount ?? 'The amount paid'} goes back to ${order.email} through Stripe. Its ${plural(order.quantity, 'ticket')} stop working at once, the seats go back on sale, and the buyer gets a refund email. This cannot be undone.`,
    confirmLabel: amount ? `Refund ${amount}` : 'Refund',
  };
}

/** The most a cancellation's reason may hold (the API's limit). */
export const CANCEL_REASON_CHARS = 500;

/** The reason as sent (trimmed), or what is wrong with it. */
export function checkCancelReason(value: string): { reason: string; error?: undefined } | { error: string } {
  const reason = value.trim();
  if (!reason) return { error: 'Say why the show is cancelled: every buyer reads it in their email.' };
  if (reason.length > CANCEL_REASON_CHARS) return { error: `Keep the reason to ${formatCount(CANCEL_REASON_CHARS)} characters.` };
  return { reason };
}

/** What "Cancel show" will do, said in its dialog. */
export function cancelMessage(event: { sales?: Sales }): string {
  const orders = event.sales ? ` Its ${plural(event.sales.orders, 'paid order')} are refunded (Stripe) or left to their shop to refund, and every buyer gets an email with your reason.` : ' Every buyer gets an email with your reason.';
  return `The sale stops at once and every access code stops working.${orders} This cannot be undone.`;
}

/** The cancelled show's line on its page. */
export function cancelledLine(cancelled: Cancellation): string {
  return `Cancelled ${formatDateTime(cancelled.at)}: ${cancelled.reason}`;
}
