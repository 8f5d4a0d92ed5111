import { inflateSync } from 'node:zlib';
import jsQR from 'jsqr';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { readMailerConfig } from '../../functions/config/mailer-config';
import { calendarFile } from '../../functions/domain/commerce';
import { orderWebhookBody } from '../../functions/domain/commerce';
import { orderPaid } from '../../functions/domain/commerce';
import type { OrderRecord } from '../../functions/domain/commerce';
import { qrPng } from '../../functions/domain/commerce';
import { formatAmount, ticketEmail, type MailMessage } from '../../functions/domain/commerce';
import { createMailerHandler } from '../../functions/triggers/mailer';
import { mailTransport, NO_SENDER } from '../../functions/adapters/mail-transport';
import { actor, domainFixture } from '../support/domain-fixture';

/** The PNG's pixels as RGBA (8-bit grayscale, filter 0 on every row: what qrPng writes). */
function decodeGrayPng(png: Buffer): { width: number; height: number; rgba: Uint8ClampedArray } {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  expect(png.subarray(24, 26)).toEqual(Buffer.from([8, 0]));
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('ascii', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const value = raw[y * (width + 1) + 1 + x]!;
      rgba.set([value, value, value, 255], (y * width + x) * 4);
    }
  }
  return { width, height, rgba };
}

describe('ticket email', () => {
  it("draws each watch link's QR code as a PNG a phone camera reads", () => {
    const link = 'https://tickets.example.com/?code=ABCDEFGHJKLM';
    const { width, height, rgba } = decodeGrayPng(qrPng(link));
    expect(jsQR(rgba, width, height)?.data).toBe(link);
  });

  it('writes an iCalendar file with CRLF lines folded at 75 octets and text escaped', () => {
    const ics = calendarFile({
      uid: 'e1@stagedoor',
      title: 'Gala; night, with "friends"',
      description: 'Line one\nLine two — ünïcode '.repeat(5),
      startsAt: '2026-12-19T19:30:00.000Z',
      endsAt: '2026-12-19T22:00:00.000Z',
      url: 'https://tickets.example.com/?code=ABCDEFGHJKLM',
      stampedAt: new Date('2026-11-24T18:00:00.000Z'),
    });
    const lines = ics.split('\r\n');
    expect(lines[0]).toBe('BEGIN:VCALENDAR');
    expect(lines).toContain('DTSTART:20261219T193000Z');
    expect(lines).toContain('SUMMARY:Gala\\; night\\, with "friends"');
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    const unfolded = ics.replace(/\r\n /g, '');
    expect(unfolded).toContain('DESCRIPTION:Line one\\nLine two — ünïcode Line one');
  });

  it('has the title, the start with its offset, each code with its link and inline QR, the .ics and a text part', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: { title: 'Winter <Gala>', startsAt: '2026-07-01T18:00:00.000Z' } });
    const { order } = await orderPaid(fixture.deps, actor('shop'), orderWebhookBody.parse({ type: 'order.paid', orderId: 'o-7', eventId: event.id, email: 'ada@example.com', quantity: 2 }));
    const mail = ticketEmail(order, event, { siteUrl: 'https://tickets.example.com', timeZone: 'America/New_York', now: fixture.now() });
    expect(mail.subject).toBe('Your 2 tickets for Winter <Gala>');
    expect(mail.text).toContain('Starts: 2026-07-01 14:00 (UTC-04:00, America/New_York)');
    expect(mail.html).toContain('Winter &lt;Gala&gt;');
    for (const [i, code] of order.codes.entries()) {
      expect(mail.text).toContain(`https://tickets.example.com/?event=${event.id}&code=${code}`);
      expect(mail.html).toContain(`src="cid:ticket-${i + 1}@stagedoor"`);
    }
    expect(mail.attachments.map((attachment) => [attachment.filename, attachment.contentType, attachment.cid ?? null])).toEqual([
      ['ticket-1.png', 'image/png', 'ticket-1@stagedoor'],
      ['ticket-2.png', 'image/png', 'ticket-2@stagedoor'],
      ['event.ics', 'text/calendar; charset=utf-8; method=PUBLISH', null],
    ]);
  });

  it('gives the end, a receipt line (amount paid and order number) and the organiser to write to', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({
      event: { title: 'Gala', startsAt: '2026-07-01T18:00:00.000Z', endsAt: '2026-07-01T20:30:00.000Z', contactEmail: 'boxoffice@theatre.example' },
    });
    const body = { type: 'order.paid', orderId: 'o-8', eventId: event.id, email: 'ada@example.com', quantity: 1, amountMinor: 2500, currency: 'EUR' };
    const { order } = await orderPaid(fixture.deps, actor('shop'), orderWebhookBody.parse(body));
    const mail = ticketEmail(order, event, { siteUrl: 'https://tickets.example.com', timeZone: 'Europe/Berlin', now: fixture.now() });
    expect(mail.text).toContain('Ends: 2026-07-01 22:30 (UTC+02:00, Europe/Berlin)');
    expect(mail.text).toContain('Paid €25.00, order o-8');
    expect(mail.text).toContain('Write to the organiser: boxoffice@theatre.example');
    expect(mail.html).toContain('Ends <strong>2026-07-01 22:30 (UTC+02:00, Europe/Berlin)</strong>');
    expect(mail.html).toContain('Paid €25.00, order o-8');
    expect(mail.html).toContain('<a href="mailto:boxoffice@theatre.example">boxoffice@theatre.example</a>');
    const ics = String(mail.attachments.find((attachment) => attachment.filename === 'event.ics')!.content).replace(/\r\n /g, '');
    expect(ics).toContain('ORGANIZER:mailto:boxoffice@theatre.example');

    // A shop that did not tell the amount, an event without a contact: the order number alone, no organiser line.
    const { order: untold } = await orderPaid(fixture.deps, actor('shop'), orderWebhookBody.parse({ ...body, orderId: 'o-9', amountMinor: undefined, currency: undefined }));
    const plain = ticketEmail(untold, { ...event, contactEmail: null }, { siteUrl: 'https://tickets.example.com', timeZone: 'UTC', now: fixture.now() });
    expect(plain.text).toContain('\nOrder o-9');
    expect(plain.text).not.toContain('organiser');
    expect(formatAmount(1050, 'jpy')).toBe('¥1,050');
  });
});

