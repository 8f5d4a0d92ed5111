import { CHECKOUT_MINUTES, handOverCheckout, isUnanswered, releaseCheckout, repairCheckout } from './checkout';
import type { CheckoutSessionRequest, CheckoutSessions } from './checkout-sessions';
import { PaymentsUnavailable } from '../errors';
import type { CheckoutRecord } from './order-store';
import type { OrderOutcome } from './orders';
import { stripeEventOrder, type StripeOrderDeps } from './stripe-orders';

/** How often the sweep runs (an EventBridge rule on its own function in AWS, infra/lib/triggers.ts; a timer in `npm start`). */
export const CHECKOUT_SWEEP_SECONDS = 300;
/**
 * How long past its session's expiry a held checkout is left to Stripe's webhook: Stripe expires a
 * session within minutes of its `expires_at` and retries a failed delivery for days, so a checkout
 * still held this late has a webhook that was never sent (an endpoint without the event) or lost.
 */
export const SETTLE_AFTER_MINUTES = CHECKOUT_MINUTES + 15;
/**
 * Checkouts one run asks Stripe about (the next run takes the rest), so many at once: a run stays within
 * 10 s (its function allows 60), and well under Stripe's rate limit (100 reads a second in live mode).
 */
const SWEEP_BATCH = 50;
const SWEEP_PARALLEL = 10;

/** The client address of what the sweep records: none, it is no request. */
const SWEEP_ADDRESS = '-';

export interface CheckoutSweepOutcome {
  /** Checkouts whose tickets went back to the sale (their session expired or never existed). */
  released: string[];
  /** Checkouts whose writer died with a step of the ticket count pending: settled now (given up, or their tickets back). */
  repaired: string[];
  /** Checkouts paid whose order the webhook never made: made now, codes and email included. */
  paid: OrderOutcome[];
  /** Sessions still open or awaiting a delayed payment: Stripe's to settle, asked again next run. */
  waiting: string[];
  /** Sessions found for checkouts whose creation Stripe never answered: their own records hold the tickets now. */
  found: string[];
  failed: { sessionId: string; error: unknown }[];
}

/**
 * Settles the checkouts Stripe's webhook left held: for each held well past its expiry, the session as
 * Stripe has it now goes through the very path its webhook would have taken (stripe-orders.ts), so a
 * webhook arriving after all (or twice) changes nothing more. Without it, one endpoint missing
 * `checkout.session.expired` leaves every abandoned checkout holding its tickets, and the show reads
 * sold out with seats unsold; one missing `checkout.session.completed` leaves a buyer paid and ticketless.
 * A checkout whose writer died between its record and the event's ticket count is repaired: one whose take
 * may not have counted is given up (its tickets back if the take happened), one released gets its tickets back.
 * An order it makes is in the audit log as the webhook's would be, by Stripe.
 */
export async function settleStaleCheckouts(deps: StripeOrderDeps, sessions: CheckoutSessions): Promise<CheckoutSweepOutcome> {
  const before = new Date(deps.now().getTime() - SETTLE_AFTER_MINUTES * 60_000).toISOString();
  const outcome: CheckoutSweepOutcome = { released: [], repaired: [], paid: [], waiting: [], found: [], failed: [] };
  const settle = async (checkout: CheckoutRecord) => {
    try {
      if (checkout.pending) {
        if (await repairCheckout(deps, { ...checkout, pending: checkout.pending })) outcome.repaired.push(checkout.sessionId);
        return;
      }
      if (isUnanswered(checkout)) return await settleUnanswered(checkout);
      const session = await sessions.retrieve(checkout.sessionId);
      if (!session) {
        // No such session in this Stripe account: nothing can ever pay it.
        if (await releaseCheckout(deps, checkout, 'held')) outcome.released.push(checkout.sessionId);
      } else if (session.status === 'expired') {
        const settled = await stripeEventOrder(deps, SWEEP_ADDRESS, { type: 'checkout.session.expired', data: { object: session } });
        if (settled && 'released' in settled && settled.released) outcome.released.push(checkout.sessionId);
      } else if (session.status === 'complete' && session.payment_status === 'paid') {
        const settled = await stripeEventOrder(deps, SWEEP_ADDRESS, { type: 'checkout.session.completed', data: { object: session } });
        if (settled && 'order' in settled) outcome.paid.push(settled);
      } else {
        outcome.waiting.push(checkout.sessionId);
      }
    } catch (error) {
      outcome.failed.push({ sessionId: checkout.sessionId, error });
    }
  };
  /**
   * The request sent again, the same, with its idempotency key: Stripe answers the session it made then,
   * or, having made none, refuses it (its `expires_at` is past now), which proves there is none.
   */
  const settleUnanswered = async (checkout: CheckoutRecord & { request: CheckoutSessionRequest }) => {
    let session: { id: string };
    try {
      session = await sessions.create(checkout.request);
    } catch (error) {
      if (!(error instanceof PaymentsUnavailable) || error.created) throw error;
      if (await releaseCheckout(deps, checkout, 'held')) outcome.released.push(checkout.sessionId);
      return;
    }
    if (await handOverCheckout(deps, checkout, session.id)) outcome.found.push(session.id);
  };
  const stale = await deps.stores.orders.listHeldCheckouts({ before, limit: SWEEP_BATCH });
  for (let i = 0; i < stale.length; i += SWEEP_PARALLEL) await Promise.all(stale.slice(i, i + SWEEP_PARALLEL).map(settle));
  return outcome;
}
