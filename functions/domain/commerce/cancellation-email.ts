import { groupedCode } from '../codes';
import type { EventRecord } from '../records';
import { readableInTimeZone } from '../time-zone';
import type { OrderRecord } from './order-store';
import type { MailMessage } from './ticket-email';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** "€25.00": an amount in the currency's minor unit, as the buyer reads it. */
export function moneyText(minor: number, currency: string): string {
  const format = new Intl.NumberFormat('en', { style: 'currency', currency });
  return format.format(minor / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

/** What happens to the buyer's money: a Stripe order was refunded to their card; a shop's order is the shop's to refund. */
function moneyParagraph(order: OrderRecord, contactEmail: string | null): string {
  if (order.source === 'stripe') {
    const paid = order.amountMinor !== null && order.currency ? `Your payment of ${moneyText(order.amountMinor, order.currency)}` : 'Your payment';
    return `${paid} was refunded to your card. Banks take 5 to 10 days to show it on your statement.`;
  }
  const contact = contactEmail ? `contact the organiser at ${contactEmail}` : 'contact the organiser';
  return `You bought your tickets through the organiser's shop: the shop refunds your payment. If you do not hear from it, ${contact}.`;
}

/**
 * The buyer's notice of a cancelled show (email kind `cancelled`): what happened, the organiser's reason, what
 * happens to their money (Stripe: refunded to their card, with the amount; a shop's order: the shop refunds it),
 * and that the tickets no longer play. `event` null when it was deleted since.
 */
export function cancellationEmail(order: OrderRecord, event: EventRecord | null, context: { timeZone: string }): MailMessage {
  const title = event?.title ?? 'your event';
  const when = event ? `, on ${readableInTimeZone(event.startsAt, context.timeZone)},` : '';
  const codes = order.codes.map(groupedCode);
  const paragraphs = [
    `We are sorry: ${title}${when} was cancelled and will not be streamed.`,
    event?.cancelReason ? `The organiser's reason: ${event.cancelReason}` : '',
    moneyParagraph(order, event?.contactEmail ?? null),
    codes.length > 0 ? `Your ${codes.length === 1 ? 'ticket' : 'tickets'} (${codes.join(', ')}) no longer ${codes.length === 1 ? 'plays' : 'play'}.` : '',
    `Order ${order.orderId}`,
  ].filter(Boolean);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cancelled</title></head>
<body style="margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;color:#111;background:#fff">
<h1 style="font-size:22px;margin:0 0 16px">${escapeHtml(title)} was cancelled</h1>
${paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
</body></html>`;
  return { to: order.email, subject: `Cancelled: ${title}`, text: paragraphs.join('\n\n'), html, attachments: [] };
}
