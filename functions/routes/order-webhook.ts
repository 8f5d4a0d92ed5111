import type { RouteHandler } from '../http/api-types';
import type { App } from '../http/app';
import { HttpError } from '../http/http-error';
import { clientIp, header, rawBody } from '../http/request-info';
import { requestActor } from '../http/request-actor';
import { json } from '../http/responses';
import { parseInput } from '../domain/inputs';
import { isKnownOrderType, orderWebhookBody } from '../domain/commerce';
import { orderPaid, orderRefunded, type OrderOutcome } from '../domain/commerce';
import { verifySignature } from '../domain/commerce';
import { stripeEventOrder } from '../domain/commerce';
import type { CommerceSecrets } from '../adapters/secrets';
import { refundIfCancelled, type PaymentProvider } from '../domain/commerce';
import { verifiedStripeEvent } from '../adapters/stripe-events';
import { logger } from '../adapters/telemetry';

/** The public area's App: also the commerce secret, which only the public function may read in AWS (null: not configured). */
export interface PublicApp extends App {
  commerceSecrets(): Promise<CommerceSecrets | null>;
  /** Stripe Checkout (and its refunds) with the commerce secret's API key; null without one. */
  checkoutSessions(): Promise<PaymentProvider | null>;
}

export const orderWebhookRoutes: Record<string, RouteHandler<PublicApp>> = {
  /**
   * Any shop's order webhook (README, "Selling through any shop"): signed like Stripe's, idempotent
   * per order. It answers once the order and its codes are stored; the email goes out from the
   * table's stream (handlers/mailer.ts), so a slow mail server never slows the shop's delivery.
   */
  'POST /api/webhooks/orders': async (request) => {
    const secret = (await request.app.commerceSecrets())?.orderWebhookSecret;
    if (!secret) throw new HttpError(503, 'Order webhooks are not configured');
    const now = request.app.now();
    if (!verifySignature(secret, rawBody(request.event), header(request.event, 'stagedoor-signature'), now)) {
      throw new HttpError(400, 'Invalid signature');
    }
    if (!isKnownOrderType(request.body)) return json(200, { received: true, ignored: true });
    const body = parseInput(orderWebhookBody, request.body);
    const shop = requestActor(request, 'shop');
    const outcome = body.type === 'order.paid' ? await orderPaid(request.app, shop, body) : await orderRefunded(request.app, shop, body);
    if (!outcome) {
      // No order was made: a mark keeps its payment, should it come later, from issuing anything.
      logger.warn('refund of an order never paid here: acknowledged, no order made', { orderId: body.orderId, eventId: body.eventId });
      return json(200, { received: true, order: null });
    }
    return received(outcome);
  },
  /**
   * Stripe's webhook (README, "Selling with Stripe"): verified with Stripe's SDK, the same orders
   * as a shop's (functions/domain/commerce/stripe-orders.ts). Other event types are acknowledged and ignored.
   */
  'POST /api/webhooks/stripe': async (request) => {
    const secret = (await request.app.commerceSecrets())?.stripeWebhookSecret;
    if (!secret) throw new HttpError(503, 'Stripe webhooks are not configured');
    const event = await verifiedStripeEvent(rawBody(request.event), header(request.event, 'stripe-signature'), secret);
    if (!event) throw new HttpError(400, 'Invalid signature');
    const ip = clientIp(request.event, request.app.config.originVerifySecret);
    const outcome = await stripeEventOrder(request.app, ip, event);
    if (!outcome) return json(200, { received: true, ignored: true });
    if ('released' in outcome) return json(200, { received: true, released: outcome.released });
    // Every delivery of a paid order, not only the one that paid it: a refund that failed is tried again with Stripe's retry.
    if (outcome.order.status !== 'paid') return received(outcome);
    const payments = async () => (await request.app.checkoutSessions()) ?? Promise.reject(new HttpError(503, 'Ticket sales are not configured'));
    return received({ ...outcome, order: await refundIfCancelled({ ...request.app, payments }, { name: 'stripe', clientIp: ip }, outcome.order) });
  },
};

const received = ({ order }: OrderOutcome) => json(200, { received: true, order: { id: order.id, status: order.status === 'issuing' ? 'paid' : order.status } });
