import { randomBytes } from 'node:crypto';

export interface FakeSession {
  id: string;
  object: 'checkout.session';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  url: string | null;
  mode: string;
  currency: string;
  amount_total: number;
  customer_email: string | null;
  customer_details: { email: string | null } | null;
  payment_intent: string | null;
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string | null;
  expires_at: number;
  created: number;
  livemode: false;
  /** The line's product name (Stripe keeps it in its line items; here on the session, for the page). */
  title: string;
}

/** The fields of Stripe's Charge object the fake keeps (its `charge.refunded` event carries it). */
export interface FakeCharge {
  id: string;
  object: 'charge';
  amount: number;
  amount_refunded: number;
  currency: string;
  paid: boolean;
  captured: boolean;
  status: 'succeeded';
  payment_intent: string;
  refunded: boolean;
}

/** Stripe's Refund object. */
export interface FakeRefund {
  id: string;
  object: 'refund';
  amount: number;
  charge: string;
  currency: string;
  payment_intent: string;
  reason: string | null;
  metadata: Record<string, string>;
  status: 'succeeded';
  created: number;
}

/** An error Stripe's API answers with: `status`, and its `code` where Stripe sends one. */
export type StripeApiError = Error & { status: number; code?: string };

export const apiError = (status: number, message: string, code?: string): StripeApiError => Object.assign(new Error(message), { status, ...(code ? { code } : {}) });

export const newId = (prefix: string) => `${prefix}_test_${randomBytes(18).toString('base64url').replace(/[-_]/g, '0')}`;

/**
 * The fake's Checkout Sessions and what Stripe does with them: create (an
 * idempotency key answers the session it made first), pay, expire, refund,
 * each change sent as Stripe's event through `deliver`.
 */
export function createSessionBook(deps: {
  /** The session's hosted page (known once the fake listens). */
  payUrl: (id: string) => string;
  deliver: (type: string, object: unknown) => Promise<void>;
}) {
  const sessions = new Map<string, FakeSession>();
  const byIdempotencyKey = new Map<string, FakeSession>();
  const charges = new Map<string, FakeCharge>();
  const refunds: FakeRefund[] = [];
  const refundsByKey = new Map<string, FakeRefund>();

  function get(id: string): FakeSession {
    const found = sessions.get(id);
    if (!found) throw apiError(404, `No such checkout.session: '${id}'`, 'resource_missing');
    return found;
  }

  /** `POST /v1/checkout/sessions`: the form as `parseStripeForm` reads it. */
  function create(form: Record<string, unknown>, idempotencyKey: string | undefined): FakeSession {
    const existing = idempotencyKey === undefined ? undefined : byIdempotencyKey.get(idempotencyKey);
    const made = existing ?? checkoutSession(form, deps.payUrl);
    sessions.set(made.id, made);
    if (idempotencyKey !== undefined) byIdempotencyKey.set(idempotencyKey, made);
    return made;
  }

  async function pay(id: string): Promise<FakeSession> {
    const paid = get(id);
    if (paid.status !== 'open') return paid;
    Object.assign(paid, { status: 'complete', payment_status: 'paid', url: null, payment_intent: newId('pi'), customer_details: { email: paid.customer_email } });
    await deps.deliver('checkout.session.completed', paid);
    return paid;
  }

  async function expire(id: string): Promise<FakeSession> {
    const expired = get(id);
    if (expired.status !== 'open') return expired;
    Object.assign(expired, { status: 'expired', url: null });
    await deps.deliver('checkout.session.expired', expired);
    return expired;
  }

  /**
   * `POST /v1/refunds {payment_intent}`: a paid session refunded in full, as Stripe does it: the same idempotency key
   * answers the refund it made first (and sends nothing again); another refund of a refunded charge is refused
   * (`charge_already_refunded`). `sendEvent` sends `charge.refunded`: Stripe sends it after its answer.
   */
  function refund(form: Record<string, unknown>, idempotencyKey: string | undefined): { refund: FakeRefund; sendEvent: (() => Promise<void>) | null } {
    const earlier = idempotencyKey === undefined ? undefined : refundsByKey.get(idempotencyKey);
    if (earlier) return { refund: earlier, sendEvent: null };
    const paid = [...sessions.values()].find((s) => s.payment_intent && s.payment_intent === form.payment_intent);
    if (!paid) throw apiError(404, `No such payment_intent: '${String(form.payment_intent)}'`, 'resource_missing');
    const charge = chargeOf(paid);
    if (charge.refunded) throw apiError(400, `Charge ${charge.id} has already been refunded.`, 'charge_already_refunded');
    Object.assign(charge, { refunded: true, amount_refunded: charge.amount });
    const made: FakeRefund = {
      id: newId('re'),
      object: 'refund',
      amount: charge.amount,
      charge: charge.id,
      currency: charge.currency,
      payment_intent: charge.payment_intent,
      reason: null,
      metadata: {},
      status: 'succeeded',
      created: Math.floor(Date.now() / 1000),
    };
    refunds.push(made);
    if (idempotencyKey !== undefined) refundsByKey.set(idempotencyKey, made);
    return { refund: made, sendEvent: () => deps.deliver('charge.refunded', { ...charge }) };
  }

  /** The charge of a paid session (Stripe makes it with the payment). */
  function chargeOf(paid: FakeSession): FakeCharge {
    let charge = charges.get(paid.payment_intent!);
    if (!charge) {
      charge = { id: newId('ch'), object: 'charge', amount: paid.amount_total, amount_refunded: 0, currency: paid.currency, paid: true, captured: true, status: 'succeeded', payment_intent: paid.payment_intent!, refunded: false };
      charges.set(paid.payment_intent!, charge);
    }
    return charge;
  }

  /** The open sessions whose `expires_at` has come. */
  const due = (nowSeconds: number) => [...sessions.values()].filter((open) => open.status === 'open' && open.expires_at <= nowSeconds);

  return { get, create, pay, expire, refund, due, all: () => [...sessions.values()], refunds: () => [...refunds] };
}

