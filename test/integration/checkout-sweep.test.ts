import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { readMailerConfig } from '../../functions/config/mailer-config';
import { SETTLE_AFTER_MINUTES } from '../../functions/domain/commerce';
import { checkoutSweep } from '../../functions/triggers/checkout-sweep';
import { publicApp } from '../../functions/compose/api-app';
import { freePort } from '../../local/free-port';
import { startMailCatcher, type MailCatcher } from '../../local/mail-catcher';
import { startMailer } from '../../local/mailer-triggers';
import { compose as composeMailer } from '../../functions/compose/mailer';
import { awsClients } from '../../functions/adapters/aws-clients';
import { startStripeFake, type StripeFake } from '../../local/stripe-fake';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';

const SECRET_KEY = 'sk_test_stagedoor_sweep';
const WEBHOOK_SECRET = 'whsec_stagedoor_sweep_test';

/**
 * A Stripe endpoint registered without the checkout events (the organiser ticked `charge.refunded`
 * only): the sessions still expire and get paid on Stripe's side, and the sweep, run on the public
 * function's App as its schedule runs it, settles them through the API's store, Stripe stand-in and mailer.
 */
describe('checkout sweep: the checkouts a Stripe webhook never settled', () => {
  let api: ApiHarness;
  let stripe: StripeFake;
  let catcher: MailCatcher;
  let mailer: { stop(): Promise<void> };

  beforeAll(async () => {
    const stripePort = await freePort('127.0.0.1');
    api = await startApi({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: `http://127.0.0.1:${stripePort}` });
    stripe = await startStripeFake({ port: stripePort, secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, webhookUrl: `${api.url}/api/webhooks/stripe`, enabledEvents: ['charge.refunded'] });
    catcher = await startMailCatcher({ inboxPort: 0, host: '127.0.0.1' });
    const stores = dynamoStores(dynamoDocumentClient(api.wiring.aws), api.wiring.config.tableName);
    mailer = startMailer({ stream: api.stream, mailer: composeMailer(readMailerConfig({ TABLE_NAME: 'stagedoor', SITE_ORIGIN: api.url, MAIL_FROM: 'box@example.com', SMTP_URL: catcher.smtpUrl }), awsClients(api.wiring.aws)), log: () => {} });
  }, 60_000);
  afterAll(async () => {
    await mailer?.stop();
    await catcher?.close();
    await stripe?.close();
    await api?.close();
  });

  /** The sweep as the schedule runs it, `minutes` from now. */
  const sweepAt = (minutes: number) => {
    const app = publicApp(api.wiring.config, awsClients(api.wiring.aws));
    return checkoutSweep(async () => ({ ...(await app()), now: () => new Date(Date.now() + minutes * 60_000) }))();
  };
  const checkout = (eventId: string, email: string, quantity: number) => call('POST', `${api.url}/api/checkout`, { json: { eventId, email, quantity } });
  const sessionOf = (url: string) => stripe.sessions().find((session) => session.url === url)!;

  it('gives an abandoned checkout its tickets back and makes the paid one its order, codes and email, once', async () => {
    const sale = { open: true, priceMinor: 1500, currency: 'eur', capacity: 3, maxPerOrder: 4 };
    const created = await api.admin('POST', '/api/admin/events', { title: 'Sweep night', startsAt: '2030-12-19T19:30:00.000Z', endsAt: '2030-12-19T22:00:00.000Z', sale });
    const eventId = created.body.id as string;
    const abandoned = sessionOf((await checkout(eventId, 'gone@example.com', 1)).body.url);
    const paid = sessionOf((await checkout(eventId, 'paid@example.com', 2)).body.url);
    expect(await checkout(eventId, 'late@example.com', 1)).toMatchObject({ status: 409, body: { error: 'sold out' } });
    await stripe.expire(abandoned.id);
    await stripe.pay(paid.id);
    expect((await call('GET', `${api.url}/api/checkout/${paid.id}`)).body.status).toBe('pending');

    // Stripe's webhook may still come: young checkouts are left to it.
    expect(await sweepAt(0)).toEqual({ released: 0, paid: 0, waiting: 0, found: 0 });
    expect(await sweepAt(SETTLE_AFTER_MINUTES + 1)).toEqual({ released: 1, paid: 1, waiting: 0, found: 0 });

    const status = await call('GET', `${api.url}/api/checkout/${paid.id}`);
    expect(status.body).toMatchObject({ status: 'paid', quantity: 2, email: 'paid@example.com' });
    expect(status.body.codes).toHaveLength(2);
    for (const code of status.body.codes) expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code } })).status).toBe(200);
    await expect.poll(() => catcher.messages().filter((message) => !Array.isArray(message.parsed.to) && message.parsed.to?.text === 'paid@example.com').length, { timeout: 15_000 }).toBe(1);
    expect((await api.admin('GET', `/api/admin/events/${eventId}/audit?action=order.paid`)).body.entries).toMatchObject([{ actor: 'stripe', target: `order ${paid.id}` }]);
    expect((await api.admin('GET', `/api/admin/events/${eventId}`)).body.ticketsTaken).toBe(2);
    expect((await call('GET', `${api.url}/api/checkout/${abandoned.id}`)).body.status).toBe('expired');
    // The abandoned ticket is on sale again.
    expect((await checkout(eventId, 'late@example.com', 1)).status).toBe(200);

    // Settled ones are out of its listing; the new buyer's session is still open on Stripe.
    expect(await sweepAt(SETTLE_AFTER_MINUTES + 2)).toEqual({ released: 0, paid: 0, waiting: 1, found: 0 });
    expect((await api.admin('GET', `/api/admin/events/${eventId}/orders`)).body.orders).toHaveLength(1);
  });
});
