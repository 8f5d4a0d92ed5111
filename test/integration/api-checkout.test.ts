import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/free-port';
import { startStripeFake, type StripeFake } from '../../local/stripe-fake';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';
import { deliverStripeEvent } from '../../harness/order-webhook';

const SECRET_KEY = 'sk_test_stagedoor_checkout';
const WEBHOOK_SECRET = 'whsec_stagedoor_checkout_test';

const show = { startsAt: '2030-12-19T19:30:00.000Z', endsAt: '2030-12-19T22:00:00.000Z' };
const sale = (changes: Record<string, unknown> = {}) => ({ open: true, priceMinor: 1500, currency: 'eur', capacity: null, maxPerOrder: 4, ...changes });

/**
 * Stripe Checkout on the embedded DynamoDB, the API's Stripe SDK pointed (STRIPE_API_URL) at the local
 * stand-in of Stripe's API, whose webhook deliveries are signed with the SDK's own scheme.
 */
describe('Checkout: events on sale, capacity held by a conditional counter, sessions paid and expired', () => {
  let api: ApiHarness;
  let stripe: StripeFake;

  beforeAll(async () => {
    const stripePort = await freePort('127.0.0.1');
    api = await startApi({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: `http://127.0.0.1:${stripePort}` });
    stripe = await startStripeFake({ port: stripePort, secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, webhookUrl: `${api.url}/api/webhooks/stripe` });
  }, 60_000);
  afterAll(async () => {
    await stripe?.close();
    await api?.close();
  });

  const createEvent = async (title: string, eventSale: unknown) => {
    const created = await api.admin('POST', '/api/admin/events', { title, ...show, sale: eventSale });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const checkout = (json: unknown, from = '127.0.0.1') => call('POST', `${api.url}/api/checkout`, { json, from });
  const taken = async (eventId: string) => (await api.admin('GET', `/api/admin/events/${eventId}`)).body.ticketsTaken as number;
  const sessionOf = (url: string) => stripe.sessions().find((session) => session.url === url)!;

  it('takes a sale through the event routes, refusing malformed ones field by field, and shows it to viewers', async () => {
    for (const [bad, error] of [
      [sale({ currency: 'euro' }), 'sale.currency: must be an ISO 4217 currency code such as "eur" or "usd"'],
      [sale({ priceMinor: 0 }), 'sale.priceMinor: must be at least 1'],
      [sale({ priceMinor: 12.5 }), "sale.priceMinor: must be a whole number of the currency's minor unit (cents)"],
      [sale({ maxPerOrder: 21 }), 'sale.maxPerOrder: must be between 1 and 20'],
      [sale({ capacity: 0 }), 'sale.capacity: must be at least 1 (null: no limit)'],
      [{ open: true }, 'sale.priceMinor: is required'],
    ] as const) {
      expect(await api.admin('POST', '/api/admin/events', { title: 'Bad sale', ...show, sale: bad })).toMatchObject({ status: 400, body: { error } });
    }
    const id = await createEvent('On sale', sale({ currency: 'USD', capacity: 100 }));
    expect((await api.admin('GET', `/api/admin/events/${id}`)).body).toMatchObject({ sale: sale({ currency: 'usd', capacity: 100 }), ticketsTaken: 0 });
    const shown = await call('GET', `${api.url}/api/events/${id}/sale`);
    expect(shown.body).toEqual({ eventId: id, title: 'On sale', sale: { open: true, priceMinor: 1500, currency: 'usd', maxPerOrder: 4, soldOut: false }, contactEmail: null, cancelled: null });
    expect(shown.headers['cache-control']).toBe('public, max-age=0, s-maxage=5');
    const closed = await api.admin('PUT', `/api/admin/events/${id}`, { sale: sale({ open: false, capacity: 100 }) });
    expect(closed.body.sale.open).toBe(false);
    expect((await call('GET', `${api.url}/api/events/${id}/sale`)).body.sale.open).toBe(false);
    const audit = await api.admin('GET', `/api/admin/events/${id}/audit`);
    expect(JSON.stringify(audit.body.entries)).toContain('"sale"');
    const plain = await createEvent('Not sold here', undefined);
    expect((await call('GET', `${api.url}/api/events/${plain}/sale`)).body).toEqual({ eventId: plain, title: 'Not sold here', sale: null, contactEmail: null, cancelled: null });
    const missing = await call('GET', `${api.url}/api/events/nosuchevent/sale`);
    expect(missing).toMatchObject({ status: 404, body: { error: 'Event not found' } });
    expect(missing.headers['cache-control']).toBe('no-store');
  });

  it('refuses unknown events, events not on sale, more tickets than one order may hold, bad input', async () => {
    const open = await createEvent('Refusals', sale());
    const closed = await createEvent('Closed', sale({ open: false }));
    const none = await createEvent('No sale', null);
    expect(await checkout({ eventId: 'nosuchevent', email: 'a@example.com', quantity: 1 })).toMatchObject({ status: 404, body: { error: 'Event not found' } });
    for (const eventId of [closed, none]) {
      expect(await checkout({ eventId, email: 'a@example.com', quantity: 1 })).toMatchObject({ status: 409, body: { error: 'This event is not on sale' } });
    }
    expect(await checkout({ eventId: open, email: 'a@example.com', quantity: 5 })).toMatchObject({ status: 400, body: { error: 'quantity: must be between 1 and 4' } });
    expect(await checkout({ eventId: open, email: 'not an email', quantity: 1 })).toMatchObject({ status: 400, body: { error: 'email: must be an email address' } });
    expect(await checkout({ eventId: open, email: 'a@example.com' })).toMatchObject({ status: 400, body: { error: 'quantity: is required' } });
    expect(await taken(open)).toBe(0);
    expect(stripe.sessions().filter((session) => session.metadata.eventId === open)).toEqual([]);
  });

  it('opens a Checkout Session with the price inline and Stagedoor metadata; paid, the order status carries the codes', async () => {
    const eventId = await createEvent('Paid night', sale({ capacity: 50 }));
    const started = Date.now();
    const answer = await checkout({ eventId, email: 'ada@example.com', quantity: 2 });
    expect(answer.status).toBe(200);
    const session = sessionOf(answer.body.url);
    expect(session).toMatchObject({
      amount_total: 3000,
      currency: 'eur',
      customer_email: 'ada@example.com',
      metadata: { eventId, quantity: '2', ticketsHeld: 'true' },
      success_url: `${api.url}/?event=${eventId}&checkout={CHECKOUT_SESSION_ID}`,
      cancel_url: `${api.url}/?event=${eventId}`,
    });
    expect(session.expires_at * 1000 - started).toBeGreaterThanOrEqual(30 * 60_000);
    expect(await taken(eventId)).toBe(2);
    const pending = await call('GET', `${api.url}/api/checkout/${session.id}`);
    expect(pending).toMatchObject({ status: 200, body: { status: 'pending', email: 'ada@example.com', codes: [] } });
    expect(pending.headers['cache-control']).toBe('no-store');

    await stripe.pay(session.id);
    const paid = await call('GET', `${api.url}/api/checkout/${session.id}`);
    expect(paid.body).toMatchObject({ status: 'paid', eventId, quantity: 2 });
    expect(paid.body.codes).toHaveLength(2);
    for (const code of paid.body.codes) expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code } })).status).toBe(200);
    // Paid, the session keeps its tickets: an expiry delivered late frees nothing.
    await stripe.expire(session.id);
    expect(await taken(eventId)).toBe(2);
    expect((await call('GET', `${api.url}/api/checkout/cs_test_unknown`)).status).toBe(404);
    expect(await call('GET', `${api.url}/api/checkout/not-a-session`)).toMatchObject({ status: 404, body: { error: 'Checkout not found' } });

    // A full refund revokes the codes and gives the seats back to the sale.
    const refund = await fetch(`${stripe.url}/v1/refunds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ payment_intent: stripe.sessions().find((s) => s.id === session.id)!.payment_intent! }),
    });
    expect(refund.status).toBe(200);
    // As Stripe, the stand-in answers first and sends charge.refunded after.
    await expect.poll(() => stripe.delivered().includes('charge.refunded'), { timeout: 10_000 }).toBe(true);
    expect((await call('GET', `${api.url}/api/checkout/${session.id}`)).body).toMatchObject({ status: 'refunded', codes: [] });
    expect(await taken(eventId)).toBe(0);
  });

  it('sells exactly the last 10 tickets to 200 parallel buyers; the others hear "sold out"; an expired session gives its ticket back once', async () => {
    const eventId = await createEvent('Last ten', sale({ capacity: 10, maxPerOrder: 1 }));
    // Each buyer from an address of its own, as a crowd is.
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => checkout({ eventId, email: `buyer${i}@example.com`, quantity: 1 }, `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`)),
    );
    const by = (status: number) => answers.filter((answer) => answer.status === status);
    expect(by(200)).toHaveLength(10);
    expect(by(409)).toHaveLength(190);
    for (const refused of by(409)) expect(refused.body).toEqual({ error: 'sold out' });
    expect(await taken(eventId)).toBe(10);
    expect((await call('GET', `${api.url}/api/events/${eventId}/sale`)).body.sale.soldOut).toBe(true);

    // The expiry, and the same delivery replayed three times at once (Stripe retries), frees one ticket.
    const expiring = sessionOf(by(200)[0]!.body.url);
    await stripe.expire(expiring.id);
    const replays = await Promise.all([0, 1, 2].map(() => deliverStripeEvent(api.url, WEBHOOK_SECRET, { type: 'checkout.session.expired', data: { object: expiring } })));
    for (const replay of replays) expect(replay).toMatchObject({ status: 200, body: { received: true, released: false } });
    expect(await taken(eventId)).toBe(9);
    expect((await call('GET', `${api.url}/api/checkout/${expiring.id}`)).body.status).toBe('expired');
    const again = await Promise.all([0, 1, 2].map((i) => checkout({ eventId, email: `late${i}@example.com`, quantity: 1 }, `127.0.9.${i + 1}`)));
    expect(again.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    expect(await taken(eventId)).toBe(10);
  }, 120_000);
});