describe('mailer configuration', () => {
  const base = { TABLE_NAME: 't', SITE_ORIGIN: 'https://tickets.example.com/', MAIL_FROM: 'Tickets <t@example.com>' };
  it('sends through SES unless SMTP_URL is set, in UTC unless MAIL_TIME_ZONE is', () => {
    expect(readMailerConfig(base)).toEqual({ tableName: 't', siteUrl: 'https://tickets.example.com', from: 'Tickets <t@example.com>', timeZone: 'UTC', transport: { kind: 'ses' } });
    expect(readMailerConfig({ ...base, SMTP_URL: 'smtp://u:p@mail.example.com:587', MAIL_TIME_ZONE: 'Europe/Paris' })).toMatchObject({
      timeZone: 'Europe/Paris',
      transport: { kind: 'smtp', url: 'smtp://u:p@mail.example.com:587' },
    });
  });
  it('names each variable missing or malformed; without a sender it sends nothing', () => {
    expect(readMailerConfig({ ...base, MAIL_FROM: '' }).from).toBeNull();
    expect(() => readMailerConfig({ ...base, SITE_ORIGIN: '', SMTP_URL: 'http://x', MAIL_TIME_ZONE: 'Mars/Base' })).toThrow(
      'configuration: SITE_ORIGIN is required; MAIL_TIME_ZONE must be an IANA time zone such as Europe/Berlin, got "Mars/Base"; SMTP_URL must be an smtp:// or smtps:// URL',
    );
  });
});

