import { describe, expect, it } from 'vitest';
import { isKnownOrderType, orderWebhookBody } from '../../functions/domain/commerce';
import { orderKeyId, orderPaid, orderRefunded } from '../../functions/domain/commerce';
import { signPayload, verifySignature } from '../../functions/domain/commerce';
import { createHmac } from 'node:crypto';
import { actor, domainFixture } from '../support/domain-fixture';

const SECRET = 'whsec_order_webhook_test';
const BODY = JSON.stringify({ type: 'order.paid', orderId: 'o-1', eventId: 'e1', email: 'ada@example.com', quantity: 1 });

describe('order webhook signature', () => {
  const now = new Date('2026-11-24T18:00:00.000Z');
  const t = Math.floor(now.getTime() / 1000);

  it('is the hex HMAC-SHA256 of "<t>.<raw body>", as openssl computes it', () => {
    const expected = createHmac('sha256', SECRET).update(`${t}.${BODY}`).digest('hex');
    expect(signPayload(SECRET, BODY, now)).toBe(`t=${t},v1=${expected}`);
    expect(verifySignature(SECRET, BODY, `t=${t},v1=${expected}`, now)).toBe(true);
    expect(verifySignature(SECRET, BODY, `t=${t}, v1=${expected.toUpperCase()}`, now)).toBe(true);
  });

  it('refuses another secret, another body, a missing or malformed header', () => {
    const header = signPayload(SECRET, BODY, now);
    expect(verifySignature('another secret', BODY, header, now)).toBe(false);
    expect(verifySignature(SECRET, `${BODY} `, header, now)).toBe(false);
    expect(verifySignature(SECRET, BODY, undefined, now)).toBe(false);
    for (const bad of ['', 'garbage', `t=${t}`, `v1=${'0'.repeat(64)}`, `t=abc,v1=${'0'.repeat(64)}`, `t=${t},v1=`]) {
      expect(verifySignature(SECRET, BODY, bad, now)).toBe(false);
    }
  });

  it('accepts 300 s of age either way, and nothing beyond', () => {
    for (const offset of [-300, 0, 300]) expect(verifySignature(SECRET, BODY, signPayload(SECRET, BODY, new Date(now.getTime() + offset * 1000)), now)).toBe(true);
    for (const offset of [-301, 301]) expect(verifySignature(SECRET, BODY, signPayload(SECRET, BODY, new Date(now.getTime() + offset * 1000)), now)).toBe(false);
  });

  it('accepts one matching v1 among several (a secret being rolled)', () => {
    const good = signPayload(SECRET, BODY, now).split(',')[1];
    expect(verifySignature(SECRET, BODY, `t=${t},v1=${'1'.repeat(64)},${good}`, now)).toBe(true);
  });
});

describe('order webhook body', () => {
  const valid = { type: 'order.paid', orderId: 'o-1', eventId: 'e1', email: 'ada@example.com', quantity: 3, amountMinor: 1500, currency: 'EUR' };

  it('takes the fields of the README and lower-cases the currency', () => {
    expect(orderWebhookBody.parse(valid)).toEqual({ ...valid, currency: 'eur' });
    expect(orderWebhookBody.parse({ ...valid, amountMinor: undefined, currency: undefined })).toMatchObject({ quantity: 3 });
  });

  it('refuses what a shop could get wrong', () => {
    for (const bad of [
      { ...valid, quantity: 0 },
      { ...valid, quantity: 21 },
      { ...valid, quantity: 1.5 },
      { ...valid, email: 'nobody' },
      { ...valid, orderId: '' },
      { ...valid, orderId: 'x'.repeat(201) },
      { ...valid, currency: 'euro' },
      { ...valid, amountMinor: -1 },
    ]) {
      expect(orderWebhookBody.safeParse(bad).success).toBe(false);
    }
  });

  it('tells known types from those to ignore', () => {
    expect(isKnownOrderType(valid)).toBe(true);
    expect(isKnownOrderType({ type: 'order.refunded' })).toBe(true);
    for (const other of [{ type: 'order.updated' }, {}, null, 'x', { type: 7 }]) expect(isKnownOrderType(other)).toBe(false);
  });
});

describe('orders on the in-memory stores', () => {
  it('finishes an order whose first delivery died after recording it, with the planned codes and no duplicate', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode();
    const body = orderWebhookBody.parse({ type: 'order.paid', orderId: 'crash-1', eventId: event.id, email: 'ada@example.com', quantity: 3 });
    // The first delivery recorded the order and issued one code, then the function died.
    const createCode = fixture.stores.codes.createCode.bind(fixture.stores.codes);
    let writes = 0;
    fixture.stores.codes.createCode = async (code) => {
      if (++writes > 1) throw new Error('the function died');
      return createCode(code);
    };
    await expect(orderPaid(fixture.deps, actor('shop'), body)).rejects.toThrow('the function died');
    const recorded = (await fixture.stores.orders.getOrder(orderKeyId('shop', 'crash-1')))!;
    expect(recorded.status).toBe('issuing');
    fixture.stores.codes.createCode = createCode;

    const retried = await orderPaid(fixture.deps, actor('shop'), body);
    expect(retried.changed).toBe('paid');
    expect(retried.order.codes).toEqual(recorded.codes);
    const codes = await fixture.stores.codes.listCodes(event.id);
    expect(codes.filter((code) => code.label === 'ada@example.com').map((code) => code.code).sort()).toEqual([...recorded.codes].sort());
    // The event's code count: its first code and the order's three, each counted once.
    expect((await fixture.stores.events.getEvent(event.id))!.tokenCount).toBe(4);
    expect((await orderPaid(fixture.deps, actor('shop'), body)).changed).toBeNull();
  });

  it('plans another code when a planned one collides with a code issued elsewhere', async () => {
    const fixture = domainFixture();
    const { event, code: taken } = await fixture.eventWithCode();
    const body = orderWebhookBody.parse({ type: 'order.paid', orderId: 'collide-1', eventId: event.id, email: 'ada@example.com', quantity: 1 });
    const createOrder = fixture.stores.orders.createOrder.bind(fixture.stores.orders);
    fixture.stores.orders.createOrder = (order) => createOrder({ ...order, codes: [taken.code] });
    const { order } = await orderPaid(fixture.deps, actor('shop'), body);
    expect(order.status).toBe('paid');
    expect(order.codes[0]).not.toBe(taken.code);
    expect((await fixture.stores.codes.getCode(order.codes[0]!))?.id).toBe(order.codeIds[0]);
    expect((await fixture.stores.codes.getCode(taken.code))?.label).toBe(taken.label);
  });

  it('makes no order for a refund of an order never seen, and its late payment issues nothing', async () => {
    const fixture = domainFixture();
    const { event } = await fixture.eventWithCode();
    const body = { type: 'order.refunded' as const, orderId: 'late-1', eventId: event.id, email: 'ada@example.com', quantity: 2 };
    expect(await orderRefunded(fixture.deps, actor('shop'), orderWebhookBody.parse(body))).toBeNull();
    expect((await fixture.stores.orders.listEventOrders({ eventId: event.id, cursor: null, limit: 10 })).orders).toEqual([]);
    const paid = await orderPaid(fixture.deps, actor('shop'), orderWebhookBody.parse({ ...body, type: 'order.paid' }));
    expect(paid).toMatchObject({ changed: 'refunded', order: { status: 'refunded', failure: 'refunded before it was paid', emailStatus: null } });
    expect(await fixture.stores.codes.listCodes(event.id)).toHaveLength(1);
  });
});

