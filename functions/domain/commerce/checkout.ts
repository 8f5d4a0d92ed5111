import { Conflict, InvalidInput, NotFound, PaymentsUnavailable } from '../errors';
import { parseInput } from '../inputs';
import { checkoutInput } from './order-input';
import type { CheckoutPending, CheckoutRecord } from './order-store';
import { orderKeyId } from './orders';
import { randomId } from '../random';
import { rateLimitSubject } from '../rate-limit-subject';
import { hitRateLimit, refuseIfRateLimited } from '../rate-limits';
import type { EventRecord, EventSale } from '../records';
import { onSale } from '../events';
import type { CheckoutSessionRequest, CheckoutSessions } from './checkout-sessions';
import type { EventStore } from '../events';
import type { CounterStore } from '../counter-store';
import type { OrderStore } from './order-store';

/** Stripe keeps a session open 30 minutes at least: a minute more, so clock drift never makes Stripe refuse it. */
export const CHECKOUT_MINUTES = 31;
/** Reads of the sale a checkout makes at most when an organiser changes the capacity under it. */
const TAKE_ATTEMPTS = 3;

/** The event on sale to `quantity` tickets a checkout, or why not. */
async function saleOf(deps: { stores: { events: EventStore } }, eventId: string, quantity: number, now: Date): Promise<EventRecord & { sale: EventSale }> {
  const event = await deps.stores.events.getEvent(eventId);
  if (!event) throw new NotFound('event');
  if (!onSale(event, now)) throw new Conflict('not-on-sale');
  if (quantity > event.sale.maxPerOrder) throw new InvalidInput('quantity', `must be between 1 and ${event.sale.maxPerOrder}`);
  // Refused before anything is written when the (consistent) read already has too few left: a crowd for the
  // last tickets writes only for those with a chance. The conditional take stays the judge of the others.
  if (event.sale.capacity !== null && (event.ticketsTaken ?? 0) + quantity > event.sale.capacity) throw new Conflict('sold-out');
  return event;
}

/** Takes the checkout's tickets, or says why not: the sale read again when the conditional write refused it. */
async function takeTickets(deps: { stores: { events: EventStore } }, checkout: CheckoutRecord, sale: EventRecord & { sale: EventSale }, now: Date): Promise<void> {
  let event = sale;
  for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
    if (attempt > 0) event = await saleOf(deps, checkout.eventId, checkout.quantity, now);
    if (await deps.stores.events.takeTickets(event.id, checkout.quantity, event.sale.capacity, checkout.sessionId)) return;
    const after = await deps.stores.events.getEvent(event.id);
    // Refused for the capacity read: sold out, unless an organiser changed the sale meanwhile (then read it again).
    if (after?.sale && after.sale.open && after.sale.capacity === event.sale.capacity) throw new Conflict('sold-out');
  }
  throw new Conflict('sold-out');
}

/**
 * The event's count catches up with a checkout's record that waits to give its tickets back (`return`, or
 * `untake`: only if its take happened), then the record says so and the event forgets the checkout. Each
 * step is once however often it runs (the event's mark of the checkout, the record's conditional move),
 * so the sweep can run it again after a writer that died at any point.
 */
async function giveBack(deps: { stores: { events: EventStore; orders: OrderStore }; now(): Date }, checkout: Pick<CheckoutRecord, 'sessionId' | 'eventId' | 'quantity'>, pending: 'return' | 'untake'): Promise<void> {
  await deps.stores.events.releaseTickets(checkout.eventId, checkout.quantity, checkout.sessionId, pending);
  await deps.stores.orders.advanceCheckout(checkout.sessionId, pending, { status: 'released', pending: null }, deps.now().toISOString());
  await deps.stores.events.forgetCheckout(checkout.eventId, checkout.sessionId);
}

/** A checkout recorded whose take failed or may not have happened: given up, its tickets back if it took any. */
export async function abandonCheckout(deps: { stores: { events: EventStore; orders: OrderStore }; now(): Date }, checkout: CheckoutRecord): Promise<boolean> {
  if (!(await deps.stores.orders.advanceCheckout(checkout.sessionId, 'take', { status: 'released', pending: 'untake' }, deps.now().toISOString()))) return false;
  await giveBack(deps, checkout, 'untake');
  return true;
}

/**
 * The sweep's repair of a checkout whose writer died with a count step pending: one taken but maybe not
 * counted is given up (its buyer had an error, and no session was asked for), one released gets its
 * tickets back. True when this call settled it.
 */