describe('mailer', () => {
  const record = (order: OrderRecord): DynamoDBRecord => ({
    eventName: 'MODIFY',
    dynamodb: { NewImage: marshall({ pk: `ORDER#${order.id}`, sk: 'ORDER', ...order }, { removeUndefinedValues: true }) as Record<string, AttributeValue> as never },
  });

  async function paidOrder() {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode();
    const { order } = await orderPaid(fixture.deps, actor('shop'), orderWebhookBody.parse({ type: 'order.paid', orderId: 'o-1', eventId: event.id, email: 'ada@example.com', quantity: 1 }));
    return { fixture, order };
  }

  it('sends once and records it; a replayed record sends nothing', async () => {
    const { fixture, order } = await paidOrder();
    const sent: MailMessage[] = [];
    const mailer = createMailerHandler({ orders: fixture.stores.orders, events: fixture.stores.events, transport: { send: async (mail) => void sent.push(mail) }, context: { siteUrl: 'https://x.example', timeZone: 'UTC' }, now: fixture.now });
    expect(await mailer({ Records: [record(order), record(order)] })).toEqual({ sent: 1, failed: 0, retrying: 0, skipped: 1 });
    expect(await mailer({ Records: [record(order)] })).toEqual({ sent: 0, failed: 0, retrying: 0, skipped: 1 });
    expect(sent.map((mail) => mail.to)).toEqual(['ada@example.com']);
    expect(await fixture.stores.orders.getOrder(order.id)).toMatchObject({ emailStatus: 'sent', emailSentAt: fixture.now().toISOString(), emailError: null });
  });

  it('records each failed try; the record of that write brings the next, until the third fails the email', async () => {
    const { fixture, order } = await paidOrder();
    const waits: number[] = [];
    const mailer = createMailerHandler({
      orders: fixture.stores.orders,
      events: fixture.stores.events,
      transport: { send: async () => Promise.reject(new Error('421 try again later')) },
      context: { siteUrl: 'https://x.example', timeZone: 'UTC' },
      wait: async (attempt) => void waits.push(attempt),
    });
    let current = order;
    for (const expected of [{ retrying: 1 }, { retrying: 1 }, { failed: 1 }]) {
      expect(await mailer({ Records: [record(current)] })).toMatchObject(expected);
      // The stale record (before the write) sends nothing.
      expect(await mailer({ Records: [record(current)] })).toMatchObject({ skipped: 1 });
      current = (await fixture.stores.orders.getOrder(order.id))!;
    }
    expect(waits).toEqual([1, 2]);
    expect(current).toMatchObject({ emailStatus: 'failed', emailAttempts: 3, emailError: '421 try again later' });
  });

  it('records at once, without retrying, that no sender is set', async () => {
    const { fixture, order } = await paidOrder();
    const transport = mailTransport({ kind: 'smtp', url: 'smtp://127.0.0.1:9' }, null);
    const mailer = createMailerHandler({ orders: fixture.stores.orders, events: fixture.stores.events, transport, context: { siteUrl: 'https://x.example', timeZone: 'UTC' } });
    expect(await mailer({ Records: [record(order)] })).toMatchObject({ failed: 1 });
    expect(await fixture.stores.orders.getOrder(order.id)).toMatchObject({ emailStatus: 'failed', emailAttempts: 1, emailError: NO_SENDER });
    transport.close();
  });

  it('fails the batch when the table does, after trying every email of it', async () => {
    const { fixture, order } = await paidOrder();
    const sent: string[] = [];
    fixture.stores.orders.getOrder = async () => Promise.reject(new Error('table unreachable'));
    const mailer = createMailerHandler({ orders: fixture.stores.orders, events: fixture.stores.events, transport: { send: async (mail) => void sent.push(mail.to) }, context: { siteUrl: 'https://x.example', timeZone: 'UTC' } });
    await expect(mailer({ Records: [record(order)] })).rejects.toThrow('table unreachable');
    expect(sent).toEqual([]);
  });
});
