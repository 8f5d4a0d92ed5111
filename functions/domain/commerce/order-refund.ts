/**
 * Refunding a Stripe order from the console (`POST /api/admin/orders/:orderId/refund`) or for a cancelled show:
 * Stripe refunds the payment (its Refunds API, keyed `refund-<order id>`, so a second call, a retried step or a
 * parallel one refunds once), then the order takes the path of Stripe's own `charge.refunded` (stripe-orders.ts
 * `refundStripeOrder`): codes revoked at the edge, seats back on sale, the buyer's email. That webhook arrives
 * too and crosses this call: whichever moves the order first refunds it, the other changes nothing.
 */
import { Conflict, NotFound } from '../errors';
import { recordAudit, type Actor } from '../audit';
import type { PaymentProvider } from './checkout-sessions';
import type { OrderRecord } from './order-store';
import { paymentRef, refundStripeOrder, type StripeOrderDeps } from './stripe-orders';

/** What a refund through the payment provider needs: the provider itself besides the stores (it throws when there is none). */
export type ProviderRefundDeps = StripeOrderDeps & { payments(): Promise<PaymentProvider> };

/** Stripe's idempotency key of an order's refund: the same for every try, from anywhere. */
export const refundKey = (order: Pick<OrderRecord, 'id'>) => `refund-${order.id}`;

/**
 * `POST /api/admin/orders/:orderId/refund`, by `actor` (audited `order.refund-requested` when Stripe is asked, and
 * `order.refunded` once, by whoever moved the order). A refunded order is answered as it is; a shop's order is
 * refused (the shop holds its money); a failed one has nothing to refund.
 */
export async function refundOrderFromConsole(deps: ProviderRefundDeps, actor: Actor, id: string): Promise<OrderRecord> {
  const order = await deps.stores.orders.getOrder(id);
  if (!order) throw new NotFound('order');
  if (order.source === 'shop') throw new Conflict('order-sold-by-shop');
  if (order.status === 'failed') throw new Conflict('order-without-tickets');
  if (order.status === 'refunded') return order;
  await recordAudit(deps, actor, { action: 'order.refund-requested', eventId: order.eventId, target: `order ${order.orderId}`, details: { orderId: order.id, email: order.email } });
  return (await refundThroughProvider(deps, actor, order, 'refund')).order;
}

/**
 * Refunds a paid (or issuing) Stripe order through Stripe, then as its webhook would; the buyer is owed `emailKind`.
 * Safe to run again at any point: Stripe's key refunds once, and the order moves once.
 */
export async function refundThroughProvider(deps: ProviderRefundDeps, actor: Actor, order: OrderRecord, emailKind: 'refund' | 'cancelled') {
  // The order keeps the session's id; the session knows its payment.
  const stripe = await deps.payments();
  const session = await stripe.retrieve(order.orderId);
  const ref = session ? paymentRef(session.payment_intent ?? null) : null;
  if (!ref) throw new Error(`Stripe has no payment for session ${order.orderId}`);
  await stripe.refund({ paymentRef: ref, idempotencyKey: refundKey(order) });
  return refundStripeOrder(deps, actor, order, emailKind);
}
