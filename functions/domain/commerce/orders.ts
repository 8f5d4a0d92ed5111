import { createHash } from 'node:crypto';
import { generateAccessCode } from '../codes';
import { newCodeRecord } from '../codes';
import { settleEventActive } from '../codes';
import { changeRevoked } from '../codes';
import { AlreadyExists, Conflict, Contended, NotFound } from '../errors';
import { parseInput } from '../inputs';
import { orderListQuery, type OrderWebhookBody } from './order-input';
import type { EmailKind, OrderRecord, OrderSource } from './order-store';
import { randomId } from '../random';
import type { EventRecord } from '../records';
import type { EventStore } from '../events';
import type { CodeStore } from '../codes';
import type { CounterStore } from '../counter-store';
import type { OrderStore } from './order-store';
import { countSale, paidSalesStep, refundSalesStep, settleSalesStep } from './sales-count';
import type { AppConfig } from '../config';
import { recordAudit, type Actor, type AuditDeps } from '../audit';

/** Our id of a shop's order: the same delivery, replayed, finds the same record. */
export function orderKeyId(source: OrderSource, orderId: string): string {
  return createHash('sha256').update(`${source}\n${orderId}`, 'utf8').digest('base64url').slice(0, 22);
}

/** What a delivery did: the order as it is now, and what this delivery changed (null: a replay, nothing). */
export interface OrderOutcome {
  order: OrderRecord;
  changed: 'paid' | 'refunded' | 'failed' | null;
}

/** A shop's order as first recorded: no email owed yet; `state` sets its status (and planned codes, or failure). */
function newOrder(id: string, source: OrderSource, body: OrderWebhookBody, now: string, state: Pick<OrderRecord, 'status'> & Partial<OrderRecord>): OrderRecord {
  return {
    id,
    source,
    orderId: body.orderId,
    eventId: body.eventId,
    email: body.email,
    quantity: body.quantity,
    amountMinor: body.amountMinor ?? null,
    currency: body.currency ?? null,
    failure: null,
    codes: [],
    codeIds: [],
    createdAt: now,
    updatedAt: now,
    emailKind: null,
    emailStatus: null,
    emailRequest: null,
    emailAttempts: 0,
    emailError: null,
    emailSentAt: null,
    ...state,
  };
}

/** What owing the buyer an email of `kind` writes on the order (a new request: the mailer sends it once). */
export const emailOwed = (kind: EmailKind) => ({ emailKind: kind, emailStatus: 'pending', emailRequest: randomId(12), emailAttempts: 0, emailError: null }) as const;

/** Who reports an order: the shop's webhook or Stripe (`name` is the order's source), from the address it called from. */
export interface OrderActor extends Actor {
  name: OrderSource;
}

const AUDIT_OF = { paid: 'order.paid', refunded: 'order.refunded', failed: 'order.failed' } as const;

/** An order's change in the audit log, by whoever reported it; a replay changed nothing and records nothing. */
async function recordOutcome(deps: AuditDeps, actor: Actor, outcome: OrderOutcome): Promise<OrderOutcome> {
  const { order, changed } = outcome;
  if (!changed) return outcome;
  await recordAudit(deps, actor, {
    action: AUDIT_OF[changed],
    eventId: order.eventId,
    target: `order ${order.orderId}`,
    details: { orderId: order.id, email: order.email, quantity: order.quantity, ...(order.failure ? { failure: order.failure } : {}) },
  });
  return outcome;
}

/**
 * An order was paid, as `actor` reports (in the audit log): recorded once (conditional on its id), its codes planned in the record, then
 * issued, then the ticket email owed. A replay, or a parallel delivery, of the same order finds the
 * record: one still `issuing` (its first delivery died, or is running) is carried on with the same
 * planned codes, so no code is issued twice; one further along is answered as it is. An order for an
 * unknown or deleted event is recorded `failed` with the reason.
 */
export async function orderPaid(deps: { stores: { codes: CodeStore; events: EventStore; orders: OrderStore } } & AuditDeps, actor: OrderActor, body: OrderWebhookBody): Promise<OrderOutcome> {
  return recordOutcome(deps, actor, await payOrder(deps, actor.name, body));
}

async function payOrder(deps: { stores: { codes: CodeStore; events: EventStore; orders: OrderStore }; now(): Date }, source: OrderSource, body: OrderWebhookBody): Promise<OrderOutcome> {
  const id = orderKeyId(source, body.orderId);
  const event = await deps.stores.events.getEvent(body.eventId);
  const now = deps.now().toISOString();
  const planned = Array.from({ length: body.quantity }, (_, line) => ({ code: generateAccessCode(), id: `${id}-${line + 1}` }));
  const { created, order } = await deps.stores.orders.createOrder(
    newOrder(id, source, body, now, event ? { status: 'issuing', codes: planned.map((line) => line.code), codeIds: planned.map((line) => line.id) } : { status: 'failed', failure: 'event not found' }),
  );
  if (order.status === 'failed') return { order, changed: created ? 'failed' : null };
  if (order.status !== 'issuing') return { order: await settleSalesStep(deps, order), changed: null };
  // Looked for after the record (a refund marks before it looks for the order): one of the two sees the other.
  if (await deps.stores.orders.refundedBeforePaid(id)) return refundedUnissued(deps, order);
  return finishIssuing(deps, order);
}