export async function repairCheckout(deps: { stores: { events: EventStore; orders: OrderStore }; now(): Date }, checkout: CheckoutRecord & { pending: CheckoutPending }): Promise<boolean> {
  // Only one sweep at a time: a second one's claim fails on the `updatedAt` this one wrote.
  if (!(await deps.stores.orders.claimCheckout(checkout.sessionId, checkout.updatedAt, deps.now().toISOString()))) return false;
  if (checkout.pending === 'take') return abandonCheckout(deps, checkout);
  await giveBack(deps, checkout, checkout.pending);
  return true;
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
export async function startCheckout(deps: { stores: { counters: CounterStore; events: EventStore; orders: OrderStore }; now(): Date }, sessions: CheckoutSessions, body: unknown, request: { ip: string; siteUrl: string }) {
  const input = parseInput(checkoutInput, body);
  const now = deps.now();
  const subject = rateLimitSubject(request.ip);
  await refuseIfRateLimited(deps.stores.counters, 'checkout', subject, now);
  const event = await saleOf(deps, input.eventId, input.quantity, now);
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
  // Recorded before its tickets are taken, waiting for the take: should the function die after the take, the
  // sweep finds the record and gives them back (no session was asked for). And recorded before Stripe is asked:
  // should the answer never come (Stripe silent past the function's time, the function gone), the checkout sweep
  // sends the request again with its idempotency key, which finds the session made then or proves there is none;
  // the tickets are held meanwhile (an early release would give them twice).
  const unanswered: CheckoutRecord = {
    sessionId: unansweredSessionId(sessionRequest.idempotencyKey),
    eventId: event.id,
    email: input.email,
    quantity: input.quantity,
    status: 'held',
    createdAt: at,
    updatedAt: at,
    request: sessionRequest,
    pending: 'take',
  };
  await deps.stores.orders.createCheckout(unanswered);
  try {
    await takeTickets(deps, unanswered, event, now);
  } catch (error) {
    if (error instanceof Conflict || error instanceof InvalidInput || error instanceof NotFound) {
      // Refused (sold out, off sale): every take was a write whose condition failed, so nothing was taken and the
      // event holds no mark of it. Only the record closes, and a crowd's losers never write the event's item.
      await deps.stores.orders.advanceCheckout(unanswered.sessionId, 'take', { status: 'released', pending: null }, deps.now().toISOString()).catch(() => false);
    } else {
      // The store failed, and the take may have happened: given back if so (should the store still fail, the
      // record waits for the sweep, which does the same).
      await abandonCheckout(deps, unanswered).catch(() => false);
    }
    throw error;
  }
  await deps.stores.orders.advanceCheckout(unanswered.sessionId, 'take', { status: 'held', pending: null }, deps.now().toISOString());
  await deps.stores.events.forgetCheckout(event.id, unanswered.sessionId);
  const { pending: _taken, ...held } = unanswered;
  let session: { id: string; url: string };
  try {
    session = await sessions.create(sessionRequest);
  } catch (error) {
    if (error instanceof PaymentsUnavailable && !error.created) await releaseCheckout(deps, held, 'held');
    throw error;
  }
  await handOverCheckout(deps, held, session.id);
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
export async function releaseCheckout(deps: { stores: { events: EventStore; orders: OrderStore }; now(): Date }, checkout: CheckoutOfSession, from: 'held' | 'paid'): Promise<boolean> {
  // No record: the API died between the session and its record; the session's tickets were taken all the same.
  // Recorded first, waiting for its tickets to go back: the sweep gives them back should this function die now.
  const moved = await deps.stores.orders.moveCheckout(fieldsOf(checkout), from === 'held' ? ['held', 'absent'] : ['paid'], 'released', deps.now().toISOString(), 'return');
  if (moved) await giveBack(deps, checkout, 'return');
  return moved;
}

/**
 * An unanswered checkout whose session turned up: the session's own record takes its hold over (unless the
 * session's webhook already settled it: that record stands), and the unanswered one is released without
 * giving tickets back. True when this call handed it over.
 */
export async function handOverCheckout(deps: { stores: { orders: OrderStore }; now(): Date }, unanswered: CheckoutRecord, sessionId: string): Promise<boolean> {
  const now = deps.now().toISOString();
  const { request, ...record } = unanswered;
  await deps.stores.orders.createCheckout({ ...record, sessionId, status: 'held', updatedAt: now });
  return deps.stores.orders.moveCheckout(fieldsOf(unanswered), ['held'], 'released', now);
}

/** A paid session keeps its tickets: marked paid, so that a late or replayed expiry frees nothing. */
export async function keepCheckout(deps: { stores: { orders: OrderStore }; now(): Date }, checkout: CheckoutOfSession): Promise<void> {
  await deps.stores.orders.moveCheckout(fieldsOf(checkout), ['held', 'absent'], 'paid', deps.now().toISOString());
}

/**
 * `GET /api/checkout/:sessionId`: what the buyer's return page polls. The session's id is the secret
 * this browser holds (Stripe put it in the return address): its status and, once paid, its codes.
 */
export async function checkoutStatus(deps: { stores: { orders: OrderStore } }, id: string) {
  const checkout = await deps.stores.orders.getCheckout(id);
  if (!checkout) throw new NotFound('checkout');
  const order = await deps.stores.orders.getOrder(orderKeyId('stripe', id));
  const status = order && order.status !== 'issuing' ? order.status : checkout.status === 'released' ? 'expired' : 'pending';
  return { status, eventId: checkout.eventId, email: order?.email ?? checkout.email, quantity: checkout.quantity, codes: status === 'paid' ? order!.codes : [] };
}
