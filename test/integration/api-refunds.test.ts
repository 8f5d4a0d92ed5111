/**
 * Refunds from the console and a cancelled show, end to end on the stand-ins: the API's Stripe SDK talks to the
 * local Stripe stand-in (STRIPE_API_URL), whose `charge.refunded` comes back signed to the webhook; shop orders
 * come signed to the order webhook; the jobs run on the embedded SQS in the shipped worker; the mailer runs on
 * the table's stream into a mail catcher.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsClients, dynamoDocumentClient, sqsClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { compose as composeMailer } from '../../functions/compose/mailer';
import { paymentProvider } from '../../functions/compose/payments';
import { readMailerConfig } from '../../functions/config/mailer-config';
import { freePort } from '../../local/free-port';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';
import { createJobQueues } from '../../local/job-queues';
import { startMailCatcher, type MailCatcher } from '../../local/mail-catcher';
import { startMailer } from '../../local/mailer-triggers';
import { startStripeFake, type StripeFake } from '../../local/stripe-fake';
import type { SqsEventSource } from '../../local/triggers/sqs-event-source';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';
import { deliverOrder, deliverStripeEvent, paidCheckoutSession } from '../../harness/order-webhook';
import { startTestJobWorker } from '../../harness/test-job-worker';

const SECRET_KEY = 'sk_test_stagedoor_refunds';
const WEBHOOK_SECRET = 'whsec_stagedoor_refunds_test';
const SHOP_SECRET = 'shop-secret-of-the-refund-tests';

const show = { startsAt: '2030-12-19T19:30:00.000Z', endsAt: '2030-12-19T22:00:00.000Z' };
const sale = { open: true, priceMinor: 1250, currency: 'eur', capacity: 10, maxPerOrder: 4 };

let s3: EmbeddedS3;
let sqs: SQSClient;
let api: ApiHarness;
let stripe: StripeFake;
let catcher: MailCatcher;
let mailer: { stop(): Promise<void> };
let worker: SqsEventSource;
let buyers = 0;

beforeAll(async () => {
  s3 = await startEmbeddedS3({ buckets: [] });
  const queues = await createJobQueues(s3.endpoint);
  const stripePort = await freePort('127.0.0.1');
  const stripeApiUrl = `http://127.0.0.1:${stripePort}`;
  api = await startApi(
    { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: stripeApiUrl, ORDER_WEBHOOK_SECRET: SHOP_SECRET, JOBS_QUEUE_URL: queues.queueUrl },
    { sqsEndpoint: s3.endpoint },
  );
  stripe = await startStripeFake({ port: stripePort, secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, webhookUrl: `${api.url}/api/webhooks/stripe` });
  catcher = await startMailCatcher({ inboxPort: 0, host: '127.0.0.1' });
  const mailerConfig = readMailerConfig({ TABLE_NAME: 'stagedoor', SITE_ORIGIN: 'https://tickets.example.com', MAIL_FROM: 'box@example.com', SMTP_URL: catcher.smtpUrl });
  mailer = startMailer({ stream: api.stream, mailer: composeMailer(mailerConfig, awsClients(api.wiring.aws)), log: () => {} });
  sqs = sqsClient(api.wiring.aws);
  const stores = dynamoStores(dynamoDocumentClient(api.wiring.aws), api.wiring.config.tableName);
  worker = startTestJobWorker(sqs, queues.queueUrl, { stores, payments: paymentProvider({ commerceSecrets: { values: { stripeSecretKey: SECRET_KEY } }, stripeApiUrl }) });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await mailer?.stop();
  await catcher?.close();
  await stripe?.close();
  await api?.close();
  sqs?.destroy();
  await s3?.close();
});

const newEvent = async (title: string) => (await api.admin('POST', '/api/admin/events', { title, ...show, sale })).body.id as string;
const orders = async (eventId: string) => (await api.admin('GET', `/api/admin/events/${eventId}/orders`)).body.orders as Array<Record<string, any>>;
const mailsTo = (email: string) => catcher.messages().filter((message) => !Array.isArray(message.parsed.to) && message.parsed.to?.text === email);
const validate = async (code: string) => (await call('POST', `${api.url}/api/tokens/validate`, { json: { code } })).status;

/** A buyer's checkout paid on the stand-in's page: the order, once the webhook made it paid. */
async function buy(eventId: string, email: string, quantity: number) {
  const started = await call('POST', `${api.url}/api/checkout`, { json: { eventId, email, quantity }, from: `127.0.36.${++buyers}` });
  expect(started.status).toBe(200);
  const session = stripe.sessions().find((made) => made.url === started.body.url)!;
  await stripe.pay(session.id);
  const order = (await orders(eventId)).find((listed) => listed.orderId === session.id)!;
  expect(order).toMatchObject({ source: 'stripe', status: 'paid', refundable: true });
  return order;
}

