import type { AppSource } from '../http/app';
import { settleStaleCheckouts, settleStaleSalesSteps, type CheckoutSweepOutcome } from '../domain/commerce';
import { logger } from '../adapters/telemetry';
import type { PublicApp } from '../routes/order-webhook';

export interface CheckoutSweepSummary {
  released: number;
  paid: number;
  waiting: number;
  found: number;
}

/**
 * The checkout sweep (domain/commerce/checkout-sweep.ts) on the public area's App: Stripe's key, and the
 * orders' writes. First, with or without Stripe, it ends the counts of sales figures whose writer died
 * (domain/commerce/sales-count.ts), each logged as a warning. Each checkout it settles is logged as a warning (Stripe's webhook
 * should have: the endpoint's events want checking), an order it makes is audited as the webhook's
 * would be (by the use case), and a run with failures fails, so that the function's error alarm sees it.
 */
export function checkoutSweep(load: AppSource<PublicApp>) {
  return async function sweep(): Promise<CheckoutSweepSummary> {
    const app = await load();
    for (const orderId of await settleStaleSalesSteps(app)) logger.warn("order's sales figures counted by the sweep: its writer died", { orderId });
    const sessions = await app.checkoutSessions();
    if (!sessions) return { released: 0, paid: 0, waiting: 0, found: 0 };
    const outcome: CheckoutSweepOutcome = await settleStaleCheckouts(app, sessions);
    for (const sessionId of outcome.released) {
      logger.warn("checkout released by the sweep: Stripe's checkout.session.expired never arrived", { sessionId });
    }
    for (const paid of outcome.paid) {
      logger.warn("order made by the sweep: Stripe's checkout.session.completed never arrived", { sessionId: paid.order.orderId });
    }
    for (const { sessionId, error } of outcome.failed) logger.error('checkout not settled, the next sweep tries again', { sessionId, error: error as Error });
    if (outcome.failed.length > 0) throw new Error(`checkouts not settled: ${outcome.failed.map((each) => each.sessionId).join(', ')}`);
    for (const sessionId of outcome.found) logger.info('checkout session found after Stripe did not answer its creation', { sessionId });
    return { released: outcome.released.length, paid: outcome.paid.length, waiting: outcome.waiting.length, found: outcome.found.length };
  };
}
