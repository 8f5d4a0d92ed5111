import { describe, expect, it } from 'vitest';
import { orderKeyId, orderPaid, orderRefunded, orderWebhookBody, SALES_STEP_STALE_MS, settleStaleSalesSteps } from '../../functions/domain/commerce';
import { Contended } from '../../functions/domain/errors';
import { eventDetails, saleLink, salesView } from '../../functions/domain/events';
import type { EventRecord } from '../../functions/domain/records';
import { actor, domainFixture } from '../support/domain-fixture';
import { sampleEvent } from '../support/store-records';

const NOW = new Date('2026-11-24T18:00:00.000Z');
const sale = { open: true, priceMinor: 1500, currency: 'eur', capacity: 100, maxPerOrder: 4 };
const onAir = (fields: Partial<EventRecord> = {}) => sampleEvent({ startsAt: '2026-11-24T19:00:00.000Z', endsAt: '2026-11-24T21:00:00.000Z', isActive: true, ...fields });

describe('the sales view', () => {
  it('shows an event not sold here with nulls and zeros', () => {
    expect(salesView(onAir({ sale: null }), NOW)).toEqual({
      onSale: false,
      priceMinor: null,
      currency: null,
      capacity: null,
      ticketsSold: 0,
      ticketsHeld: 0,
      ticketsLeft: null,
      revenueMinor: 0,
      refundedMinor: 0,
      orders: 0,
    });
  });

  it('gives the counters as they are, the capacity less what checkouts took (never below none), and whether it sells now', () => {
    const counted = { ticketsTaken: 30, ticketsHeld: 4, ticketsSold: 38, paidOrders: 20, revenueMinor: 52_000, refundedMinor: 3_000 };
    expect(salesView(onAir({ sale, ...counted }), NOW)).toEqual({
      onSale: true,
      priceMinor: 1500,
      currency: 'eur',
      capacity: 100,
      ticketsSold: 38,
      ticketsHeld: 4,
      ticketsLeft: 70,
      revenueMinor: 52_000,
      refundedMinor: 3_000,
      orders: 20,
    });
    expect(salesView(onAir({ sale: { ...sale, capacity: 20 }, ticketsTaken: 30 }), NOW).ticketsLeft).toBe(0);
    expect(salesView(onAir({ sale: { ...sale, capacity: null } }), NOW).ticketsLeft).toBeNull();
    expect(salesView(onAir({ sale: { ...sale, open: false } }), NOW).onSale).toBe(false);
    expect(salesView(onAir({ sale, isActive: false }), NOW).onSale).toBe(false);
  });

  it('links the sale page, and the event details carry the figures and the live sessions the presence counters estimate', async () => {
    expect(saleLink('https://tickets.example.com', 'ev 1')).toBe('https://tickets.example.com/?event=ev%201');
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: { sale, ticketsSold: 2, paidOrders: 1, revenueMinor: 3000 } });
    const details = await eventDetails(fixture.deps, event, 'rtmp://ingest.example.com/live');
    expect(details.sales).toMatchObject({ ticketsSold: 2, orders: 1, revenueMinor: 3000, capacity: 100 });
    expect(details.liveSessions).toBe(details.stats.activeViewers);
  });
});