/** A payment whose refund came first: its order is recorded refunded, and none of its codes issued. */
async function refundedUnissued(deps: { stores: { orders: OrderStore }; now(): Date }, order: OrderRecord): Promise<OrderOutcome> {
  const refunded = await deps.stores.orders.updateOrder(order.id, { from: ['issuing'] }, { status: 'refunded', failure: 'refunded before it was paid' }, deps.now().toISOString());
  return refunded ? { order: refunded, changed: 'refunded' } : { order: (await deps.stores.orders.getOrder(order.id))!, changed: null };
}

/** Issues the order's planned codes (each at most once: its id is fixed by the order line), then marks the order paid. */
async function finishIssuing(deps: { stores: { codes: CodeStore; events: EventStore; orders: OrderStore }; now(): Date }, order: OrderRecord): Promise<OrderOutcome> {
  const event = await deps.stores.events.getEvent(order.eventId);
  if (!event) {
    // Deleted between the record and now: nothing to issue codes for.
    const failed = await deps.stores.orders.updateOrder(order.id, { from: ['issuing'] }, { status: 'failed', failure: 'event not found' }, deps.now().toISOString());
    return failed ? { order: failed, changed: 'failed' } : { order: (await deps.stores.orders.getOrder(order.id))!, changed: null };
  }
  let current = order;
  for (let line = 0; line < current.codes.length; line++) current = await issueLine(deps, event, current, line);
  const sale = await paidSalesStep(deps, current);
  const paid = await deps.stores.orders.updateOrder(current.id, { from: ['issuing'] }, { status: 'paid', ...emailOwed('tickets'), ...sale }, deps.now().toISOString());
  if (!paid) return { order: await settleSalesStep(deps, (await deps.stores.orders.getOrder(current.id))!), changed: null };
  // Counted by the one delivery that made the order paid, so replays and parallel deliveries count it once.
  await deps.stores.events.addToCodeCount(event.id, paid.codes.length);
  await countSale(deps, paid);
  await settleEventActive(deps, event);
  return { order: paid, changed: 'paid' };
}

/** Creates line `line`'s code unless an earlier or parallel delivery made it; the order as it is after (its plan may change). */
async function issueLine(deps: { stores: { codes: CodeStore; orders: OrderStore }; now(): Date }, event: EventRecord, order: OrderRecord, line: number): Promise<OrderRecord> {
  let current = order;
  for (;;) {
    const code = current.codes[line]!;
    const id = current.codeIds[line]!;
    try {
      await deps.stores.codes.createCode(newCodeRecord({ id, code, eventId: event.id, label: current.email, createdAt: current.createdAt, eventActive: event.isActive }));
      return current;
    } catch (error) {
      if (!(error instanceof AlreadyExists)) throw error;
    }
    if ((await deps.stores.codes.getCode(code))?.id === id) return current;
    // A code issued elsewhere has this value (60 random bits: rare beyond measure): plan another, once for every delivery.
    const replaced = await deps.stores.orders.replacePlannedCode(current.id, line, code, generateAccessCode(), deps.now().toISOString());
    current = replaced ?? (await deps.stores.orders.getOrder(current.id))!;
  }
}

type RefundDeps = { stores: { codes: CodeStore; counters: CounterStore; events: EventStore; orders: OrderStore }; config: Pick<AppConfig, 'sessionTimeoutSeconds'> } & AuditDeps;

/**
 * An order was refunded, as `actor` reports (in the audit log): its codes revoked through the revoke rule (counted, and denied at the
 * edge), then the order marked refunded and the buyer told. A refund of an order never seen makes no order: it
 * leaves a mark (`markRefundedBeforePaid`) so that its payment arriving late issues nothing, and answers null.
 */
export async function orderRefunded(deps: RefundDeps, actor: OrderActor, body: OrderWebhookBody): Promise<OrderOutcome | null> {
  const outcome = await refundOrder(deps, actor.name, body, 'refund');
  return outcome && recordOutcome(deps, actor, outcome);
}

/** Refunds an order that exists (the console's refund, a cancelled show's), by `actor`; the buyer is owed `emailKind`. */
export async function refundKnownOrder(deps: RefundDeps, actor: Actor, order: OrderRecord, emailKind: 'refund' | 'cancelled'): Promise<OrderOutcome> {
  const body: OrderWebhookBody = { type: 'order.refunded', orderId: order.orderId, eventId: order.eventId, email: order.email, quantity: order.quantity };
  return recordOutcome(deps, actor, (await refundOrder(deps, order.source, body, emailKind))!);
}

