import { Contended } from '../errors';
import { parseInput } from '../inputs';
import { orderWebhookBody } from './order-input';
import { orderKeyId, orderPaid, refundKnownOrder, type OrderOutcome } from './orders';
import type { Actor, AuditDeps } from '../audit';
import { keepCheckout, releaseCheckout } from './checkout';
import type { EventStore } from '../events';
import type { CodeStore } from '../codes';
import type { CounterStore } from '../counter-store';
import type { OrderRecord, OrderStore } from './order-store';
import type { AppConfig } from '../config';

/**
 * Metadata of the sessions `POST /api/checkout` opens: they hold tickets of the event's capacity (checkout.ts).
 * Sessions made elsewhere with Stagedoor's metadata (a Payment Link) sell without holding any.
 */
export const TICKETS_HELD = 'ticketsHeld';

/** What Stagedoor reads of a Stripe event (verified by the adapter, functions/adapters/stripe-events.ts). */
export interface StripeEvent {
  type: string;
  data: { object: unknown };
}

export type StripeOrderDeps = { stores: { codes: CodeStore; counters: CounterStore; events: EventStore; orders: OrderStore }; config: Pick<AppConfig, 'sessionTimeoutSeconds'> } & AuditDeps;

/** The fields of a Checkout Session this uses (Stripe's API reference, "The Checkout Session object"). */
interface CheckoutSession {
  id: string;
  payment_status: string;
  payment_intent: string | { id: string } | null;
  metadata: Record<string, string> | null;
  customer_details: { email: string | null } | null;
  customer_email: string | null;
  created: number;
  amount_total: number | null;
  currency: string | null;
}

/** The checkout a session of ours is (null: not one of ours). */
function checkoutOf(session: CheckoutSession) {
  const metadata = session.metadata;
  if (metadata?.[TICKETS_HELD] !== 'true' || !metadata.eventId) return null;
  const quantity = Number(metadata.quantity);
  if (!Number.isInteger(quantity) || quantity < 1) return null;
  const email = session.customer_details?.email ?? session.customer_email ?? '';
  return { sessionId: session.id, eventId: metadata.eventId, quantity, email, createdAt: new Date(session.created * 1000).toISOString() };
}

/** The fields of a Charge this uses. */
interface Charge {
  refunded: boolean;
  payment_intent: string | { id: string } | null;
}

export const paymentRef = (intent: string | { id: string } | null) => (typeof intent === 'string' ? intent : (intent?.id ?? null));

/**
 * A Stripe event as an order: a paid Checkout Session (`checkout.session.completed` paid at once, or
 * `checkout.session.async_payment_succeeded` later) is an order paid, keyed by the session's id, for
 * `metadata.eventId` and `metadata.quantity`, to `customer_details.email`; a fully refunded charge
 * (`charge.refunded`) refunds the order its payment intent paid. Null: nothing for Stagedoor (another
 * type, a session not yet paid, a sale without Stagedoor's metadata, a partial refund). `released`: an expired
 * checkout of ours, and whether this delivery gave its tickets back. A checkout of ours
 * (checkout.ts) keeps its tickets once paid, gives them back when its session expires unpaid
 * (`checkout.session.expired`, no order) or when its order is refunded; each once, however often Stripe delivers.
 * An order's change is in the audit log by Stripe, from `clientIp`.
 */
export async function stripeEventOrder(deps: StripeOrderDeps, clientIp: string, event: StripeEvent): Promise<OrderOutcome | { released: boolean } | null> {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object as CheckoutSession;
      // Another product of the same Stripe account; or a delayed payment method, whose success comes as its own event.
      if (!session.metadata?.eventId || session.payment_status !== 'paid') return null;
      const body = parseInput(orderWebhookBody, {
        type: 'order.paid',
        orderId: session.id,
        eventId: session.metadata.eventId,
        email: session.customer_details?.email ?? undefined,
        quantity: Number(session.metadata.quantity),
        amountMinor: session.amount_total ?? undefined,
        currency: session.currency ?? undefined,
      });
      // Before the order: a refund that finds no order for its payment waits for Stripe's retry.
      const ref = paymentRef(session.payment_intent);
      if (ref) await deps.stores.orders.linkPayment(ref, orderKeyId('stripe', session.id));
      const checkout = checkoutOf(session);
      if (checkout) await keepCheckout(deps, checkout);
      return orderPaid(deps, { name: 'stripe', clientIp }, body);
    }
    case 'checkout.session.expired': {
      const checkout = checkoutOf(event.data.object as CheckoutSession);
      // `released`: false when a replay, or a paid session's late expiry, found nothing to give back.
      return checkout ? { released: await releaseCheckout(deps, checkout, 'held') } : null;
    }
    case 'charge.refunded': {
      const charge = event.data.object as Charge;
      const ref = paymentRef(charge.payment_intent);
      // A partial refund leaves the tickets as they are: which of them it paid back only the organiser knows.
      if (!charge.refunded || !ref) return null;
      const id = await deps.stores.orders.orderOfPayment(ref);
      const order = id ? await deps.stores.orders.getOrder(id) : null;
      // Not a Stagedoor sale, or its paid event not here yet: a 503, and Stripe delivers it again later (for 3 days),
      // by when the order is there to be refunded in full, its seats back on sale. No mark is left: a sale of another product
      // of the account would leave one for ever, and the session's own refund needs its order.
      if (!order) throw new Contended(`no order for payment ${ref} yet`);
      return refundStripeOrder(deps, { name: 'stripe', clientIp }, order, 'refund');
    }
    default:
      return null;
  }
}

/**
 * A Stripe order refunded (Stripe's `charge.refunded`, or the console's refund once Stripe took it): the order's
 * refund (codes revoked, the buyer owed `emailKind`), then its checkout's seats back on sale. Each once, however
 * often and however concurrently it runs.
 */
export async function refundStripeOrder(deps: StripeOrderDeps, actor: Actor, order: OrderRecord, emailKind: 'refund' | 'cancelled'): Promise<OrderOutcome> {
  const outcome = await refundKnownOrder(deps, actor, order, emailKind);
  const checkout = await deps.stores.orders.getCheckout(order.orderId);
  if (checkout) await releaseCheckout(deps, checkout, 'paid');
  return outcome;
}
