import { describe, expect, it } from 'vitest';
import { cancelOrder, orderPaid, orderRefunded, orderWebhookBody } from '../../functions/domain/commerce';
import { actor, domainFixture } from '../support/domain-fixture';
import { fakeCheckoutSessions } from '../support/fake-checkout-sessions';

/** A cancelled show's orders (commerce `cancelOrder`), each as the cancellation job's step runs it: again and again. */
describe('a cancelled show\'s orders', () => {
  async function setUp() {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode();
    const stripe = fakeCheckoutSessions(() => fixture.deps.now());
    const refunds: string[] = [];
    const api = { ...stripe.api, refund: async (request: { paymentRef: string; idempotencyKey: string }) => (refunds.push(request.idempotencyKey), stripe.api.refund(request)) };
    const deps = { ...fixture.deps, payments: async () => api };
    const pay = async (source: 'stripe' | 'shop', orderId: string, email: string) => {
      if (source === 'stripe') stripe.sessions.set(orderId, { id: orderId, status: 'complete', payment_status: 'paid', payment_intent: `pi_${orderId}` });
      const body = orderWebhookBody.parse({ type: 'order.paid', orderId, eventId: event.id, email, quantity: 1, amountMinor: 1500, currency: 'eur' });
      return (await orderPaid(fixture.deps, actor(source), body)).order;
    };
    return { fixture, deps, refunds, pay, since: fixture.deps.now().toISOString() };
  }

  it('refunds a paid Stripe order once and owes its buyer the cancelled email once, however often it runs', async () => {
    const { fixture, deps, refunds, pay, since } = await setUp();
    const order = await pay('stripe', 'cs_test_cancel', 'ada@example.com');
    expect(await cancelOrder(deps, actor('admin'), order, since)).toBe('refunded');
    const first = (await fixture.stores.orders.getOrder(order.id))!;
    expect(first).toMatchObject({ status: 'refunded', emailKind: 'cancelled', emailStatus: 'pending' });
    // The step run again, with the order as its listing saw it, and as it is now.
    expect(await cancelOrder(deps, actor('admin'), order, since)).toBe('refunded');
    expect(await cancelOrder(deps, actor('admin'), first, since)).toBe('untouched');
    expect((await fixture.stores.orders.getOrder(order.id))!.emailRequest).toBe(first.emailRequest);
    expect(new Set(refunds)).toEqual(new Set([`refund-${order.id}`]));
    for (const codeId of order.codeIds) expect((await fixture.stores.codes.getCodeById(codeId))?.isRevoked).toBe(true);
  });

  it('tells a shop\'s buyer (the shop refunds) and leaves orders refunded before the cancellation alone', async () => {
    const { fixture, deps, refunds, pay } = await setUp();
    const earlier = await pay('stripe', 'cs_test_earlier', 'bea@example.com');
    await cancelOrder(deps, actor('admin'), earlier, fixture.deps.now().toISOString());
    const refundedBefore = (await fixture.stores.orders.getOrder(earlier.id))!;
    const shop = await pay('shop', 'shop-cancel', 'cy@example.com');
    const since = new Date(fixture.deps.now().getTime() + 1).toISOString();
    expect(await cancelOrder(deps, actor('admin'), shop, since)).toBe('told');
    expect(await cancelOrder(deps, actor('admin'), (await fixture.stores.orders.getOrder(shop.id))!, since)).toBe('untouched');
    expect(await fixture.stores.orders.getOrder(shop.id)).toMatchObject({ status: 'paid', emailKind: 'cancelled' });
    expect(await cancelOrder(deps, actor('admin'), refundedBefore, since)).toBe('untouched');
    expect(refunds).toHaveLength(1);
  });

  it('tells a buyer of the cancellation once when Stripe\'s refund webhook moves the order before the job, and a shop buyer told already of the shop\'s refund', async () => {
    const { fixture, deps, pay } = await setUp();
    const stripeOrder = await pay('stripe', 'cs_test_crossed', 'dee@example.com');
    const shopOrder = await pay('shop', 'shop-crossed', 'eli@example.com');
    const event = (await fixture.stores.events.getEvent(stripeOrder.eventId))!;
    const since = fixture.deps.now().toISOString();
    expect(await fixture.stores.events.cancelEvent(event.id, { at: since, reason: 'Storm', closedSale: null })).toBe(true);
    // Stripe's charge.refunded (the job's refund, its answer not yet back) arrives first: the buyer is owed the show's notice.
    const refundBody = (order: typeof stripeOrder) => ({ type: 'order.refunded' as const, orderId: order.orderId, eventId: order.eventId, email: order.email, quantity: order.quantity });
    await orderRefunded(fixture.deps, actor('stripe'), refundBody(stripeOrder));
    const crossed = (await fixture.stores.orders.getOrder(stripeOrder.id))!;
    expect(crossed).toMatchObject({ status: 'refunded', emailKind: 'cancelled' });
    expect(await cancelOrder(deps, actor('admin'), crossed, since)).toBe('untouched');
    expect((await fixture.stores.orders.getOrder(stripeOrder.id))!.emailRequest).toBe(crossed.emailRequest);
    // The shop's buyer, told by the job, then refunded by the shop: that refund is news.
    expect(await cancelOrder(deps, actor('admin'), shopOrder, since)).toBe('told');
    await orderRefunded(fixture.deps, actor('shop'), refundBody(shopOrder));
    expect(await fixture.stores.orders.getOrder(shopOrder.id)).toMatchObject({ status: 'refunded', emailKind: 'refund' });
  });
});
