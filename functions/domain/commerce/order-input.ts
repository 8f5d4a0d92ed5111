import * as z from 'zod';
import { MAX_TICKETS_PER_ORDER } from '../config';
import { recordId, ticketsPerOrder } from '../inputs';

export const ORDER_TYPES = ['order.paid', 'order.refunded'] as const;

/** The order webhook's body (README, "Selling through any shop"); `type` is checked first, so an unknown one is ignored. */
export const orderWebhookBody = z.object({
  type: z.enum(ORDER_TYPES),
  orderId: z.string().min(1).max(200),
  eventId: z.string().min(1).max(200),
  email: z.email().max(320),
  quantity: z.number().int().min(1).max(MAX_TICKETS_PER_ORDER),
  amountMinor: z.number().int().min(0).optional(),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter ISO 4217 code')
    .transform((value) => value.toLowerCase())
    .optional(),
});
export type OrderWebhookBody = z.output<typeof orderWebhookBody>;

/** True when the body names a type this webhook handles; others are acknowledged and ignored, as shops add types. */
export function isKnownOrderType(body: unknown): boolean {
  const type = (body as { type?: unknown } | null)?.type;
  return typeof type === 'string' && (ORDER_TYPES as readonly string[]).includes(type);
}

export const orderListQuery = z.object({
  cursor: z.string().min(1).max(2048).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** `POST /api/checkout`: the buyer's email, and how many tickets (the event's `maxPerOrder` is checked against it). */
export const checkoutInput = z.object({
  eventId: recordId,
  email: z.email('must be an email address').max(320),
  quantity: ticketsPerOrder,
});

/** A Stripe Checkout Session id (`cs_test_…`, `cs_live_…`), the key of the order-status route. */
export const checkoutSessionId = z.string().regex(/^cs_[A-Za-z0-9_]{1,250}$/, 'is not a checkout session id');
