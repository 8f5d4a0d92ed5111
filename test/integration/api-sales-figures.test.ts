import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/free-port';
import { startStripeFake, type StripeFake } from '../../local/stripe-fake';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';
import { deliverOrder, deliverStripeEvent } from '../../harness/order-webhook';

const SECRET_KEY = 'sk_test_stagedoor_sales';
const WEBHOOK_SECRET = 'whsec_stagedoor_sales_test';
const ORDER_SECRET = 'order-webhook-secret-for-sales';

const show = { startsAt: '2030-12-19T19:30:00.000Z', endsAt: '2030-12-19T22:00:00.000Z' };
const PRICE = 1500;
const CAPACITY = 300;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/**
 * The organiser's sales figures on the embedded DynamoDB, through the routes a sale takes: `POST /api/checkout`
 * and the local Stripe stand-in's webhooks (paid, expired, `charge.refunded` of its Refunds API), and a shop's
 * order webhook (`order.paid`, `order.refunded`), each crowd in parallel and each delivery replayed.
 */
describe('Sales figures: exact counters under parallel checkouts, payments, expiries and refunds', () => {
  let api: ApiHarness;
  let stripe: StripeFake;

  beforeAll(async () => {
    const stripePort = await freePort('127.0.0.1');
    api = await startApi({ STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: `http://127.0.0.1:${stripePort}`, ORDER_WEBHOOK_SECRET: ORDER_SECRET });
    stripe = await startStripeFake({ port: stripePort, secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, webhookUrl: `${api.url}/api/webhooks/stripe` });
  }, 60_000);
  afterAll(async () => {
    await stripe?.close();
    await api?.close();
  });

  const createEvent = async (title: string) => {
    const created = await api.admin('POST', '/api/admin/events', { title, ...show, sale: { open: true, priceMinor: PRICE, currency: 'eur', capacity: CAPACITY, maxPerOrder: 3 } });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const details = async (eventId: string) => (await api.admin('GET', `/api/admin/events/${eventId}`)).body;
  const refund = (paymentIntent: string) =>
    fetch(`${stripe.url}/v1/refunds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ payment_intent: paymentIntent }),
    });

  it('counts 50 parallel checkouts as held, then paid or expired, shop orders, and refunds of both, each once; the dashboard agrees', async () => {
    const eventId = await createEvent('Counted night');
    const quantities = Array.from({ length: 50 }, (_, i) => 1 + (i % 3));
    const answers = await Promise.all(
      quantities.map((quantity, i) => call('POST', `${api.url}/api/checkout`, { json: { eventId, email: `buyer${i}@example.com`, quantity }, from: `127.0.3.${i + 1}` })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(quantities.map(() => 200));
    const sessions = answers.map((answer) => stripe.sessions().find((session) => session.url === answer.body.url)!);
    const held = sum(quantities);
    expect((await details(eventId)).sales).toEqual({
      onSale: true,
      priceMinor: PRICE,
      currency: 'eur',
      capacity: CAPACITY,
      ticketsSold: 0,
      ticketsHeld: held,
      ticketsLeft: CAPACITY - held,
      revenueMinor: 0,
      refundedMinor: 0,
      orders: 0,
    });

    // 40 paid, 10 expired, all at once; each payment delivered twice more in parallel (Stripe retries).
    const paying = sessions.slice(0, 40);
    const expiring = sessions.slice(40);
    const paid = await Promise.all(paying.map((session) => stripe.pay(session.id)));
    await Promise.all([
      ...expiring.map((session) => stripe.expire(session.id)),
      ...paid.flatMap((session) => [1, 2].map(() => deliverStripeEvent(api.url, WEBHOOK_SECRET, { type: 'checkout.session.completed', data: { object: session } }))),
    ]);
    const sold = sum(quantities.slice(0, 40));
    // And 10 shop orders of 2 tickets at 2,000 each, each delivered three times at once.
    const shopOrders = Array.from({ length: 10 }, (_, i) => ({ type: 'order.paid', orderId: `shop-${i}`, eventId, email: `shop${i}@example.com`, quantity: 2, amountMinor: 2000, currency: 'eur' }));
    const shopAnswers = await Promise.all(shopOrders.flatMap((order) => [1, 2, 3].map(() => deliverOrder(api.url, ORDER_SECRET, order))));
    expect(shopAnswers.every((answer) => answer.status === 200)).toBe(true);
    expect((await details(eventId)).sales).toMatchObject({
      ticketsSold: sold + 20,
      ticketsHeld: 0,
      // Shop orders sell beside the checkout's capacity: only checkouts take from it.
      ticketsLeft: CAPACITY - sold,
      revenueMinor: sold * PRICE + 20_000,
      refundedMinor: 0,
      orders: 50,
    });

    // 15 Stripe refunds through the Refunds API (its charge.refunded, replayed twice at once) and 4 shop refunds (three times each), in parallel.
    const refunded = paid.slice(0, 15);
    const refundedShop = shopOrders.slice(0, 4);
    const refunds = await Promise.all(refunded.map((session) => refund(session.payment_intent!)));
    expect(refunds.every((answer) => answer.status === 200)).toBe(true);
    const replays = await Promise.all([
      ...refunded.flatMap((session) =>
        [1, 2].map(() => deliverStripeEvent(api.url, WEBHOOK_SECRET, { type: 'charge.refunded', data: { object: { object: 'charge', refunded: true, payment_intent: session.payment_intent } } })),
      ),
      ...refundedShop.flatMap((order) => [1, 2, 3].map(() => deliverOrder(api.url, ORDER_SECRET, { ...order, type: 'order.refunded' }))),
    ]);
    expect(replays.every((answer) => answer.status === 200)).toBe(true);
    const refundedTickets = sum(quantities.slice(0, 15));
    const sales = {
      onSale: true,
      priceMinor: PRICE,
      currency: 'eur',
      capacity: CAPACITY,
      ticketsSold: sold - refundedTickets + 12,
      ticketsHeld: 0,
      ticketsLeft: CAPACITY - (sold - refundedTickets),
      revenueMinor: (sold - refundedTickets) * PRICE + 12_000,
      refundedMinor: refundedTickets * PRICE + 8_000,
      orders: 25 + 6,
    };
    const after = await details(eventId);
    expect(after.sales).toEqual(sales);
    expect(after.ticketsTaken).toBe(sold - refundedTickets);
    expect(after.viewerUrl).toBe(`${api.url}/?event=${eventId}`);
    expect(after.liveSessions).toBe(0);
    // The orders agree with the counters.
    const orders = (await api.admin('GET', `/api/admin/events/${eventId}/orders?limit=100`)).body.orders as { status: string; quantity: number }[];
    expect(orders.filter((order) => order.status === 'paid')).toHaveLength(sales.orders);
    expect(sum(orders.filter((order) => order.status === 'paid').map((order) => order.quantity))).toBe(sales.ticketsSold);

    const dashboard = (await api.admin('GET', '/api/admin/dashboard')).body;
    expect(dashboard.eventsOnSale).toContainEqual({ id: eventId, title: 'Counted night', startsAt: show.startsAt, sales });
  }, 180_000);

  it('refuses to delete an event with paid orders, naming the cancel route; once all are refunded it deletes', async () => {
    const eventId = await createEvent('Guarded night');
    const order = { type: 'order.paid', orderId: 'guard-1', eventId, email: 'guard@example.com', quantity: 1, amountMinor: 2500, currency: 'eur' };
    expect((await deliverOrder(api.url, ORDER_SECRET, order)).status).toBe(200);
    const refused = await api.admin('DELETE', `/api/admin/events/${eventId}`);
    expect(refused).toMatchObject({
      status: 409,
      body: { error: `This event has paid orders: cancel it first (POST /api/admin/events/${eventId}/cancel) to refund and tell its buyers` },
    });
    expect((await details(eventId)).sales).toMatchObject({ orders: 1, ticketsSold: 1, revenueMinor: 2500 });
    expect((await deliverOrder(api.url, ORDER_SECRET, { ...order, type: 'order.refunded' })).status).toBe(200);
    expect((await details(eventId)).sales).toMatchObject({ orders: 0, ticketsSold: 0, revenueMinor: 0, refundedMinor: 2500 });
    expect(await api.admin('DELETE', `/api/admin/events/${eventId}`)).toMatchObject({ status: 200, body: { deleted: true } });
  });
});
