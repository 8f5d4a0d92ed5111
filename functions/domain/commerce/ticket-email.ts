import { calendarFile } from './calendar-file';
import type { OrderRecord } from './order-store';
import { qrPng } from './qr-png';
import type { EventRecord } from '../records';
import { readableInTimeZone } from '../time-zone';
import { groupedCode, ticketWatchLink } from '../codes';

/** An email as the mail transport sends it (functions/adapters/mail-transport.ts); `cid` attachments are inline images. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: Buffer | string; contentType: string; cid?: string }[];
}

export interface EmailContext {
  /** The viewer page (`SITE_ORIGIN`): watch links are `<site>/?event=<id>&code=<code>`. */
  siteUrl: string;
  /** The zone the start time is written in, with its offset (`MAIL_TIME_ZONE`, UTC by default). */
  timeZone: string;
  now: Date;
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** `€25.00`: an amount in its currency's minor unit, as an English reader expects it. */
export function formatAmount(minor: number, currency: string): string {
  const format = new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() });
  return format.format(minor / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

/** The receipt line: the amount paid when the shop told it, and the order's number (`Paid €25.00, order o-7`). */
export function receiptLine(order: Pick<OrderRecord, 'amountMinor' | 'currency' | 'orderId'>): string {
  const paid = order.amountMinor !== null && order.currency ? `Paid ${formatAmount(order.amountMinor, order.currency)}, order` : 'Order';
  return `${paid} ${order.orderId}`;
}

/** The buyer's tickets: each code with its watch link and the link's QR code (inline), the event in an `.ics`, and a plain-text part. */
export function ticketEmail(order: OrderRecord, event: EventRecord, context: EmailContext): MailMessage {
  const startsAt = readableInTimeZone(event.startsAt, context.timeZone);
  const endsAt = readableInTimeZone(event.endsAt, context.timeZone);
  const receipt = receiptLine(order);
  const contact = event.contactEmail ?? null;
  const tickets = order.codes.map((code, i) => ({ code, grouped: groupedCode(code), link: ticketWatchLink(context.siteUrl, order.eventId, code), cid: `ticket-${i + 1}@stagedoor` }));
  const plural = tickets.length === 1 ? 'ticket' : `${tickets.length} tickets`;
  const text = [
    `Your ${plural} for ${event.title}`,
    `Starts: ${startsAt}`,
    `Ends: ${endsAt}`,
    '',
    ...tickets.flatMap((ticket, i) => [`Ticket ${i + 1}: ${ticket.grouped}`, `Watch: ${ticket.link}`, '']),
    'Each code plays on one device at a time. Open the link on the device you will watch on, or type the code on the viewer page.',
    receipt,
    ...(contact ? [`Questions about the show? Write to the organiser: ${contact}`] : []),
  ].join('\n');
  const ticketRows = tickets
    .map(
      (ticket, i) => `<tr><td style="padding:16px 0;border-top:1px solid #ddd">
<p style="margin:0 0 4px;font-size:14px;color:#555">Ticket ${i + 1}</p>
<p style="margin:0 0 8px;font-size:22px;font-family:monospace;letter-spacing:1px">${escapeHtml(ticket.grouped)}</p>
<p style="margin:0 0 12px"><a href="${escapeHtml(ticket.link)}" style="display:inline-block;background:#1a56db;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">Watch now</a></p>
<img src="cid:${ticket.cid}" width="180" height="180" alt="QR code of the watch link for ticket ${i + 1}" style="display:block">
<p style="margin:8px 0 0;font-size:12px;color:#555;word-break:break-all">${escapeHtml(ticket.link)}</p>
</td></tr>`,
    )
    .join('\n');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(event.title)}</title></head>
<body style="margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;color:#111;background:#fff">
<table role="presentation" style="max-width:560px;width:100%;border-collapse:collapse">
<tr><td><h1 style="font-size:22px;margin:0 0 8px">Your ${escapeHtml(plural)} for ${escapeHtml(event.title)}</h1>
<p style="margin:0 0 4px">Starts <strong>${escapeHtml(startsAt)}</strong></p>
<p style="margin:0 0 16px">Ends <strong>${escapeHtml(endsAt)}</strong></p></td></tr>
${ticketRows}
<tr><td style="padding-top:16px;border-top:1px solid #ddd;font-size:13px;color:#555">
<p>Each code plays on one device at a time. Open the link on the device you will watch on, or type the code on the viewer page.</p>
<p>The attached calendar file adds the show to your calendar.</p>
<p style="color:#111">${escapeHtml(receipt)}</p>
${contact ? `<p>Questions about the show? Write to the organiser: <a href="mailto:${escapeHtml(contact)}">${escapeHtml(contact)}</a></p>` : ''}</td></tr>
</table></body></html>`;
  return {
    to: order.email,
    subject: `Your ${plural} for ${event.title}`,
    text,
    html,
    attachments: [
      ...tickets.map((ticket, i) => ({ filename: `ticket-${i + 1}.png`, content: qrPng(ticket.link), contentType: 'image/png', cid: ticket.cid })),
      {
        filename: 'event.ics',
        contentType: 'text/calendar; charset=utf-8; method=PUBLISH',
        content: calendarFile({
          uid: `${event.id}@stagedoor`,
          title: event.title,
          description: `${event.description ? `${event.description}\n\n` : ''}Watch: ${tickets[0]?.link ?? context.siteUrl}`,
          startsAt: event.startsAt,
          endsAt: event.endsAt,
          url: tickets[0]?.link ?? context.siteUrl,
          stampedAt: context.now,
          organizerEmail: contact,
        }),
      },
    ],
  };
}

/** The buyer's refund notice: the tickets no longer play. `event` null when it was deleted since. */
export function refundEmail(order: OrderRecord, event: EventRecord | null): MailMessage {
  const title = event?.title ?? 'your event';
  const codes = order.codes.map(groupedCode);
  const text = [
    `Your order ${order.orderId} for ${title} was refunded.`,
    codes.length > 0 ? `These tickets no longer play: ${codes.join(', ')}.` : '',
    'If you did not ask for this, reply to this email.',
  ]
    .filter(Boolean)
    .join('\n\n');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Refund</title></head>
<body style="margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;color:#111;background:#fff">
${text
  .split('\n\n')
  .map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`)
  .join('\n')}
</body></html>`;
  return { to: order.email, subject: `Refund of your order for ${title}`, text, html, attachments: [] };
}
