import { describe, expect, it } from 'vitest';
import { startCheckout, type CheckoutSessions } from '../../functions/domain/commerce';
import { Conflict, PaymentsUnavailable } from '../../functions/domain/errors';
import { domainFixture } from '../support/domain-fixture';

const onSale = { sale: { open: true, priceMinor: 2000, currency: 'eur', capacity: 5, maxPerOrder: 5 } };
const request = { ip: '198.51.100.7', siteUrl: 'https://tickets.example.com' };
const failing = (created: boolean): CheckoutSessions => ({
  create: async () => {
    throw new PaymentsUnavailable(created);
  },
  retrieve: async () => null,
});

describe('checkout when Stripe fails', () => {
  it('gives the tickets back when Stripe refused (no session exists)', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: onSale });
    await expect(startCheckout(fixture.deps, failing(false), { eventId: event.id, email: 'a@example.com', quantity: 3 }, request)).rejects.toBeInstanceOf(PaymentsUnavailable);
    expect((await fixture.stores.events.getEvent(event.id))!.ticketsTaken).toBe(0);
  });

  it('keeps them held when Stripe did not answer (a session may exist), recorded with the request for the checkout sweep', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: onSale });
    await expect(startCheckout(fixture.deps, failing(true), { eventId: event.id, email: 'a@example.com', quantity: 3 }, request)).rejects.toBeInstanceOf(PaymentsUnavailable);
    expect((await fixture.stores.events.getEvent(event.id))!.ticketsTaken).toBe(3);
    const [unanswered] = await fixture.stores.orders.listHeldCheckouts({ before: '9999', limit: 10 });
    expect(unanswered).toMatchObject({ sessionId: expect.stringMatching(/^unanswered:checkout-/), quantity: 3, request: { eventId: event.id, email: 'a@example.com', quantity: 3 } });
    const opened: CheckoutSessions = { create: async () => ({ id: 'cs_test_1', url: 'https://checkout.stripe.com/c/pay/cs_test_1' }), retrieve: async () => null };
    await expect(startCheckout(fixture.deps, opened, { eventId: event.id, email: 'b@example.com', quantity: 3 }, request)).rejects.toEqual(new Conflict('sold-out'));
  });

  it('refuses a buyer the read already finds too few tickets for, before writing anything', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: onSale });
    const opened: CheckoutSessions = { create: async () => ({ id: 'cs_test_1', url: 'https://checkout.stripe.com/c/pay/cs_test_1' }), retrieve: async () => null };
    await startCheckout(fixture.deps, opened, { eventId: event.id, email: 'a@example.com', quantity: 4 }, request);
    const recorded: string[] = [];
    const orders = fixture.stores.orders;
    const watched = { ...fixture.deps, stores: { ...fixture.stores, orders: Object.assign(Object.create(orders), { createCheckout: (checkout: { sessionId: string }) => (recorded.push(checkout.sessionId), orders.createCheckout(checkout as never)) }) } };
    await expect(startCheckout(watched, opened, { eventId: event.id, email: 'b@example.com', quantity: 2 }, request)).rejects.toEqual(new Conflict('sold-out'));
    expect(recorded).toEqual([]);
    expect((await fixture.stores.events.getEvent(event.id))!.ticketsTaken).toBe(4);
  });

  it('closes the record of a buyer whose take the table refused, without a write to the event', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: onSale });
    const opened: CheckoutSessions = { create: async () => ({ id: 'cs_test_1', url: 'https://checkout.stripe.com/c/pay/cs_test_1' }), retrieve: async () => null };
    await startCheckout(fixture.deps, opened, { eventId: event.id, email: 'a@example.com', quantity: 4 }, request);
    // The crowd's loser read the sale before the winner's take: its own take is the write that refuses it.
    const before = (await fixture.stores.events.getEvent(event.id))!;
    const eventWrites: string[] = [];
    const events = fixture.stores.events;
    const racing = Object.assign(Object.create(events), {
      getEvent: async (id: string) => ({ ...(await events.getEvent(id))!, ticketsTaken: 0 }),
      releaseTickets: (...args: Parameters<typeof events.releaseTickets>) => (eventWrites.push('releaseTickets'), events.releaseTickets(...args)),
      forgetCheckout: (...args: Parameters<typeof events.forgetCheckout>) => (eventWrites.push('forgetCheckout'), events.forgetCheckout(...args)),
    });
    const recorded: string[] = [];
    const orders = fixture.stores.orders;
    const watchedOrders = Object.assign(Object.create(orders), { createCheckout: (checkout: { sessionId: string }) => (recorded.push(checkout.sessionId), orders.createCheckout(checkout as never)) });
    const deps = { ...fixture.deps, stores: { ...fixture.stores, events: racing, orders: watchedOrders } };
    await expect(startCheckout(deps, opened, { eventId: event.id, email: 'b@example.com', quantity: 2 }, request)).rejects.toEqual(new Conflict('sold-out'));
    expect(eventWrites).toEqual([]);
    expect(await orders.getCheckout(recorded[0]!)).toMatchObject({ status: 'released' });
    expect((await events.getEvent(event.id))!.ticketsTaken).toBe(before.ticketsTaken);
  });

  it('stops selling when the access window is over, whatever the sale says', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: onSale });
    fixture.advance(30 * 24 * 3600);
    await expect(startCheckout(fixture.deps, failing(false), { eventId: event.id, email: 'a@example.com', quantity: 1 }, request)).rejects.toEqual(new Conflict('not-on-sale'));
  });
});
