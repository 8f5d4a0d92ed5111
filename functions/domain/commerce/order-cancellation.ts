/**
 * What a cancelled show does to one of its orders (the `event-cancellation` job walks them all): a paid Stripe
 * order is refunded through Stripe (order-refund.ts), a paid shop order keeps its status (the shop holds the
 * money and refunds it; its `order.refunded` webhook then comes as usual), and each of their buyers is owed the
 * `cancelled` email (cancellation-email.ts). Orders failed, or refunded before the cancellation, are left alone.
 * It may run again on the same order at any point (a job step retried): Stripe's key refunds once, the order
 * moves once, and an order owing or sent the `cancelled` email is not owed it again.
 */
import { Contended } from '../errors';
import type { Actor } from '../audit';
import { refundThroughProvider, type ProviderRefundDeps } from './order-refund';
import type { OrderRecord } from './order-store';
import { emailOwed } from './orders';

/** `since`: when the cancellation began; an order refunded since (by it, or by a webhook crossing it) is the cancellation's. */
export async function cancelOrder(deps: ProviderRefundDeps, actor: Actor, order: OrderRecord, since: string): Promise<'refunded' | 'told' | 'untouched'> {
  let current = order;
  let refunded = false;
  if (current.source === 'stripe' && (current.status === 'paid' || current.status === 'issuing')) {
    current = (await refundThroughProvider(deps, actor, current, 'cancelled')).order;
    refunded = true;
  }
  const cancellation = current.status === 'paid' || (current.status === 'refunded' && current.updatedAt >= since);
  if (!cancellation || current.emailKind === 'cancelled') return refunded ? 'refunded' : 'untouched';
  // A webhook refunded it meanwhile and owes its buyer the plain refund notice: the show's notice says more.
  const told = await deps.stores.orders.updateOrder(current.id, { from: [current.status] }, emailOwed('cancelled'), deps.now().toISOString());
  if (!told) throw new Contended(`order ${current.orderId} changed meanwhile`);
  return refunded || current.status === 'refunded' ? 'refunded' : 'told';
}

/**
 * A Stripe payment that completed after its show was cancelled (its session opened before): refunded at once,
 * its buyer told, as the cancellation's job does for the orders it found. The order as it is after.
 */
export async function refundIfCancelled(deps: ProviderRefundDeps, actor: Actor, order: OrderRecord): Promise<OrderRecord> {
  if (order.source !== 'stripe' || order.status !== 'paid') return order;
  const event = await deps.stores.events.getEvent(order.eventId);
  if (!event?.cancelledAt) return order;
  await cancelOrder(deps, actor, order, event.cancelledAt);
  return (await deps.stores.orders.getOrder(order.id)) ?? order;
}
