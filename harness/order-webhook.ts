import Stripe from 'stripe';
import { signPayload } from '../functions/domain/commerce';
import { call, type HttpResult } from './http';

export interface OrderDelivery {
  type: string;
  orderId: string;
  eventId: string;
  email: string;
  quantity: number;
  amountMinor?: number;
  currency?: string;
}

/** A shop's delivery to `POST /api/webhooks/orders`, signed with `secret` at `at` (now by default), as README shows with openssl. */
export function deliverOrder(apiUrl: string, secret: string, order: OrderDelivery, options: { at?: Date; signature?: string } = {}): Promise<HttpResult> {
  const body = JSON.stringify(order);
  const signature = options.signature ?? signPayload(secret, body, options.at ?? new Date());
  return call('POST', `${apiUrl}/api/webhooks/orders`, { body, headers: { 'content-type': 'application/json', 'stagedoor-signature': signature } });
}

/** Stripe's delivery of `event` to `POST /api/webhooks/stripe`, signed as Stripe signs it (its SDK's test header) at `at`. */
export function deliverStripeEvent(apiUrl: string, secret: string, event: { id?: string; type: string; data: { object: unknown } }, options: { at?: Date } = {}): Promise<HttpResult> {
  const body = JSON.stringify({ id: event.id ?? `evt_${Math.random().toString(36).slice(2)}`, object: 'event', ...event });
  const timestamp = Math.floor((options.at ?? new Date()).getTime() / 1000);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });
  return call('POST', `${apiUrl}/api/webhooks/stripe`, { body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } });
}

/** A paid Checkout Session as Stripe sends it in `checkout.session.completed`, for Stagedoor's event. */
export function paidCheckoutSession(fields: { id: string; eventId: string; quantity: number; email: string; paymentIntent: string; amountTotal?: number }) {
  return {
    id: fields.id,
    object: 'checkout.session',
    mode: 'payment',
    status: 'complete',
    payment_status: 'paid',
    payment_intent: fields.paymentIntent,
    metadata: { eventId: fields.eventId, quantity: String(fields.quantity) },
    customer_details: { email: fields.email, name: null },
    amount_total: fields.amountTotal ?? 1500 * fields.quantity,
    currency: 'eur',
  };
}
