import { describe, expect, it } from 'vitest';
import { startCheckout } from '../../functions/domain/commerce';
import { SETTLE_AFTER_MINUTES, settleStaleCheckouts } from '../../functions/domain/commerce';
import { orderKeyId } from '../../functions/domain/commerce';
import { stripeEventOrder } from '../../functions/domain/commerce';
import { PaymentsUnavailable } from '../../functions/domain/errors';
import { domainFixture } from '../support/domain-fixture';
import { fakeCheckoutSessions as provider } from '../support/fake-checkout-sessions';

const onSale = { sale: { open: true, priceMinor: 2000, currency: 'eur', capacity: 6, maxPerOrder: 5 } };
const request = { ip: '198.51.100.7', siteUrl: 'https://tickets.example.com' };

describe('the checkout sweep', () => {
  it("settles the checkouts Stripe's webhook left held, through the webhook's own path, once", async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: onSale });
    const stripe = provider(fixture.now);
    const buy = async (email: string, quantity: number) => {
      await startCheckout(fixture.deps, stripe.api, { eventId: event.id, email, quantity }, request);
      return [...stripe.sessions.values()].at(-1)!;
    };
    const abandoned = await buy('a@example.com', 1);
    const paid = await buy('b@example.com', 2);
    const open = await buy('c@example.com', 1);
    const unknown = await buy('d@example.com', 1);
    const taken = async () => (await fixture.stores.events.getEvent(event.id))!.ticketsTaken;
    expect(await taken()).toBe(5);
    // Stripe's side moved on; none of its webhooks reached the API.
    Object.assign(abandoned, { status: 'expired' });
    Object.assign(paid, { status: 'complete', payment_status: 'paid', payment_intent: 'pi_test_1', customer_details: { email: 'b@example.com' } });
    stripe.sessions.delete(unknown.id);

    // Within the session's life and the webhook's grace, Stripe's webhook is still the one to settle them.
    fixture.advance(40 * 60);
    expect(await settleStaleCheckouts(fixture.deps, stripe.api)).toEqual({ released: [], repaired: [], paid: [], waiting: [], found: [], failed: [] });

    fixture.advance(10 * 60);
    const swept = await settleStaleCheckouts(fixture.deps, stripe.api);
    expect(swept.released.sort()).toEqual([abandoned.id, unknown.id].sort());
    expect(swept.waiting).toEqual([open.id]);
    expect(swept.failed).toEqual([]);
    expect(swept.paid).toHaveLength(1);
    expect(swept.paid[0]!).toMatchObject({ changed: 'paid', order: { orderId: paid.id, email: 'b@example.com', quantity: 2 } });
    const order = (await fixture.stores.orders.getOrder(orderKeyId('stripe', paid.id)))!;
    expect(order.codes).toHaveLength(2);
    expect(await fixture.stores.orders.orderOfPayment('pi_test_1')).toBe(order.id);
    expect((await fixture.stores.orders.getCheckout(paid.id))!.status).toBe('paid');
    expect(await taken()).toBe(3);

    // Run again, and the webhooks arriving after all: nothing moves twice.
    expect(await settleStaleCheckouts(fixture.deps, stripe.api)).toEqual({ released: [], repaired: [], paid: [], waiting: [open.id], found: [], failed: [] });
    expect(await stripeEventOrder(fixture.deps, '192.0.2.7', { type: 'checkout.session.expired', data: { object: abandoned } })).toEqual({ released: false });
    expect(await stripeEventOrder(fixture.deps, '192.0.2.7', { type: 'checkout.session.completed', data: { object: paid } })).toMatchObject({ changed: null });
    expect(await taken()).toBe(3);
    expect((await fixture.stores.orders.getOrder(order.id))!.codes).toEqual(order.codes);
  });

  it('leaves a checkout held when Stripe does not answer, and settles it on a later run', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: onSale });
    const stripe = provider(fixture.now);
    await startCheckout(fixture.deps, stripe.api, { eventId: event.id, email: 'a@example.com', quantity: 2 }, request);
    const session = [...stripe.sessions.values()][0]!;
    Object.assign(session, { status: 'expired' });
    fixture.advance(50 * 60);
    stripe.fail(true);
    const failed = await settleStaleCheckouts(fixture.deps, stripe.api);
    expect(failed.failed.map((each) => each.sessionId)).toEqual([session.id]);
    expect((await fixture.stores.events.getEvent(event.id))!.ticketsTaken).toBe(2);
    stripe.fail(false);
    expect((await settleStaleCheckouts(fixture.deps, stripe.api)).released).toEqual([session.id]);
    expect((await fixture.stores.events.getEvent(event.id))!.ticketsTaken).toBe(0);
  });

  it('finds the session of a checkout Stripe did not answer, or proves there is none, with its idempotency key', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: onSale });
    const stripe = provider(fixture.now);
    const buy = (email: string, quantity: number) => startCheckout(fixture.deps, stripe.api, { eventId: event.id, email, quantity }, request);
    stripe.lose('made');
    await expect(buy('a@example.com', 2)).rejects.toBeInstanceOf(PaymentsUnavailable);
    stripe.lose('not made');
    await expect(buy('b@example.com', 3)).rejects.toBeInstanceOf(PaymentsUnavailable);
    const taken = async () => (await fixture.stores.events.getEvent(event.id))!.ticketsTaken;
    // Either may exist: both keep their tickets.
    expect(await taken()).toBe(5);
    const made = [...stripe.sessions.values()][0]!;
    expect(stripe.sessions.size).toBe(1);

    fixture.advance((SETTLE_AFTER_MINUTES + 1) * 60);
    const swept = await settleStaleCheckouts(fixture.deps, stripe.api);
    expect(swept).toMatchObject({ found: [made.id], released: [expect.stringMatching(/^unanswered:/)], paid: [], failed: [] });
    // The one never made gave its tickets back; the one made holds its own, as any checkout.
    expect(await taken()).toBe(2);
    expect((await fixture.stores.orders.getCheckout(made.id))!).toMatchObject({ status: 'held', email: 'a@example.com', quantity: 2 });
    expect(stripe.sessions.size).toBe(1);

    // Paid in the meantime, with no webhook: the next run makes its order.
    Object.assign(made, { status: 'complete', payment_status: 'paid', payment_intent: 'pi_test_9', customer_details: { email: 'a@example.com' } });
    const next = await settleStaleCheckouts(fixture.deps, stripe.api);
    expect(next).toMatchObject({ found: [], released: [], failed: [] });
    expect(next.paid.map((each) => each.order.orderId)).toEqual([made.id]);
    expect(await taken()).toBe(2);
    expect(await settleStaleCheckouts(fixture.deps, stripe.api)).toEqual({ released: [], repaired: [], paid: [], waiting: [], found: [], failed: [] });
  });
});
