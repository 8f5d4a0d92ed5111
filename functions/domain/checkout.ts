import { Conflict, InvalidInput, NotFound, PaymentsUnavailable } from './errors';
import { checkoutInput, parseInput } from './inputs';
import type { CheckoutRecord } from './order-store';
import { orderKeyId } from './orders';
import { randomId } from './random';
import { rateLimitSubject } from './rate-limit-subject';
import { hitRateLimit, refuseIfRateLimited } from './rate-limits';
import type { EventRecord, EventSale } from './records';
import { onSale } from './sale';
import type { AccessDeps } from './viewer-access';

/** What a checkout asks of the payment provider: one hosted payment page (Stripe Checkout: adapters/stripe-checkout.ts). */
export interface CheckoutSessionRequest {
  /** The same request sent again (the SDK's retries) makes no second session. */
  idempotencyKey: string;
  eventId: string;
  title: string;
  email: string;
  quantity: number;
  priceMinor: number;
  currency: string;
  /** Where the provider sends the buyer back: `{CHECKOUT_SESSION_ID}` stands for the session's id. */
  successUrl: string;
  cancelUrl: string;
  /** ISO 8601: the request is kept as it was sent when its answer was lost (it is sent again, the same). */
  expiresAt: string;
}

/** A session as the provider has it now, whole (the object its webhooks carry): `status` is `open`, `complete` or `expired`. */
export interface ProviderSession {
  id: string;
  status: string | null;
  payment_status: string;
}

/** The payment provider. `create` throws `PaymentsUnavailable` (`created: false` when it surely made no session). */
export interface CheckoutSessions {
  create(request: CheckoutSessionRequest): Promise<{ id: string; url: string }>;
  /** The session now; null when the provider has no such session. */
  retrieve(sessionId: string): Promise<ProviderSession | null>;
}

/** Stripe keeps a session open 30 minutes at least: a minute more, so clock drift never makes Stripe refuse it. */
export const CHECKOUT_MINUTES = 31;
/** Reads of the sale a checkout makes at most when an organiser changes the capacity under it. */
const TAKE_ATTEMPTS = 3;

/** Takes the tickets, or says why not: the sale read again when the conditional write refused it. */
async function takeTickets(deps: AccessDeps, eventId: string, quantity: number, now: Date): Promise<EventRecord & { sale: EventSale }> {
  for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
    const event = await deps.stores.events.getEvent(eventId);
    if (!event) throw new NotFound('event');
    if (!onSale(event, now)) throw new Conflict('not-on-sale');
    if (quantity > event.sale.maxPerOrder) throw new InvalidInput('quantity', `must be between 1 and ${event.sale.maxPerOrder}`);
    if (await deps.stores.events.takeTickets(eventId, quantity, event.sale.capacity)) return event;
    const after = await deps.stores.events.getEvent(eventId);
    // Refused for the capacity read: sold out, unless an organiser changed the sale meanwhile (then read it again).
    if (after?.sale && after.sale.open && after.sale.capacity === event.sale.capacity) throw new Conflict('sold-out');
  }
  throw new Conflict('sold-out');
}

/** A checkout's record until Stripe answers its session request (and after, if it never does): its idempotency key in place of the session's id. */
const unansweredSessionId = (idempotencyKey: string) => `unanswered:${idempotencyKey}`;
/** Only an unanswered checkout keeps its request. */
export const isUnanswered = (checkout: CheckoutRecord): checkout is CheckoutRecord & { request: CheckoutSessionRequest } => checkout.request !== undefined;

/**
 * `POST /api/checkout`: takes the tickets from the event's capacity (a conditional counter, so parallel
 * buyers never take more than it holds), then opens a hosted checkout for them and answers its URL. The
 * checkout's record keeps the hold until the session is paid (it keeps the tickets) or expires (they go
 * back: stripe-orders.ts). Per address, the limit counts the checkouts opened, not the refusals.
 */