export type SessionBook = ReturnType<typeof createSessionBook>;

/** A new open session from the create form, with Stripe's checks of it. */
function checkoutSession(form: Record<string, unknown>, payUrl: (id: string) => string): FakeSession {
  const line = ((form.line_items as Record<string, Record<string, unknown>> | undefined) ?? {})['0'];
  const price = line?.price_data as { currency?: string; unit_amount?: string; product_data?: { name?: string } } | undefined;
  const quantity = Number(line?.quantity ?? 1);
  if (!price?.currency || !price.unit_amount || !form.success_url) throw apiError(400, 'line_items[0][price_data] and success_url are required');
  const id = newId('cs');
  const created = Math.floor(Date.now() / 1000);
  // Stripe's rule (a minute's slack for clocks): a session lives 30 minutes at least.
  if (form.expires_at && Number(form.expires_at) < created + 29 * 60) {
    throw apiError(400, 'The `expires_at` timestamp must be at least 30 minutes from Checkout Session creation.');
  }
  return {
    id,
    object: 'checkout.session',
    status: 'open',
    payment_status: 'unpaid',
    url: payUrl(id),
    mode: String(form.mode ?? 'payment'),
    currency: price.currency,
    amount_total: Number(price.unit_amount) * quantity,
    customer_email: (form.customer_email as string | undefined) ?? null,
    customer_details: null,
    payment_intent: null,
    metadata: (form.metadata as Record<string, string> | undefined) ?? {},
    success_url: String(form.success_url),
    cancel_url: (form.cancel_url as string | undefined) ?? null,
    expires_at: form.expires_at ? Number(form.expires_at) : created + 24 * 3600,
    created,
    livemode: false,
    title: price.product_data?.name ?? 'Ticket',
  };
}
