/**
 * The box office's words and figures, as the buyer reads them. Pure functions: unit-tested in
 * `test/unit/web-viewer-sale.test.ts`.
 */
import { currencyDigits } from '../shared/currency';
import { groupedCode } from '../../../functions/domain/codes/watch-link';

/** A price in the currency's minor unit (Stripe's `unit_amount`) as the buyer's locale writes it: `€15.00`, `¥1,500`. */
export function formatPrice(minor: number, currency: string, locale?: string): string {
  return new Intl.NumberFormat(locale, { style: 'currency', currency: currency.toUpperCase() }).format(minor / 10 ** (currencyDigits(currency) ?? 2));
}

/** What the buyer reads for a refused `POST /api/checkout`, from its status and the API's `error` (status 0: no answer). */
export function checkoutErrorMessage(status: number, error: string): string {
  switch (status) {
    case 0:
      return "We couldn't reach Stagedoor. Check your connection and try again.";
    case 400:
      return error.startsWith('email') ? 'Enter the email address your ticket should go to.' : `Choose how many tickets: ${error.replace(/^quantity: /, '')}.`;
    case 404:
      return 'This event no longer exists.';
    case 409:
      return error === 'sold out' ? 'Sold out: every ticket has been taken. Tickets held by unfinished checkouts may come back within half an hour.' : 'Tickets for this event are not on sale right now.';
    case 429:
      return 'Too many checkouts from this connection. Wait a few minutes, then try again.';
    default:
      return 'Payments are unavailable right now. Nothing was charged: try again in a moment.';
  }
}

export type CheckoutState = 'pending' | 'paid' | 'expired' | 'refunded' | 'failed';

/** The return page's line under "Your ticket is on its way", by the checkout's state. */
export function orderStatusMessage(status: CheckoutState, quantity: number): string {
  const tickets = quantity === 1 ? 'ticket' : 'tickets';
  switch (status) {
    case 'pending':
      return 'Waiting for the payment to be confirmed…';
    case 'paid':
      return `Paid. Your ${tickets} ${quantity === 1 ? 'is' : 'are'} ready: watch on this device now, or with the code from the email on any device.`;
    case 'expired':
      return 'This checkout expired before it was paid. Nothing was charged.';
    case 'refunded':
      return `This order was refunded: its ${tickets} no longer work.`;
    case 'failed':
      return 'Something went wrong with this order. Contact the organiser: your payment is recorded.';
  }
}

/** What the page says of the order's ticket it plays: `Ticket 2 of 3 (ABCD-EFGH-JKLM)`. */
export function ticketName(codes: readonly string[], code: string): string {
  const index = codes.indexOf(code);
  return codes.length > 1 && index >= 0 ? `Ticket ${index + 1} of ${codes.length} (${groupedCode(code)})` : `Ticket ${groupedCode(code)}`;
}

/** "Lost your tickets?" answered: the same words whether or not that address bought (the API does not say). */
export const RESENT_MESSAGE = 'If that address bought tickets, they are on their way. Check your inbox (and spam) in a few minutes.';

/** What the buyer reads when the resend was refused (status 0: no answer). */
export function resendErrorMessage(status: number): string {
  if (status === 0) return "We couldn't reach Stagedoor. Check your connection and try again.";
  if (status === 429) return 'Too many tries. Wait a few minutes, then try again.';
  if (status === 400) return 'Enter the email address you bought the tickets with.';
  return 'Something went wrong on our side. Try again in a moment.';
}
