import { describe, expect, it } from 'vitest';
import { InvalidCursor } from '../../functions/domain/errors';
import type { OrderRecord } from '../../functions/domain/commerce';
import { randomId } from '../../functions/domain/random';
import { storesForSuite, type StoreFactory } from '../support/store-under-test';

const at = (offsetMs: number) => new Date(Date.parse('2026-11-24T18:00:00.000Z') + offsetMs).toISOString();

function order(eventId: string, offsetMs: number, fields: Partial<OrderRecord> = {}): OrderRecord {
  const id = randomId(22);
  return {
    id,
    source: 'shop',
    orderId: `order-${id}`,
    eventId,
    email: 'buyer@example.com',
    quantity: 2,
    amountMinor: 2400,
    currency: 'eur',
    status: 'issuing',
    failure: null,
    codes: ['ABCDEFGHJKLM', 'NPQRSTUVWXYZ'],
    codeIds: [`${id}-1`, `${id}-2`],
    createdAt: at(offsetMs),
    updatedAt: at(offsetMs),
    emailKind: null,
    emailStatus: null,
    emailRequest: null,
    emailAttempts: 0,
    emailError: null,
    emailSentAt: null,
    ...fields,
  };
}

/** The orders port (functions/domain/commerce/order-store.ts) on every implementation. */
export function describeOrderStoreContract(name: string, open: StoreFactory) {
  describe(`Store orders on ${name}`, () => {
    const stores = storesForSuite(open);

    it('records an order once: a second create answers the first, unchanged', async () => {
      const first = order(randomId(), 0);
      expect(await stores.orders.createOrder(first)).toEqual({ created: true, order: first });
      const again = await stores.orders.createOrder({ ...first, email: 'someone@example.com', codes: ['X'] });
      expect(again).toEqual({ created: false, order: first });
      expect(await stores.orders.getOrder(first.id)).toEqual(first);
      expect(await stores.orders.getOrder(randomId(22))).toBeNull();
    });

    it('changes an order only on the sales step it saw, and lists the orders whose step is older than asked', async () => {
      const first = order(randomId(), 0);
      await stores.orders.createOrder(first);
      // Null: none, and an order made before the field has none.
      expect(await stores.orders.updateOrder(first.id, { from: ['issuing'], salesStep: 'paid' }, { status: 'paid' }, at(1))).toBeNull();
      const asked = { status: 'paid', salesStep: 'paid', salesStepAt: at(1), checkoutHeld: true } as const;
      const paid = await Promise.all([1, 2, 3].map(() => stores.orders.updateOrder(first.id, { from: ['issuing'], salesStep: null }, asked, at(1))));
      expect(paid.filter(Boolean)).toHaveLength(1);
      expect(await stores.orders.getOrder(first.id)).toEqual({ ...first, ...asked, updatedAt: at(1) });
      const listed = async (before: string) => (await stores.orders.listStaleSalesSteps({ before, limit: 100 })).map((listedOrder) => listedOrder.id).filter((id) => id === first.id);
      expect(await listed(at(1))).toEqual([]);
      expect(await listed(at(2))).toEqual([first.id]);
      // A claim moves it on in the listing; only the claimer's step ends it.
      const claims = await Promise.all([1, 2].map(() => stores.orders.updateOrder(first.id, { from: ['paid'], salesStep: 'paid', salesStepAt: at(1) }, { salesStepAt: at(5) }, at(5))));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await listed(at(2))).toEqual([]);
      expect(await listed(at(6))).toEqual([first.id]);
      expect(await stores.orders.updateOrder(first.id, { from: ['paid'], salesStep: 'paid', salesStepAt: at(1) }, { salesStep: null, salesStepAt: null }, at(6))).toBeNull();
      const done = await stores.orders.updateOrder(first.id, { from: ['paid'], salesStep: 'paid', salesStepAt: at(5) }, { salesStep: null, salesStepAt: null }, at(6));
      expect(done).toEqual({ ...first, ...asked, salesStep: null, salesStepAt: null, updatedAt: at(6) });
      expect(await listed(at(9))).toEqual([]);
    });

    it("lists a buyer's orders of an event, newest first, whatever the case of the address", async () => {
      const eventId = randomId();
      const older = order(eventId, 0, { email: 'Ada@Example.com' });
      const newer = order(eventId, 1000, { email: 'ada@example.com' });
      await Promise.all([older, newer, order(eventId, 500, { email: 'bob@example.com' }), order(randomId(), 0, { email: 'ada@example.com' })].map((each) => stores.orders.createOrder(each)));
      const listed = ({ id, status, codes }: OrderRecord) => ({ id, status, codes });
      expect(await stores.orders.listBuyerOrders({ eventId, email: 'ADA@example.com', limit: 10 })).toEqual([listed(newer), listed(older)]);
      expect(await stores.orders.listBuyerOrders({ eventId, email: 'ada@example.com', limit: 1 })).toEqual([listed(newer)]);
      expect(await stores.orders.listBuyerOrders({ eventId, email: 'eve@example.com', limit: 10 })).toEqual([]);
    });

    it('of parallel creates, exactly one records the order', async () => {
      const first = order(randomId(), 0);
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => stores.orders.createOrder(first)));
      expect(outcomes.filter((outcome) => outcome.created)).toHaveLength(1);
      for (const outcome of outcomes) expect(outcome.order).toEqual(first);
    });

    it('changes an order only from the status (and email request) the caller saw', async () => {
      const first = order(randomId(), 0);
      await stores.orders.createOrder(first);
      expect(await stores.orders.updateOrder(first.id, { from: ['paid'] }, { status: 'refunded' }, at(1))).toBeNull();
      const paid = await stores.orders.updateOrder(first.id, { from: ['issuing'] }, { status: 'paid', emailStatus: 'pending', emailRequest: 'r1', emailKind: 'tickets' }, at(1));
      expect(paid).toEqual({ ...first, status: 'paid', emailStatus: 'pending', emailRequest: 'r1', emailKind: 'tickets', updatedAt: at(1) });
      const parallel = await Promise.all(Array.from({ length: 5 }, () => stores.orders.updateOrder(first.id, { from: ['issuing'] }, { status: 'paid' }, at(2))));
      expect(parallel.every((outcome) => outcome === null)).toBe(true);
      expect(await stores.orders.updateOrder(first.id, { from: ['paid'], emailRequest: 'old' }, { emailStatus: 'sent' }, at(3))).toBeNull();
      const sent = await stores.orders.updateOrder(first.id, { from: ['paid'], emailRequest: 'r1' }, { emailStatus: 'sent', emailSentAt: at(3), emailError: null }, at(3));
      expect(sent).toMatchObject({ emailStatus: 'sent', emailSentAt: at(3), emailError: null, updatedAt: at(3) });
      expect(await stores.orders.updateOrder(randomId(22), { from: ['paid'] }, { status: 'refunded' }, at(4))).toBeNull();
    });

    it('swaps a planned code only where the line still plans it', async () => {
      const first = order(randomId(), 0);
      await stores.orders.createOrder(first);
      expect(await stores.orders.replacePlannedCode(first.id, 1, 'NOTPLANNED00', 'CCCCCCCCCCCC', at(1))).toBeNull();
      const swapped = await stores.orders.replacePlannedCode(first.id, 1, 'NPQRSTUVWXYZ', 'CCCCCCCCCCCC', at(1));
      expect(swapped?.codes).toEqual(['ABCDEFGHJKLM', 'CCCCCCCCCCCC']);
      expect((await stores.orders.getOrder(first.id))?.codes).toEqual(['ABCDEFGHJKLM', 'CCCCCCCCCCCC']);
    });

    it('remembers which order a payment paid', async () => {
      const ref = `pi_${randomId(20)}`;
      expect(await stores.orders.orderOfPayment(ref)).toBeNull();
      await stores.orders.linkPayment(ref, 'order-a');
      await stores.orders.linkPayment(ref, 'order-a');
      expect(await stores.orders.orderOfPayment(ref)).toBe('order-a');
    });

    it('marks a refund that came before its order was paid, apart from the orders: no order, in no listing', async () => {
      const eventId = randomId();
      const id = randomId(22);
      expect(await stores.orders.refundedBeforePaid(id)).toBe(false);
      await Promise.all([0, 1].map(() => stores.orders.markRefundedBeforePaid(id, at(0))));
      expect(await stores.orders.refundedBeforePaid(id)).toBe(true);
      expect(await stores.orders.refundedBeforePaid(randomId(22))).toBe(false);
      expect(await stores.orders.getOrder(id)).toBeNull();
      expect((await stores.orders.listEventOrders({ eventId, cursor: null, limit: 10 })).orders).toEqual([]);
    });

    it('moves a checkout once from the status asked (or from none), whatever the parallel moves', async () => {
      const checkout = { sessionId: `cs_test_${randomId(20)}`, eventId: randomId(), email: 'buyer@example.com', quantity: 3, createdAt: at(0) };
      expect(await stores.orders.getCheckout(checkout.sessionId)).toBeNull();
      await stores.orders.createCheckout({ ...checkout, status: 'held', updatedAt: at(0) });
      await stores.orders.createCheckout({ ...checkout, quantity: 9, status: 'held', updatedAt: at(1) });
      const moves = await Promise.all([0, 1, 2, 3].map(() => stores.orders.moveCheckout(checkout, ['held', 'absent'], 'released', at(2))));
      expect(moves.filter(Boolean)).toHaveLength(1);
      expect(await stores.orders.getCheckout(checkout.sessionId)).toEqual({ ...checkout, status: 'released', updatedAt: at(2) });
      expect(await stores.orders.moveCheckout(checkout, ['paid'], 'released', at(3))).toBe(false);
      // No record yet (its creator died): the move writes one.
      const unrecorded = { ...checkout, sessionId: `cs_test_${randomId(20)}` };
      expect(await stores.orders.moveCheckout(unrecorded, ['held', 'absent'], 'paid', at(4))).toBe(true);
      expect(await stores.orders.getCheckout(unrecorded.sessionId)).toEqual({ ...unrecorded, status: 'paid', updatedAt: at(4) });
    });

    it('lists the checkouts still held, oldest first, until they move out of held', async () => {
      // Long before every other test's checkouts: the listing is of the whole table.
      const long = (minutes: number) => new Date(Date.parse('2001-01-01T00:00:00.000Z') + minutes * 60_000).toISOString();
      const checkouts = [0, 1, 2, 3, 4].map((minute) => ({ sessionId: `cs_test_${randomId(20)}`, eventId: randomId(), email: 'buyer@example.com', quantity: 1, createdAt: long(minute) }));
      for (const checkout of checkouts.slice(0, 4)) await stores.orders.createCheckout({ ...checkout, status: 'held', updatedAt: checkout.createdAt });
      await stores.orders.moveCheckout(checkouts[4]!, ['held', 'absent'], 'paid', long(5));
      const ids = async (before: string, limit = 10) => (await stores.orders.listHeldCheckouts({ before, limit })).map((each) => each.sessionId);
      expect(await ids(long(3))).toEqual(checkouts.slice(0, 3).map((each) => each.sessionId));
      expect(await ids(long(10), 2)).toEqual(checkouts.slice(0, 2).map((each) => each.sessionId));
      expect(await stores.orders.listHeldCheckouts({ before: long(1), limit: 10 })).toEqual([{ ...checkouts[0], status: 'held', updatedAt: checkouts[0]!.createdAt }]);
      // A checkout Stripe did not answer keeps its request, to be sent again.
      const request = { idempotencyKey: 'checkout-abc', eventId: randomId(), title: 'Night', email: 'buyer@example.com', quantity: 1, priceMinor: 1500, currency: 'eur', successUrl: 'https://example.com/?event=x&checkout={CHECKOUT_SESSION_ID}', cancelUrl: 'https://example.com/?event=x', expiresAt: long(31) };
      const unanswered = { sessionId: `unanswered:${request.idempotencyKey}-${randomId(8)}`, eventId: request.eventId, email: request.email, quantity: 1, status: 'held' as const, createdAt: long(0.5), updatedAt: long(0.5), request };
      await stores.orders.createCheckout(unanswered);
      expect((await stores.orders.listHeldCheckouts({ before: long(1), limit: 10 })).at(-1)).toEqual(unanswered);
      await stores.orders.moveCheckout({ sessionId: unanswered.sessionId, eventId: unanswered.eventId, email: unanswered.email, quantity: 1, createdAt: unanswered.createdAt }, ['held'], 'released', long(6));
      await stores.orders.moveCheckout(checkouts[0]!, ['held'], 'released', long(6));
      await stores.orders.moveCheckout(checkouts[2]!, ['held'], 'paid', long(6));
      expect(await ids(long(10))).toEqual([checkouts[1]!.sessionId, checkouts[3]!.sessionId]);
    });

    it('keeps a checkout waiting for a count step listed, under the time the step was asked for, until the step is done; one claim of it at a time', async () => {
      // Long before every other test's checkouts (and the listing test's): the listing is of the whole table.
      const long = (minutes: number) => new Date(Date.parse('2000-01-01T00:00:00.000Z') + minutes * 60_000).toISOString();
      const checkout = { sessionId: `cs_test_${randomId(20)}`, eventId: randomId(), email: 'buyer@example.com', quantity: 2, createdAt: long(0) };
      const listed = async (before: string) => (await stores.orders.listHeldCheckouts({ before, limit: 50 })).filter((each) => each.sessionId === checkout.sessionId);
      await stores.orders.createCheckout({ ...checkout, status: 'held', updatedAt: long(0), pending: 'take' });
      expect(await listed(long(1))).toEqual([{ ...checkout, status: 'held', updatedAt: long(0), pending: 'take' }]);
      // While a step is pending, no move applies: a webhook cannot release what is not counted yet.
      expect(await stores.orders.moveCheckout(checkout, ['held', 'absent'], 'released', long(1), 'return')).toBe(false);
      expect(await stores.orders.advanceCheckout(checkout.sessionId, 'return', { status: 'released', pending: null }, long(1))).toBe(false);
      const advances = await Promise.all([1, 2, 3].map(() => stores.orders.advanceCheckout(checkout.sessionId, 'take', { status: 'held', pending: null }, long(1))));
      expect(advances.filter(Boolean)).toHaveLength(1);
      // Held: listed under its creation still.
      expect(await listed(long(0.5))).toEqual([{ ...checkout, status: 'held', updatedAt: long(1) }]);
      expect(await stores.orders.moveCheckout(checkout, ['held'], 'released', long(40), 'return')).toBe(true);
      expect(await listed(long(40))).toEqual([]);
      const [waiting] = await listed(long(41));
      expect(waiting).toEqual({ ...checkout, status: 'released', updatedAt: long(40), pending: 'return' });
      // Two sweeps that saw it: one claim applies, and the claim moves it in the listing.
      const claims = await Promise.all([1, 2].map(() => stores.orders.claimCheckout(checkout.sessionId, waiting!.updatedAt, long(90))));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await listed(long(89))).toEqual([]);
      expect(await listed(long(91))).toHaveLength(1);
      expect(await stores.orders.advanceCheckout(checkout.sessionId, 'return', { status: 'released', pending: null }, long(92))).toBe(true);
      expect(await listed(long(100))).toEqual([]);
      expect(await stores.orders.getCheckout(checkout.sessionId)).toEqual({ ...checkout, status: 'released', updatedAt: long(92) });
      // Nothing pending: nothing to claim.
      expect(await stores.orders.claimCheckout(checkout.sessionId, long(92), long(93))).toBe(false);
    });

    it("lists an event's orders newest first, in pages, and refuses another listing's cursor", async () => {
      const eventId = randomId();
      const orders = [0, 1, 2, 3, 4].map((i) => order(eventId, i * 1000));
      for (const each of orders) await stores.orders.createOrder(each);
      await stores.orders.createOrder(order(randomId(), 500));
      const first = await stores.orders.listEventOrders({ eventId, cursor: null, limit: 2 });
      expect(first.orders.map((each) => each.id)).toEqual([orders[4]!.id, orders[3]!.id]);
      const second = await stores.orders.listEventOrders({ eventId, cursor: first.nextCursor, limit: 2 });
      expect(second.orders.map((each) => each.id)).toEqual([orders[2]!.id, orders[1]!.id]);
      const last = await stores.orders.listEventOrders({ eventId, cursor: second.nextCursor, limit: 2 });
      expect(last).toEqual({ orders: [orders[0]], nextCursor: null });
      await expect(stores.orders.listEventOrders({ eventId: randomId(), cursor: first.nextCursor, limit: 2 })).rejects.toBeInstanceOf(InvalidCursor);
      expect(await stores.orders.listEventOrders({ eventId: randomId(), cursor: null, limit: 2 })).toEqual({ orders: [], nextCursor: null });
    });
  });
}
