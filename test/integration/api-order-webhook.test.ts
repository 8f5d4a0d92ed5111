import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { kvsKey } from '../../functions/adapters/kvs-scheme';
import { readMailerConfig } from '../../functions/config/mailer-config';
import { parseSigningKeys } from '../../functions/domain/signing-keys';
import { startEdgeSync, type LocalEdge } from '../../local/edge-sync-triggers';
import { edgeSyncOn } from '../../harness/edge-sync-on';
import { startMailCatcher, type MailCatcher } from '../../local/mail-catcher';
import { startMailer } from '../../local/mailer-triggers';
import { compose as composeMailer } from '../../functions/compose/mailer';
import { awsClients } from '../../functions/adapters/aws-clients';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';
import { deliverOrder } from '../../harness/order-webhook';

const SECRET = 'order-webhook-secret-for-tests';

/**
 * The order webhook on the embedded DynamoDB with what the table's stream feeds, as in `npm start`:
 * the mailer (into the local mail catcher) and edge-sync (into the edge's KeyValueStore).
 */
describe('Order webhook: orders from any shop, their codes and the ticket email', () => {
  let api: ApiHarness;
  let catcher: MailCatcher;
  let mailer: { stop(): Promise<void> };
  let edge: LocalEdge;
  let eventId: string;

  beforeAll(async () => {
    api = await startApi({ ORDER_WEBHOOK_SECRET: SECRET });
    catcher = await startMailCatcher({ inboxPort: 0, host: '127.0.0.1' });
    const stores = dynamoStores(dynamoDocumentClient(api.wiring.aws), api.wiring.config.tableName);
    const config = readMailerConfig({ TABLE_NAME: 'stagedoor', SITE_ORIGIN: 'https://tickets.example.com', MAIL_FROM: 'Box office <box@example.com>', SMTP_URL: catcher.smtpUrl, MAIL_TIME_ZONE: 'Europe/Berlin' });
    mailer = startMailer({ stream: api.stream, mailer: composeMailer(config, awsClients(api.wiring.aws)), log: () => {} });
    const secrets = api.wiring.config.secrets as { values: { playbackSigningKeys: string } };
    edge = startEdgeSync({ stream: api.stream, compose: edgeSyncOn(stores.codes, parseSigningKeys(secrets.values.playbackSigningKeys)), log: () => {} });
    const created = await api.admin('POST', '/api/admin/events', {
      title: 'Winter Gala',
      startsAt: '2026-12-19T19:30:00.000Z',
      endsAt: '2026-12-19T22:00:00.000Z',
    });
    expect(created.status).toBe(201);
    eventId = created.body.id;
  }, 60_000);
  afterAll(async () => {
    await mailer?.stop();
    await edge?.stop();
    await catcher?.close();
    await api?.close();
  });

  const mailsTo = (email: string) => catcher.messages().filter((message) => message.parsed.to && !Array.isArray(message.parsed.to) && message.parsed.to.text === email);
  const ordersOf = async (id: string) => (await api.admin('GET', `/api/admin/events/${id}/orders`)).body.orders as any[];

  it('refuses a bad or stale signature with 400 and stores nothing', async () => {
    const order = { type: 'order.paid', orderId: 'bad-sig', eventId, email: 'bad@example.com', quantity: 1 };
    const wrongSecret = await deliverOrder(api.url, 'another-secret-entirely', order);
    expect(wrongSecret.status).toBe(400);
    expect(wrongSecret.body).toEqual({ error: 'Invalid signature' });
    expect((await deliverOrder(api.url, SECRET, order, { at: new Date(Date.now() - 301_000) })).status).toBe(400);
    expect((await deliverOrder(api.url, SECRET, order, { signature: 'garbage' })).status).toBe(400);
    const unsigned = await call('POST', `${api.url}/api/webhooks/orders`, { json: order });
    expect(unsigned.status).toBe(400);
    expect(await ordersOf(eventId)).toEqual([]);
  });

  it('acknowledges an unknown type and ignores it; refuses a malformed known one', async () => {
    const ignored = await deliverOrder(api.url, SECRET, { type: 'order.updated', orderId: 'x', eventId, email: 'x@example.com', quantity: 1 });
    expect(ignored).toMatchObject({ status: 200, body: { received: true, ignored: true } });
    const malformed = await deliverOrder(api.url, SECRET, { type: 'order.paid', orderId: 'x', eventId, email: 'not an email', quantity: 1 });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^email: /);
    expect((await deliverOrder(api.url, SECRET, { type: 'order.paid', orderId: 'x', eventId, email: 'x@example.com', quantity: 21 })).status).toBe(400);
    expect(await ordersOf(eventId)).toEqual([]);
  });

  it('issues the codes once and sends one email under replays and 5 parallel deliveries', async () => {
    const order = { type: 'order.paid', orderId: 'shop-1001', eventId, email: 'ada@example.com', quantity: 2, amountMinor: 4800, currency: 'EUR' };
    const parallel = await Promise.all(Array.from({ length: 5 }, () => deliverOrder(api.url, SECRET, order)));
    for (const answer of parallel) expect(answer).toMatchObject({ status: 200, body: { received: true, order: { status: 'paid' } } });
    expect((await deliverOrder(api.url, SECRET, order)).status).toBe(200);

    await expect.poll(() => mailsTo('ada@example.com').length, { timeout: 15_000 }).toBe(1);
    const [listed] = await ordersOf(eventId);
    expect(listed).toMatchObject({ orderId: 'shop-1001', email: 'ada@example.com', quantity: 2, amount: { minor: 4800, currency: 'eur' }, status: 'paid' });
    expect(listed.codes).toHaveLength(2);
    await expect.poll(async () => (await ordersOf(eventId))[0].emailStatus).toBe('sent');

    const codes = (await api.admin('GET', `/api/admin/events/${eventId}/tokens`)).body.tokens as any[];
    expect(codes.map((code) => code.code).sort()).toEqual([...listed.codes].sort());
    expect(codes.every((code) => code.label === 'ada@example.com')).toBe(true);
    expect((await api.admin('GET', `/api/admin/events/${eventId}`)).body._count.tokens).toBe(2);

    const audit = (await api.admin('GET', `/api/admin/events/${eventId}/audit?action=order.paid`)).body.entries;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: 'shop', target: 'order shop-1001' });

    // A little later, to be sure the stream brought nothing more.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [mail] = mailsTo('ada@example.com');
    expect(mailsTo('ada@example.com')).toHaveLength(1);
    expect(mail!.parsed.subject).toBe('Your 2 tickets for Winter Gala');
    expect(mail!.parsed.from?.text).toBe('"Box office" <box@example.com>');
    expect(mail!.parsed.text).toContain('Starts: 2026-12-19 20:30 (UTC+01:00, Europe/Berlin)');
    for (const code of listed.codes as string[]) expect(mail!.parsed.text).toContain(`https://tickets.example.com/?event=${eventId}&code=${code}`);
    const inline = mail!.parsed.attachments.filter((attachment) => attachment.contentType === 'image/png');
    expect(inline).toHaveLength(2);
    expect(inline.every((attachment) => attachment.contentDisposition === 'inline' && attachment.cid)).toBe(true);
    const ics = mail!.parsed.attachments.find((attachment) => attachment.filename === 'event.ics')!;
    expect(ics.content.toString('utf8')).toContain('DTSTART:20261219T193000Z');
  });

  it('records an order for an unknown event as failed, with the reason, and sends nothing', async () => {
    const answer = await deliverOrder(api.url, SECRET, { type: 'order.paid', orderId: 'shop-1002', eventId: 'no-such-event', email: 'bob@example.com', quantity: 1 });
    expect(answer).toMatchObject({ status: 200, body: { order: { status: 'failed' } } });
    const [failed] = await ordersOf('no-such-event');
    expect(failed).toMatchObject({ orderId: 'shop-1002', status: 'failed', failure: 'event not found', codes: [], emailStatus: null });
    const resend = await api.admin('POST', `/api/admin/orders/${failed.id}/resend`);
    expect(resend).toMatchObject({ status: 409, body: { error: 'This order has no tickets to send (it failed)' } });
    expect(mailsTo('bob@example.com')).toHaveLength(0);
  });

  it('revokes the codes of a refunded order, the edge denies them, and the buyer is told once', async () => {
    const order = { type: 'order.paid', orderId: 'shop-1003', eventId, email: 'cy@example.com', quantity: 1 };
    expect((await deliverOrder(api.url, SECRET, order)).status).toBe(200);
    await expect.poll(() => mailsTo('cy@example.com').length, { timeout: 15_000 }).toBe(1);
    const listed = (await ordersOf(eventId)).find((each) => each.orderId === 'shop-1003');
    const code = listed.codes[0] as string;
    expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code } })).status).toBe(200);

    const refunds = await Promise.all(Array.from({ length: 3 }, () => deliverOrder(api.url, SECRET, { ...order, type: 'order.refunded' })));
    for (const answer of refunds) expect(answer).toMatchObject({ status: 200, body: { order: { status: 'refunded' } } });
    expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code } }, )).status).toBe(403);
    await expect.poll(() => edge.entries.has(kvsKey.revokedCode(code)), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => mailsTo('cy@example.com').length, { timeout: 15_000 }).toBe(2);
    expect(mailsTo('cy@example.com')[1]!.parsed.subject).toBe('Refund of your order for Winter Gala');
    expect((await ordersOf(eventId)).find((each) => each.orderId === 'shop-1003')).toMatchObject({ status: 'refunded', emailKind: 'refund' });
    expect((await api.admin('GET', `/api/admin/events/${eventId}/audit?action=order.refunded`)).body.entries).toHaveLength(1);
  });

  it('resends the ticket email from the console, in the audit log', async () => {
    const [latest] = (await ordersOf(eventId)).filter((each) => each.orderId === 'shop-1001');
    const resend = await api.admin('POST', `/api/admin/orders/${latest.id}/resend`);
    expect(resend).toMatchObject({ status: 200, body: { emailStatus: 'pending', emailKind: 'tickets' } });
    await expect.poll(() => mailsTo('ada@example.com').length, { timeout: 15_000 }).toBe(2);
    expect((await api.admin('GET', `/api/admin/events/${eventId}/audit?action=order.resend`)).body.entries).toHaveLength(1);
    expect((await api.admin('POST', '/api/admin/orders/nosuchorder/resend')).status).toBe(404);
  });
});

describe('Order webhook misconfigured', () => {
  it('fails the webhook alone: the viewer routes never read the commerce secret', async () => {
    const api = await startApi({ ORDER_WEBHOOK_SECRET: 'too short' });
    try {
      const order = { type: 'order.paid', orderId: 'x', eventId: 'e', email: 'x@example.com', quantity: 1 };
      expect((await deliverOrder(api.url, 'too short', order)).status).toBe(500);
      expect((await call('GET', `${api.url}/api/events/nosuchevent/status`)).status).toBe(404);
      expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code: 'NOSUCHCODE23' } })).status).toBe(401);
    } finally {
      await api.close();
    }
    const unconfigured = await startApi();
    try {
      const answer = await deliverOrder(unconfigured.url, SECRET, { type: 'order.paid', orderId: 'x', eventId: 'e', email: 'x@example.com', quantity: 1 });
      expect(answer).toMatchObject({ status: 503, body: { error: 'Order webhooks are not configured' } });
    } finally {
      await unconfigured.close();
    }
  });
});
