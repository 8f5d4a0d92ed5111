import { describe, expect, it } from 'vitest';
import { startCheckout } from '../../functions/domain/commerce';
import { SETTLE_AFTER_MINUTES, settleStaleCheckouts } from '../../functions/domain/commerce';
import { Conflict, PaymentsUnavailable } from '../../functions/domain/errors';
import type { Stores } from '../../functions/compose/stores';
import { stripeEventOrder } from '../../functions/domain/commerce';
import { domainFixture } from '../support/domain-fixture';
import { fakeCheckoutSessions as provider } from '../support/fake-checkout-sessions';

/**
 * A function that dies between two writes of a checkout (its record, the event's ticket count) leaves
 * nothing the sweep cannot repair: after it, every seat is on sale again or held by exactly one checkout,
 * however often the sweep and Stripe's webhook run afterwards, and in parallel.
 */
const CAPACITY = 6;
const onSale = { sale: { open: true, priceMinor: 2000, currency: 'eur', capacity: CAPACITY, maxPerOrder: 5 } };
const request = { ip: '198.51.100.7', siteUrl: 'https://tickets.example.com' };

class ProcessDied extends Error {}

/**
 * The stores as a function sees them that dies right after its `nth` call of `store.method` applied:
 * that call's write stands, and from then on nothing of that function reaches the table (its catch
 * blocks included), as when Lambda's process is killed.
 */
function dyingAfter(stores: Stores, store: 'orders' | 'events', method: string, nth = 1): { stores: Stores; died: () => boolean } {
  let calls = 0;
  let dead = false;
  const wrap = <T extends object>(port: T, name: string): T =>
    new Proxy(port, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (dead) throw new ProcessDied('the process is gone');
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (name === store && key === method && ++calls === nth) {
            dead = true;
            throw new ProcessDied(`killed after ${store}.${method}`);
          }
          return result;
        };
      },
    });
  const wrapped = Object.fromEntries(Object.entries(stores).map(([name, port]) => [name, wrap(port as object, name)])) as unknown as Stores;
  return { stores: wrapped, died: () => dead };
}

async function setup() {
  const fixture = domainFixture();
  const { event } = await fixture.eventWithCode({ event: onSale });
  const stripe = provider(fixture.now);
  const taken = async () => (await fixture.stores.events.getEvent(event.id))!.ticketsTaken ?? 0;
  const buy = (stores: Stores, email: string, quantity: number) =>
    startCheckout({ ...fixture.deps, stores }, stripe.api, { eventId: event.id, email, quantity }, request);
  /** Sweeps after the fence, twice at once and once more: what is settled is settled once. */
  const sweepTwice = async () => {
    fixture.advance((SETTLE_AFTER_MINUTES + 1) * 60);
    const runs = await Promise.all([settleStaleCheckouts(fixture.deps, stripe.api), settleStaleCheckouts(fixture.deps, stripe.api)]);
    await settleStaleCheckouts(fixture.deps, stripe.api);
    return runs;
  };
  /** Every seat on sale: the whole capacity sells, and not one more. */
  const sellsOut = async () => {
    await buy(fixture.stores, 'last@example.com', CAPACITY - 1);
    await buy(fixture.stores, 'last@example.com', 1);
    await expect(buy(fixture.stores, 'one-more@example.com', 1)).rejects.toEqual(new Conflict('sold-out'));
    expect(await taken()).toBe(CAPACITY);
  };
  return { fixture, event, stripe, taken, buy, sweepTwice, sellsOut };
}

describe('a checkout whose function dies between its writes', () => {
  // Each write of `POST /api/checkout` up to asking Stripe: the record, the take, the record agreeing, the mark dropped.
  it.each([
    ['orders', 'createCheckout'],
    ['events', 'takeTickets'],
    ['orders', 'advanceCheckout'],
    ['events', 'forgetCheckout'],
  ] as const)('dying right after %s.%s, its seats go back on sale once the sweep ran, and only once', async (store, method) => {
    const t = await setup();
    const dying = dyingAfter(t.fixture.stores, store, method);
    await expect(t.buy(dying.stores, 'gone@example.com', 2)).rejects.toBeInstanceOf(ProcessDied);
    expect(dying.died()).toBe(true);
    expect(t.stripe.sessions.size).toBe(0);
    const runs = await t.sweepTwice();
    expect(runs.flatMap((run) => run.failed)).toEqual([]);
    expect(await t.taken()).toBe(0);
    const [record] = [...(await t.fixture.stores.orders.listHeldCheckouts({ before: '9999', limit: 10 }))];
    expect(record).toBeUndefined();
    await t.sellsOut();
  });

  // Each write of an expired session's release (Stripe's webhook): the record, the count given back, the record agreeing, the mark dropped.
  it.each([
    ['orders', 'moveCheckout'],
    ['events', 'releaseTickets'],
    ['orders', 'advanceCheckout'],
    ['events', 'forgetCheckout'],
  ] as const)('dying right after %s.%s while releasing an expired checkout, its seats go back once', async (store, method) => {
    const t = await setup();
    await t.buy(t.fixture.stores, 'kept@example.com', 1);
    await t.buy(t.fixture.stores, 'expires@example.com', 2);
    expect(await t.taken()).toBe(3);
    const expired = Object.assign([...t.stripe.sessions.values()][1]!, { status: 'expired' });
    const webhook = { type: 'checkout.session.expired', data: { object: expired } };
    const dying = dyingAfter(t.fixture.stores, store, method);
    await expect(stripeEventOrder({ ...t.fixture.deps, stores: dying.stores }, '192.0.2.7', webhook)).rejects.toBeInstanceOf(ProcessDied);
    // Stripe delivers again (the endpoint failed): the record moved already, so the delivery changes nothing.
    expect(await stripeEventOrder(t.fixture.deps, '192.0.2.7', webhook)).toEqual({ released: false });
    await t.sweepTwice();
    await stripeEventOrder(t.fixture.deps, '192.0.2.7', webhook);
    // The kept one's seat stays held by it (its session still open, Stripe's to settle); the other two are back.
    expect(await t.taken()).toBe(1);
    expect(await t.fixture.stores.orders.getCheckout(expired.id)).toMatchObject({ status: 'released' });
    expect((await t.fixture.stores.orders.getCheckout(expired.id))!.pending).toBeUndefined();
    await t.buy(t.fixture.stores, 'next@example.com', CAPACITY - 1);
    await expect(t.buy(t.fixture.stores, 'one-more@example.com', 1)).rejects.toEqual(new Conflict('sold-out'));
  });

  it('a take whose answer was lost (sent again by the retry) holds the seats once', async () => {
    const t = await setup();
    // The first take applies and its answer is lost; the checkout's retry of the same take finds its own mark.
    const events = t.fixture.stores.events;
    let lost = false;
    const stores = {
      ...t.fixture.stores,
      events: new Proxy(events, {
        get: (target, key) =>
          key === 'takeTickets'
            ? async (...args: Parameters<typeof events.takeTickets>) => {
                const took = await target.takeTickets(...args);
                if (lost) return took;
                lost = true;
                return target.takeTickets(...args);
              }
            : (Reflect.get(target, key) as unknown as () => unknown).bind(target),
      }),
    } as Stores;
    await t.buy(stores, 'once@example.com', 2);
    expect(await t.taken()).toBe(2);
  });
});