async function shopOrder(eventId: string, orderId: string, email: string, type = 'order.paid') {
  return deliverOrder(api.url, SHOP_SECRET, { type, orderId, eventId, email, quantity: 1, amountMinor: 2000, currency: 'eur' });
}

describe('Refund from the console', () => {
  it('refunds a Stripe order through Stripe: the order refunded, its codes refused, its seats back, the buyer told', async () => {
    const eventId = await newEvent('Refund night');
    const order = await buy(eventId, 'ada@example.com', 2);
    expect((await api.admin('GET', `/api/admin/events/${eventId}`)).body.ticketsTaken).toBe(2);
    for (const code of order.codes) expect(await validate(code)).toBe(200);
    const refunded = await api.admin('POST', `/api/admin/orders/${order.id}/refund`);
    expect(refunded).toMatchObject({ status: 200, body: { order: { id: order.id, status: 'refunded', refundable: false, emailKind: 'refund' } } });
    expect(stripe.refunds()).toEqual([expect.objectContaining({ object: 'refund', amount: 2500, currency: 'eur', status: 'succeeded' })]);
    for (const code of order.codes) expect(await validate(code)).toBe(403);
    expect((await api.admin('GET', `/api/admin/events/${eventId}`)).body.ticketsTaken).toBe(0);
    await expect.poll(() => mailsTo('ada@example.com').map((mail) => mail.parsed.subject), { timeout: 15_000 }).toEqual([expect.stringContaining('Your 2 tickets'), expect.stringContaining('Refund')]);
    const audit = (await api.admin('GET', `/api/admin/events/${eventId}/audit`)).body.entries as Array<{ action: string }>;
    expect(audit.filter((entry) => entry.action.startsWith('order.refund')).map((entry) => entry.action).sort()).toEqual(['order.refund-requested', 'order.refunded']);
  });

  it('is idempotent against parallel calls and a crossing charge.refunded: one Stripe refund, one order.refunded, one refund email', async () => {
    const eventId = await newEvent('Crossing night');
    const order = await buy(eventId, 'bea@example.com', 1);
    const refundsBefore = stripe.refunds().length;
    const eventsBefore = stripe.delivered().filter((type) => type === 'charge.refunded').length;
    // Stripe's event is late: two clicks refund the order themselves, then the event and a third click cross.
    const release = stripe.holdEvents();
    const clicks = await Promise.all([0, 1].map(() => api.admin('POST', `/api/admin/orders/${order.id}/refund`)));
    for (const click of clicks) expect(click).toMatchObject({ status: 200, body: { order: { id: order.id, status: 'refunded' } } });
    const [again] = await Promise.all([api.admin('POST', `/api/admin/orders/${order.id}/refund`), (async () => release())()]);
    expect(again).toMatchObject({ status: 200, body: { order: { id: order.id, status: 'refunded' } } });
    await expect.poll(() => stripe.delivered().filter((type) => type === 'charge.refunded').length, { timeout: 10_000 }).toBe(eventsBefore + 1);
    expect(stripe.refunds().length - refundsBefore).toBe(1);
    expect((await api.admin('GET', `/api/admin/events/${eventId}/audit?action=order.refunded`)).body.entries).toHaveLength(1);
    const [after] = await orders(eventId);
    expect(after).toMatchObject({ status: 'refunded', emailKind: 'refund' });
    await expect.poll(async () => (await orders(eventId))[0]!.emailStatus, { timeout: 15_000 }).toBe('sent');
    expect(mailsTo('bea@example.com').map((mail) => mail.parsed.subject)).toEqual([expect.stringContaining('Your ticket'), expect.stringContaining('Refund')]);
  });

  it('refuses a shop order (the shop refunds it), an unknown one and a failed one', async () => {
    const eventId = await newEvent('Shop night');
    expect((await shopOrder(eventId, 'shop-1', 'cy@example.com')).status).toBe(200);
    const [order] = await orders(eventId);
    expect(order).toMatchObject({ source: 'shop', refundable: false });
    expect(await api.admin('POST', `/api/admin/orders/${order!.id}/refund`)).toMatchObject({
      status: 409,
      body: { error: 'This order was sold by the shop: refund it there; its order.refunded webhook revokes the codes' },
    });
    expect(await api.admin('POST', '/api/admin/orders/nosuchorder/refund')).toMatchObject({ status: 404, body: { error: 'Order not found' } });
    const session = paidCheckoutSession({ id: 'cs_test_failed', eventId: 'nosuchevent', quantity: 1, email: 'cy@example.com', paymentIntent: 'pi_failed' });
    expect((await deliverStripeEvent(api.url, WEBHOOK_SECRET, { type: 'checkout.session.completed', data: { object: session } })).status).toBe(200);
    const [failed] = await orders('nosuchevent');
    expect(failed).toMatchObject({ status: 'failed' });
    expect(await api.admin('POST', `/api/admin/orders/${failed!.id}/refund`)).toMatchObject({ status: 409, body: { error: 'This order has no tickets to send (it failed)' } });
  });

  it('makes no order for a refund webhook of an order never seen, and its later payment issues no codes', async () => {
    const eventId = await newEvent('Early refund night');
    expect(await shopOrder(eventId, 'shop-early', 'dee@example.com', 'order.refunded')).toMatchObject({ status: 200, body: { received: true, order: null } });
    expect(await orders(eventId)).toEqual([]);
    expect((await shopOrder(eventId, 'shop-early', 'dee@example.com')).body).toMatchObject({ order: { status: 'refunded' } });
    expect((await api.admin('GET', `/api/admin/events/${eventId}/tokens`)).body.tokens).toEqual([]);
    expect((await api.admin('GET', `/api/admin/events/${eventId}`)).body._count.tokens).toBe(0);
    expect(mailsTo('dee@example.com')).toEqual([]);
  });
});

