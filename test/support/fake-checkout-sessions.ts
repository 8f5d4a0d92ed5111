import { PaymentsUnavailable } from '../../functions/domain/errors';
import type { CheckoutSessionRequest, PaymentProvider, ProviderSession } from '../../functions/domain/commerce';

/**
 * Stripe as the sweep sees it: sessions made by `create`, in whatever state the test puts them; idempotent
 * per key, refusing a session of less than 30 minutes. `lose` makes the next creation unanswered: the
 * session made all the same (`'made'`) or not (`'not made'`).
 */
export function fakeCheckoutSessions(now: () => Date) {
  const sessions = new Map<string, ProviderSession & Record<string, unknown>>();
  const byKey = new Map<string, string>();
  let failing = false;
  let lost: 'made' | 'not made' | null = null;
  const api: PaymentProvider = {
    async create(request: CheckoutSessionRequest) {
      const made = byKey.get(request.idempotencyKey);
      if (made) return { id: made, url: `https://checkout.stripe.com/c/pay/${made}` };
      const losing = lost;
      lost = null;
      if (losing === 'not made') throw new PaymentsUnavailable(true);
      if (Date.parse(request.expiresAt) < now().getTime() + 29 * 60_000) throw new PaymentsUnavailable(false);
      const id = `cs_test_${sessions.size + 1}`;
      byKey.set(request.idempotencyKey, id);
      sessions.set(id, {
        id,
        status: 'open',
        payment_status: 'unpaid',
        payment_intent: null,
        metadata: { eventId: request.eventId, quantity: String(request.quantity), ticketsHeld: 'true' },
        customer_email: request.email,
        customer_details: null,
        created: Math.floor(now().getTime() / 1000),
        amount_total: request.priceMinor * request.quantity,
        currency: request.currency,
      });
      if (losing === 'made') throw new PaymentsUnavailable(true);
      return { id, url: `https://checkout.stripe.com/c/pay/${id}` };
    },
    async retrieve(id) {
      if (failing) throw new Error('connect ETIMEDOUT');
      return sessions.get(id) ?? null;
    },
    async refund(request) {
      return { id: `re_${request.idempotencyKey}`, alreadyRefunded: false };
    },
  };
  return { api, sessions, fail: (value: boolean) => (failing = value), lose: (how: 'made' | 'not made') => (lost = how) };
}