export async function startCheckout(deps: AccessDeps, sessions: CheckoutSessions, body: unknown, request: { ip: string; siteUrl: string }) {
  const input = parseInput(checkoutInput, body);
  const now = deps.now();
  const subject = rateLimitSubject(request.ip);
  await refuseIfRateLimited(deps.stores.counters, 'checkout', subject, now);
  const event = await takeTickets(deps, input.eventId, input.quantity, now);
  const page = `${request.siteUrl}/?event=${encodeURIComponent(event.id)}`;
  const sessionRequest: CheckoutSessionRequest = {
    idempotencyKey: `checkout-${randomId(20)}`,
    eventId: event.id,
    title: event.title,
    email: input.email,
    quantity: input.quantity,
    priceMinor: event.sale.priceMinor,
    currency: event.sale.currency,
    successUrl: `${page}&checkout={CHECKOUT_SESSION_ID}`,
    cancelUrl: page,
    expiresAt: new Date(now.getTime() + CHECKOUT_MINUTES * 60_000).toISOString(),
  };
  const at = now.toISOString();
  // Recorded before Stripe is asked: should the answer never come (Stripe silent past the function's time, the
  // function gone), the checkout sweep sends the request again with its idempotency key, which finds the
  // session made then or proves there is none; the tickets are held meanwhile (an early release would give them twice).
  const unanswered: CheckoutRecord = {
    sessionId: unansweredSessionId(sessionRequest.idempotencyKey),
    eventId: event.id,
    email: input.email,
    quantity: input.quantity,
    status: 'held',
    createdAt: at,
    updatedAt: at,
    request: sessionRequest,
  };
  await deps.stores.orders.createCheckout(unanswered);
  let session: { id: string; url: string };
  try {
    session = await sessions.create(sessionRequest);
  } catch (error) {
    if (error instanceof PaymentsUnavailable && !error.created) await releaseCheckout(deps, unanswered, 'held');
    throw error;
  }
  await handOverCheckout(deps, unanswered, session.id);
  await hitRateLimit(deps.stores.counters, 'checkout', subject, now);
  return { url: session.url };
}

/** The checkout a Stripe session event names, as its record would be (`metadata` of `startCheckout`'s sessions). */
type CheckoutOfSession = Omit<CheckoutRecord, 'status' | 'updatedAt'>;
/** Only the fields a move may write into a record it creates (never `status`, which the move sets). */
const fieldsOf = ({ sessionId, eventId, email, quantity, createdAt }: CheckoutOfSession): CheckoutOfSession => ({ sessionId, eventId, email, quantity, createdAt });

/**
 * Gives the checkout's tickets back to the sale, once: when its session expired unpaid, or its paid
 * order was refunded (an organiser who refunds frees the seat for another buyer).
 */
export async function releaseCheckout(deps: AccessDeps, checkout: CheckoutOfSession, from: 'held' | 'paid'): Promise<boolean> {
  // No record: the API died between the session and its record; the session's tickets were taken all the same.
  const moved = await deps.stores.orders.moveCheckout(fieldsOf(checkout), from === 'held' ? ['held', 'absent'] : ['paid'], 'released', deps.now().toISOString());
  if (moved) await deps.stores.events.releaseTickets(checkout.eventId, checkout.quantity);
  return moved;
}

/**
 * An unanswered checkout whose session turned up: the session's own record takes its hold over (unless the
 * session's webhook already settled it: that record stands), and the unanswered one is released without
 * giving tickets back. True when this call handed it over.
 */
export async function handOverCheckout(deps: AccessDeps, unanswered: CheckoutRecord, sessionId: string): Promise<boolean> {
  const now = deps.now().toISOString();
  const { request, ...record } = unanswered;
  await deps.stores.orders.createCheckout({ ...record, sessionId, status: 'held', updatedAt: now });
  return deps.stores.orders.moveCheckout(fieldsOf(unanswered), ['held'], 'released', now);
}

/** A paid session keeps its tickets: marked paid, so that a late or replayed expiry frees nothing. */
export async function keepCheckout(deps: AccessDeps, checkout: CheckoutOfSession): Promise<void> {
  await deps.stores.orders.moveCheckout(fieldsOf(checkout), ['held', 'absent'], 'paid', deps.now().toISOString());
}

/**
 * `GET /api/checkout/:sessionId`: what the buyer's return page polls. The session's id is the secret
 * this browser holds (Stripe put it in the return address): its status and, once paid, its codes.
 */
export async function checkoutStatus(deps: AccessDeps, id: string) {
  const checkout = await deps.stores.orders.getCheckout(id);
  if (!checkout) throw new NotFound('checkout');
  const order = await deps.stores.orders.getOrder(orderKeyId('stripe', id));
  const status = order && order.status !== 'issuing' ? order.status : checkout.status === 'released' ? 'expired' : 'pending';
  return { status, eventId: checkout.eventId, email: order?.email ?? checkout.email, quantity: checkout.quantity, codes: status === 'paid' ? order!.codes : [] };
}