describe('Cancel a show', () => {
  it('takes the event off sale at once, refunds every Stripe order, revokes every code and tells every buyer', async () => {
    const eventId = await newEvent('Cancelled night');
    const first = await buy(eventId, 'eve@example.com', 2);
    const second = await buy(eventId, 'fay@example.com', 1);
    expect((await shopOrder(eventId, 'shop-cancel', 'gus@example.com')).status).toBe(200);
    const generated = await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 2, label: 'guests' });
    expect(generated.status).toBe(201);
    const shop = (await orders(eventId)).find((order) => order.source === 'shop')!;
    const allCodes = [...first.codes, ...second.codes, ...shop.codes, ...generated.body.tokens.map((token: { code: string }) => token.code)];
    const refundsBefore = stripe.refunds().length;

    expect(await api.admin('POST', `/api/admin/events/${eventId}/cancel`, { reason: '' })).toMatchObject({ status: 400, body: { error: 'reason: must be 1 to 500 characters' } });
    const cancelled = await api.admin('POST', `/api/admin/events/${eventId}/cancel`, { reason: 'The singer is ill' });
    expect(cancelled).toMatchObject({ status: 202, body: { job: { kind: 'event-cancellation', eventId } } });
    // Off sale in the request, before the job ran.
    const saleView = await call('GET', `${api.url}/api/events/${eventId}/sale`);
    expect(saleView.body).toMatchObject({ sale: { open: false }, cancelled: { reason: 'The singer is ill', at: expect.any(String) } });
    expect(await call('POST', `${api.url}/api/checkout`, { json: { eventId, email: 'late@example.com', quantity: 1 }, from: '127.0.37.1' })).toMatchObject({ status: 409, body: { error: 'This event is not on sale' } });
    expect((await api.admin('GET', `/api/admin/events/${eventId}`)).body).toMatchObject({ sale: { open: false }, cancelled: { reason: 'The singer is ill' } });
    expect(await api.admin('POST', `/api/admin/events/${eventId}/cancel`, { reason: 'Again' })).toMatchObject({ status: 409, body: { error: 'This event was cancelled already' } });

    const jobId = cancelled.body.job.id as string;
    await expect.poll(async () => (await api.admin('GET', `/api/admin/jobs/${jobId}`)).body.job.status, { timeout: 30_000, interval: 250 }).toBe('done');
    expect((await api.admin('GET', `/api/admin/jobs/${jobId}`)).body.job.result).toMatchObject({ revoked: allCodes.length, reason: 'The singer is ill' });
    expect(stripe.refunds().length - refundsBefore).toBe(2);
    const after = await orders(eventId);
    expect(after.filter((order) => order.source === 'stripe').map((order) => [order.status, order.emailKind])).toEqual([
      ['refunded', 'cancelled'],
      ['refunded', 'cancelled'],
    ]);
    expect(after.find((order) => order.source === 'shop')).toMatchObject({ status: 'paid', emailKind: 'cancelled' });
    for (const code of allCodes) expect(await validate(code)).toBe(403);

    for (const [email, money] of [
      ['eve@example.com', 'Your payment of €25.00 was refunded to your card.'],
      ['fay@example.com', 'Your payment of €12.50 was refunded to your card.'],
      ['gus@example.com', 'the shop refunds your payment'],
    ] as const) {
      await expect.poll(() => mailsTo(email).find((mail) => mail.parsed.subject === 'Cancelled: Cancelled night')?.parsed.text, { timeout: 15_000 }).toContain(money);
      const notice = mailsTo(email).find((mail) => mail.parsed.subject === 'Cancelled: Cancelled night')!;
      expect(notice.parsed.text).toContain("The organiser's reason: The singer is ill");
      expect(mailsTo(email).filter((mail) => /Refund/.test(mail.parsed.subject ?? ''))).toEqual([]);
    }
    const audit = (await api.admin('GET', `/api/admin/events/${eventId}/audit?action=event.cancel`)).body.entries;
    expect(audit).toMatchObject([{ action: 'event.cancel', details: { reason: 'The singer is ill', jobId } }]);
  });
});
