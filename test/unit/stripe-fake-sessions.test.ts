import { describe, expect, it } from 'vitest';
import { parseStripeForm } from '../../local/stripe-fake';
import { createSessionBook } from '../../local/stripe-fake-sessions';

/** A session book whose deliveries are recorded. */
function book() {
  const events: { type: string; object: Record<string, unknown> }[] = [];
  const sessions = createSessionBook({ payUrl: (id) => `http://fake/pay/${id}`, deliver: async (type, object) => void events.push({ type, object: { ...(object as Record<string, unknown>) } }) });
  return { sessions, events };
}

const form = (extra = '') =>
  parseStripeForm(
    `mode=payment&success_url=${encodeURIComponent('http://shop/ok?s={CHECKOUT_SESSION_ID}')}&customer_email=a%40b.c` +
      `&line_items[0][quantity]=3&line_items[0][price_data][currency]=eur&line_items[0][price_data][unit_amount]=1250` +
      `&line_items[0][price_data][product_data][name]=Show&metadata[eventId]=ev1${extra}`,
  );

describe('the Stripe fake\'s sessions', () => {
  it('reads Stripe\'s form encoding as nested objects', () => {
    expect(parseStripeForm('a[0][b]=1&a[0][c][d]=2&e=3')).toEqual({ a: { '0': { b: '1', c: { d: '2' } } }, e: '3' });
  });

  it('a created session is open, priced unit × quantity, lives 24 h by default and has its hosted page', () => {
    const { sessions } = book();
    const made = sessions.create(form(), undefined);
    expect(made).toMatchObject({ status: 'open', payment_status: 'unpaid', currency: 'eur', amount_total: 3750, title: 'Show', metadata: { eventId: 'ev1' }, url: `http://fake/pay/${made.id}` });
    expect(made.expires_at - made.created).toBe(24 * 3600);
    expect(sessions.all()).toEqual([made]);
  });

  it('Stripe\'s checks: a price and a success URL are required; expires_at at least 30 minutes ahead (a minute\'s slack)', () => {
    const { sessions } = book();
    expect(() => sessions.create(parseStripeForm('success_url=x'), undefined)).toThrow(expect.objectContaining({ status: 400 }));
    const now = Math.floor(Date.now() / 1000);
    expect(() => sessions.create(form(`&expires_at=${now + 28 * 60}`), undefined)).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining('30 minutes') }));
    expect(sessions.create(form(`&expires_at=${now + 30 * 60}`), undefined).expires_at).toBe(now + 30 * 60);
  });

  it('an idempotency key answers the session it made first', () => {
    const { sessions } = book();
    const first = sessions.create(form(), 'key-1');
    expect(sessions.create(form(), 'key-1')).toBe(first);
    expect(sessions.create(form(), 'key-2')).not.toBe(first);
    expect(sessions.all()).toHaveLength(2);
  });

  it('paying completes the session once, with the completed event; a paid session does not expire', async () => {
    const { sessions, events } = book();
    const made = sessions.create(form(), undefined);
    await sessions.pay(made.id);
    await sessions.pay(made.id);
    await sessions.expire(made.id);
    expect(events.map((event) => event.type)).toEqual(['checkout.session.completed']);
    expect(events[0]!.object).toMatchObject({ status: 'complete', payment_status: 'paid', url: null, customer_details: { email: 'a@b.c' }, payment_intent: expect.stringMatching(/^pi_test_/) });
  });

  it('an open session expires once, with the expired event; the sweep finds only open sessions past expires_at', async () => {
    const { sessions, events } = book();
    const made = sessions.create(form(), undefined);
    expect(sessions.due(made.expires_at - 1)).toEqual([]);
    expect(sessions.due(made.expires_at)).toEqual([made]);
    await sessions.expire(made.id);
    await sessions.expire(made.id);
    expect(events.map((event) => event.type)).toEqual(['checkout.session.expired']);
    expect(sessions.due(made.expires_at)).toEqual([]);
  });

  it('a refund of a paid session\'s payment is in full, then charge.refunded; once per idempotency key; an unknown one is Stripe\'s 404', async () => {
    const { sessions, events } = book();
    const paid = await sessions.pay(sessions.create(form(), undefined).id);
    const first = sessions.refund({ payment_intent: paid.payment_intent }, 'refund-1');
    expect(first.refund).toMatchObject({ object: 'refund', status: 'succeeded', amount: 3750, currency: 'eur', payment_intent: paid.payment_intent, charge: expect.stringMatching(/^ch_test_/) });
    expect(events.at(-1)?.type).toBe('checkout.session.completed');
    await first.sendEvent!();
    expect(events.at(-1)).toMatchObject({ type: 'charge.refunded', object: { object: 'charge', refunded: true, amount_refunded: 3750, payment_intent: paid.payment_intent } });
    const again = sessions.refund({ payment_intent: paid.payment_intent }, 'refund-1');
    expect(again).toEqual({ refund: first.refund, sendEvent: null });
    expect(() => sessions.refund({ payment_intent: paid.payment_intent }, 'refund-other')).toThrow(expect.objectContaining({ status: 400, code: 'charge_already_refunded' }));
    expect(sessions.refunds()).toEqual([first.refund]);
    expect(() => sessions.refund({ payment_intent: 'pi_unknown' }, undefined)).toThrow(expect.objectContaining({ status: 404, message: "No such payment_intent: 'pi_unknown'" }));
    expect(() => sessions.get('cs_unknown')).toThrow(expect.objectContaining({ status: 404, code: 'resource_missing' }));
  });
});