async function refundOrder(deps: { stores: { codes: CodeStore; counters: CounterStore; events: EventStore; orders: OrderStore }; config: Pick<AppConfig, 'sessionTimeoutSeconds'>; now(): Date }, source: OrderSource, body: OrderWebhookBody, emailKind: 'refund' | 'cancelled'): Promise<OrderOutcome | null> {
  const id = orderKeyId(source, body.orderId);
  let order = await deps.stores.orders.getOrder(id);
  if (!order) {
    await deps.stores.orders.markRefundedBeforePaid(id, deps.now().toISOString());
    // A payment recorded meanwhile looks for the mark after its record: if it missed it, it is found here.
    order = await deps.stores.orders.getOrder(id);
    if (!order) return null;
  }
  let current = order;
  // Codes being issued are issued first, so that none escapes the revocation.
  if (current.status === 'issuing') current = (await finishIssuing(deps, current)).order;
  const at = deps.now();
  for (const [line, codeId] of current.codeIds.entries()) {
    try {
      await changeRevoked(deps, codeId, true, at);
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
      // Found by id through an index that may lag a fresh write: a code that exists is not left playing
      // (the shop retries the delivery); one that does not was deleted with its event.
      if (await deps.stores.codes.getCode(current.codes[line]!)) throw new Contended('the order\'s codes are not all findable yet');
    }
  }
  if (current.status === 'refunded') return { order: await settleSalesStep(deps, current), changed: null };
  // A cancelled show's buyer not yet told is told of the cancellation, whichever refund (the job's, Stripe's webhook)
  // came first; one told already (a shop's order, refunded by the shop after) gets the refund notice.
  const untold = emailKind === 'refund' && current.emailKind !== 'cancelled' && Boolean((await deps.stores.events.getEvent(current.eventId))?.cancelledAt);
  const withEmail = current.status === 'paid' ? emailOwed(untold ? 'cancelled' : emailKind) : {};
  const sale = await refundSalesStep(deps, current);
  const refunded = await deps.stores.orders.updateOrder(current.id, sale.expect, { status: 'refunded', ...withEmail, ...sale.changes }, at.toISOString());
  if (refunded) {
    await countSale(deps, refunded);
    return { order: refunded, changed: 'refunded' };
  }
  return { order: (await deps.stores.orders.getOrder(current.id))!, changed: null };
}

/** An order as the console lists it. */
export function orderView(order: OrderRecord) {
  return {
    id: order.id,
    source: order.source,
    orderId: order.orderId,
    eventId: order.eventId,
    email: order.email,
    quantity: order.quantity,
    amount: order.amountMinor === null ? null : { minor: order.amountMinor, currency: order.currency },
    // `issuing` lasts a moment (or until the shop's retry finishes it): the console shows it as paid.
    status: order.status === 'issuing' ? 'paid' : order.status,
    /** Refundable from the console (`POST /api/admin/orders/:orderId/refund`): a paid Stripe order. A shop's is refunded in the shop. */
    refundable: order.source === 'stripe' && (order.status === 'paid' || order.status === 'issuing'),
    failure: order.failure,
    codes: order.status === 'issuing' ? [] : order.codes,
    /** The last email owed to the buyer: `tickets`, `refund` or `cancelled`, and whether it went out (`pending`, `sent`, `failed`). */
    emailKind: order.emailKind,
    emailStatus: order.emailStatus,
    emailError: order.emailError,
    emailSentAt: order.emailSentAt,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}
export type OrderView = ReturnType<typeof orderView>;

export async function listEventOrders(deps: { stores: { orders: OrderStore } }, eventId: string, query: Record<string, string>) {
  const { cursor, limit } = parseInput(orderListQuery, query);
  const page = await deps.stores.orders.listEventOrders({ eventId, cursor: cursor ?? null, limit });
  return { orders: page.orders.map(orderView), nextCursor: page.nextCursor };
}

/** Owes the buyer the order's email again (tickets, or the refund notice), by `actor`, in the audit log: the mailer sends it (handlers/mailer.ts). */
export async function resendOrderEmail(deps: { stores: { orders: OrderStore } } & AuditDeps, actor: Actor, id: string): Promise<OrderRecord> {
  const order = await deps.stores.orders.getOrder(id);
  if (!order) throw new NotFound('order');
  if (order.status !== 'paid' && order.status !== 'refunded') throw new Conflict('order-without-tickets');
  const updated = await deps.stores.orders.updateOrder(
    id,
    { from: [order.status] },
    // A cancelled show's buyers get its notice again, never tickets that no longer play.
    emailOwed(order.emailKind === 'cancelled' ? 'cancelled' : order.status === 'paid' ? 'tickets' : 'refund'),
    deps.now().toISOString(),
  );
  // Its status changed in between (a refund arrived): the caller may try again on the new state.
  if (!updated) throw new Conflict('order-changed');
  await recordAudit(deps, actor, { action: 'order.resend', eventId: updated.eventId, target: `order ${updated.orderId}`, details: { orderId: updated.id, email: updated.email, kind: updated.emailKind } });
  return updated;
}