describe('sales figures when a writer dies between its writes', () => {
  const paidBody = (eventId: string, orderId: string) => orderWebhookBody.parse({ type: 'order.paid', orderId, eventId, email: 'ada@example.com', quantity: 2, amountMinor: 3000, currency: 'eur' });
  const figures = async (fixture: ReturnType<typeof domainFixture>, eventId: string) => {
    const { ticketsSold, paidOrders, revenueMinor, refundedMinor } = (await fixture.stores.events.getEvent(eventId))!;
    return { ticketsSold: ticketsSold ?? 0, paidOrders: paidOrders ?? 0, revenueMinor: revenueMinor ?? 0, refundedMinor: refundedMinor ?? 0 };
  };

  it('a refund arriving while the payment\'s writer still counts the sale waits for it, then counts once', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: { sale } });
    const countSale = fixture.stores.events.countSale.bind(fixture.stores.events);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    fixture.stores.events.countSale = async (...args) => {
      await held;
      return countSale(...args);
    };
    const paying = orderPaid(fixture.deps, actor('shop'), paidBody(event.id, 'slow-1'));
    await expect.poll(async () => (await fixture.stores.orders.getOrder(orderKeyId('shop', 'slow-1')))?.salesStep).toBe('paid');
    // The order reads paid, its count under way: the refund comes now, and the writer finishes a moment later.
    const refunding = orderRefunded(fixture.deps, actor('shop'), { ...paidBody(event.id, 'slow-1'), type: 'order.refunded' });
    setTimeout(release, 200);
    await paying;
    await expect(refunding).resolves.toMatchObject({ changed: 'refunded' });
    expect(await figures(fixture, event.id)).toEqual({ ticketsSold: 0, paidOrders: 0, revenueMinor: 0, refundedMinor: 3000 });
  });

  it('after the order turned paid: a fresh step is its writer\'s, a stale one a replay ends, once', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: { sale } });
    const countSale = fixture.stores.events.countSale.bind(fixture.stores.events);
    fixture.stores.events.countSale = async () => {
      throw new Error('the function died');
    };
    await expect(orderPaid(fixture.deps, actor('shop'), paidBody(event.id, 'dies-1'))).rejects.toThrow('the function died');
    fixture.stores.events.countSale = countSale;
    expect(await fixture.stores.orders.getOrder(orderKeyId('shop', 'dies-1'))).toMatchObject({ status: 'paid', salesStep: 'paid' });
    // Its writer may be alive still: a replay leaves the step to it, and a refund waits (the shop delivers it again).
    expect((await orderPaid(fixture.deps, actor('shop'), paidBody(event.id, 'dies-1'))).changed).toBeNull();
    expect(await figures(fixture, event.id)).toEqual({ ticketsSold: 0, paidOrders: 0, revenueMinor: 0, refundedMinor: 0 });
    await expect(orderRefunded(fixture.deps, actor('shop'), { ...paidBody(event.id, 'dies-1'), type: 'order.refunded' })).rejects.toBeInstanceOf(Contended);

    fixture.advance(SALES_STEP_STALE_MS / 1000 + 1);
    await Promise.all([1, 2, 3].map(() => orderPaid(fixture.deps, actor('shop'), paidBody(event.id, 'dies-1'))));
    expect(await figures(fixture, event.id)).toEqual({ ticketsSold: 2, paidOrders: 1, revenueMinor: 3000, refundedMinor: 0 });
    expect((await fixture.stores.orders.getOrder(orderKeyId('shop', 'dies-1')))!.salesStep).toBeNull();
    await orderRefunded(fixture.deps, actor('shop'), { ...paidBody(event.id, 'dies-1'), type: 'order.refunded' });
    expect(await figures(fixture, event.id)).toEqual({ ticketsSold: 0, paidOrders: 0, revenueMinor: 0, refundedMinor: 3000 });
  });

  it('after the event counted, before the order agreed: the sweep ends the step without counting again', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode({ event: { sale } });
    const updateOrder = fixture.stores.orders.updateOrder.bind(fixture.stores.orders);
    fixture.stores.orders.updateOrder = async (id, expect, changes, now) => {
      if (changes.salesStep === null) throw new Error('the function died');
      return updateOrder(id, expect, changes, now);
    };
    await expect(orderPaid(fixture.deps, actor('shop'), paidBody(event.id, 'dies-2'))).rejects.toThrow('the function died');
    // A refund of an order never paid records no order, and counts nothing.
    await expect(orderRefunded(fixture.deps, actor('shop'), { ...paidBody(event.id, 'dies-3'), type: 'order.refunded' })).resolves.toBeNull();
    fixture.stores.orders.updateOrder = updateOrder;
    expect(await figures(fixture, event.id)).toEqual({ ticketsSold: 2, paidOrders: 1, revenueMinor: 3000, refundedMinor: 0 });

    expect(await settleStaleSalesSteps(fixture.deps)).toEqual([]);
    fixture.advance(SALES_STEP_STALE_MS / 1000 + 1);
    const runs = await Promise.all([settleStaleSalesSteps(fixture.deps), settleStaleSalesSteps(fixture.deps)]);
    expect(runs.flat()).toEqual([orderKeyId('shop', 'dies-2')]);
    expect(await figures(fixture, event.id)).toEqual({ ticketsSold: 2, paidOrders: 1, revenueMinor: 3000, refundedMinor: 0 });
    expect(await fixture.stores.orders.listStaleSalesSteps({ before: fixture.now().toISOString(), limit: 10 })).toEqual([]);
  });
});
