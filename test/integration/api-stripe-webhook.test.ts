import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { readMailerConfig } from '../../functions/config/mailer-config';
import { startMailCatcher, type MailCatcher } from '../../local/mail-catcher';
import { startMailer } from '../../local/mailer-triggers';
import { compose as composeMailer } from '../../functions/compose/mailer';
import { awsClients } from '../../functions/adapters/aws-clients';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';
import { deliverStripeEvent, paidCheckoutSession } from '../../harness/order-webhook';

const SECRET = 'whsec_stagedoor_stripe_test_secret';

/** Stripe's webhook on the embedded DynamoDB, its events signed by Stripe's SDK, with the mailer on the table's stream. */
describe('Stripe webhook: paid Checkout Sessions become orders, full refunds revoke them', () => {
  let api: ApiHarness;
  let catcher: MailCatcher;
  let mailer: { stop(): Promise<void> };
  let eventId: string;

  beforeAll(async () => {
    api = await startApi({ STRIPE_WEBHOOK_SECRET: SECRET });
    catcher = await startMailCatcher({ inboxPort: 0, host: '127.0.0.1' });
    const stores = dynamoStores(dynamoDocumentClient(api.wiring.aws), api.wiring.config.tableName);
    mailer = startMailer({ stream: api.stream, mailer: composeMailer(readMailerConfig({ TABLE_NAME: 'stagedoor', SITE_ORIGIN: 'https://tickets.example.com', MAIL_FROM: 'box@example.com', SMTP_URL: catcher.smtpUrl }), awsClients(api.wiring.aws)), log: () => {} });
    eventId = (await api.admin('POST', '/api/admin/events', { title: 'Stripe night', startsAt: '2026-12-19T19:30:00.000Z', endsAt: '2026-12-19T22:00:00.000Z' })).body.id;
  }, 60_000);
  afterAll(async () => {
    await mailer?.stop();
    await catcher?.close();
    await api?.close();
  });

  const mailsTo = (email: string) => catcher.messages().filter((message) => !Array.isArray(message.parsed.to) && message.parsed.to?.text === email);
  const completed = (session: ReturnType<typeof paidCheckoutSession>) => ({ type: 'checkout.session.completed', data: { object: session } });

  it('refuses a delivery not signed with the endpoint secret, or signed more than 300 s ago', async () => {
    const session = paidCheckoutSession({ id: 'cs_test_bad', eventId, quantity: 1, email: 'x@example.com', paymentIntent: 'pi_bad' });
    expect(await deliverStripeEvent(api.url, 'whsec_another', completed(session))).toMatchObject({ status: 400, body: { error: 'Invalid signature' } });
    expect((await deliverStripeEvent(api.url, SECRET, completed(session), { at: new Date(Date.now() - 301_000) })).status).toBe(400);
    expect((await call('POST', `${api.url}/api/webhooks/stripe`, { json: completed(session) })).status).toBe(400);
    expect((await api.admin('GET', `/api/admin/events/${eventId}/orders`)).body.orders).toEqual([]);
  });

  it('issues the codes once for replays and parallel deliveries, one email to customer_details.email', async () => {
    const session = paidCheckoutSession({ id: 'cs_test_1', eventId, quantity: 3, email: 'ada@example.com', paymentIntent: 'pi_1', amountTotal: 4500 });
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliverStripeEvent(api.url, SECRET, completed(session))));
    for (const answer of answers) expect(answer).toMatchObject({ status: 200, body: { order: { status: 'paid' } } });
    await expect.poll(() => mailsTo('ada@example.com').length, { timeout: 15_000 }).toBe(1);
    const [order] = (await api.admin('GET', `/api/admin/events/${eventId}/orders`)).body.orders;
    expect(order).toMatchObject({ source: 'stripe', orderId: 'cs_test_1', quantity: 3, amount: { minor: 4500, currency: 'eur' }, status: 'paid' });
    expect(order.codes).toHaveLength(3);
    expect((await api.admin('GET', `/api/admin/events/${eventId}/tokens`)).body.tokens).toHaveLength(3);
    expect((await api.admin('GET', `/api/admin/events/${eventId}/audit?action=order.paid`)).body.entries).toMatchObject([{ actor: 'stripe' }]);
  });

  it('ignores other types, unpaid sessions, sales without Stagedoor metadata and partial refunds', async () => {
    const unpaid = { ...paidCheckoutSession({ id: 'cs_test_2', eventId, quantity: 1, email: 'b@example.com', paymentIntent: 'pi_2' }), payment_status: 'unpaid' };
    const foreign = { ...paidCheckoutSession({ id: 'cs_test_3', eventId, quantity: 1, email: 'b@example.com', paymentIntent: 'pi_3' }), metadata: {} };
    for (const event of [
      { type: 'payment_intent.created', data: { object: {} } },
      completed(unpaid as never),
      completed(foreign as never),
      { type: 'charge.refunded', data: { object: { refunded: false, payment_intent: 'pi_1' } } },
    ]) {
      expect(await deliverStripeEvent(api.url, SECRET, event)).toMatchObject({ status: 200, body: { received: true, ignored: true } });
    }
    expect((await api.admin('GET', `/api/admin/events/${eventId}/orders`)).body.orders).toHaveLength(1);
  });

  it('refunds the order its payment intent paid: codes revoked, the buyer told; a refund before its payment is retried by Stripe', async () => {
    const refund = { type: 'charge.refunded', data: { object: { refunded: true, payment_intent: 'pi_1' } } };
    const answers = await Promise.all([0, 1].map(() => deliverStripeEvent(api.url, SECRET, refund)));
    for (const answer of answers) expect(answer).toMatchObject({ status: 200, body: { order: { status: 'refunded' } } });
    const [order] = (await api.admin('GET', `/api/admin/events/${eventId}/orders`)).body.orders;
    expect(order.status).toBe('refunded');
    for (const code of order.codes) expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code } })).status).toBe(403);
    await expect.poll(() => mailsTo('ada@example.com').length, { timeout: 15_000 }).toBe(2);
    const early = await deliverStripeEvent(api.url, SECRET, { type: 'charge.refunded', data: { object: { refunded: true, payment_intent: 'pi_unknown' } } });
    expect(early.status).toBe(503);
  });
});
