import type { BuyerOrder, CheckoutPending, CheckoutRecord, CheckoutStatus, OrderChanges, OrderExpectation, OrderRecord, OrderStore } from '../../functions/domain/commerce';
import { decodeCursor, encodeCursor } from './memory-cursor';
import { copy } from './memory-records';

const listingOrder = (order: OrderRecord) => `${order.createdAt}#${order.id}`;

/** The orders port in memory (memory-stores.ts): each method reads and writes without an await between. */
export class MemoryOrderStore implements OrderStore {
  private readonly orders = new Map<string, OrderRecord>();
  private readonly payments = new Map<string, string>();
  private readonly earlyRefunds = new Set<string>();
  private readonly checkouts = new Map<string, CheckoutRecord>();
  /** The sweep's listing, as DynamoDB's index has it: checkout → the time it is listed under. */
  private readonly listed = new Map<string, string>();

  private list(sessionId: string, at: string | null): void {
    if (at === null) this.listed.delete(sessionId);
    else this.listed.set(sessionId, at);
  }

  async createOrder(order: OrderRecord): Promise<{ created: boolean; order: OrderRecord }> {
    const existing = this.orders.get(order.id);
    if (existing) return { created: false, order: copy(existing) };
    this.orders.set(order.id, copy(order));
    return { created: true, order: copy(order) };
  }

  async getOrder(id: string): Promise<OrderRecord | null> {
    const order = this.orders.get(id);
    return order ? copy(order) : null;
  }

  async updateOrder(id: string, expect: OrderExpectation, changes: OrderChanges, now: string): Promise<OrderRecord | null> {
    const order = this.orders.get(id);
    if (!order || !expect.from.includes(order.status)) return null;
    if (expect.emailRequest !== undefined && order.emailRequest !== expect.emailRequest) return null;
    if (expect.salesStep !== undefined && (order.salesStep ?? null) !== expect.salesStep) return null;
    if (expect.salesStepAt !== undefined && order.salesStepAt !== expect.salesStepAt) return null;
    Object.assign(order, copy(changes), { updatedAt: now });
    return copy(order);
  }

  async listStaleSalesSteps(args: { before: string; limit: number }): Promise<OrderRecord[]> {
    return [...this.orders.values()]
      .filter((order) => order.salesStep && order.salesStepAt && order.salesStepAt < args.before)
      .sort((a, b) => `${a.salesStepAt}#${a.id}`.localeCompare(`${b.salesStepAt}#${b.id}`))
      .slice(0, args.limit)
      .map(copy);
  }

  async replacePlannedCode(id: string, index: number, previous: string, next: string, now: string): Promise<OrderRecord | null> {
    const order = this.orders.get(id);
    if (!order || order.codes[index] !== previous) return null;
    order.codes[index] = next;
    order.updatedAt = now;
    return copy(order);
  }

  async linkPayment(paymentRef: string, orderId: string): Promise<void> {
    this.payments.set(paymentRef, orderId);
  }

  async orderOfPayment(paymentRef: string): Promise<string | null> {
    return this.payments.get(paymentRef) ?? null;
  }

  async markRefundedBeforePaid(id: string): Promise<void> {
    this.earlyRefunds.add(id);
  }

  async refundedBeforePaid(id: string): Promise<boolean> {
    return this.earlyRefunds.has(id);
  }

  async createCheckout(checkout: CheckoutRecord): Promise<void> {
    if (this.checkouts.has(checkout.sessionId)) return;
    this.checkouts.set(checkout.sessionId, copy(checkout));
    if (checkout.status === 'held' || checkout.pending) this.list(checkout.sessionId, checkout.createdAt);
  }

  async getCheckout(sessionId: string): Promise<CheckoutRecord | null> {
    const checkout = this.checkouts.get(sessionId);
    return checkout ? copy(checkout) : null;
  }

  async moveCheckout(checkout: Omit<CheckoutRecord, 'status' | 'updatedAt'>, from: readonly (CheckoutStatus | 'absent')[], to: CheckoutStatus, now: string, pending?: CheckoutPending): Promise<boolean> {
    const existing = this.checkouts.get(checkout.sessionId);
    if (!from.includes(existing ? existing.status : 'absent') || existing?.pending) return false;
    this.checkouts.set(checkout.sessionId, { ...copy(checkout), ...existing, status: to, updatedAt: now, ...(pending ? { pending } : {}) });
    if (pending) this.list(checkout.sessionId, now);
    else if (to !== 'held') this.list(checkout.sessionId, null);
    else if (!existing) this.list(checkout.sessionId, checkout.createdAt);
    return true;
  }

  async advanceCheckout(sessionId: string, from: CheckoutPending, to: { status: CheckoutStatus; pending: CheckoutPending | null }, now: string): Promise<boolean> {
    const existing = this.checkouts.get(sessionId);
    if (!existing || existing.pending !== from) return false;
    const { pending: _was, ...rest } = existing;
    this.checkouts.set(sessionId, { ...rest, status: to.status, updatedAt: now, ...(to.pending ? { pending: to.pending } : {}) });
    if (to.pending) this.list(sessionId, now);
    else if (to.status !== 'held') this.list(sessionId, null);
    return true;
  }

  async claimCheckout(sessionId: string, seenUpdatedAt: string, now: string): Promise<boolean> {
    const existing = this.checkouts.get(sessionId);
    if (!existing?.pending || existing.updatedAt !== seenUpdatedAt) return false;
    existing.updatedAt = now;
    this.list(sessionId, now);
    return true;
  }

  async listHeldCheckouts(args: { before: string; limit: number }): Promise<CheckoutRecord[]> {
    return [...this.listed]
      .filter(([, at]) => at < args.before)
      .sort(([a, atA], [b, atB]) => `${atA}#${a}`.localeCompare(`${atB}#${b}`))
      .slice(0, args.limit)
      .map(([sessionId]) => copy(this.checkouts.get(sessionId)!));
  }

  /** The cursor names its event and the last order shown (`createdAt#id`). */
  async listBuyerOrders(args: { eventId: string; email: string; limit: number }): Promise<BuyerOrder[]> {
    const email = args.email.toLowerCase();
    return [...this.orders.values()]
      .filter((order) => order.eventId === args.eventId && order.email.toLowerCase() === email)
      .sort((a, b) => listingOrder(b).localeCompare(listingOrder(a)))
      .slice(0, args.limit)
      .map(({ id, status, codes }) => ({ id, status, codes: [...codes] }));
  }

  async listEventOrders(args: { eventId: string; cursor: string | null; limit: number }): Promise<{ orders: OrderRecord[]; nextCursor: string | null }> {
    const after = args.cursor
      ? decodeCursor<{ eventId: string; last: string }>(args.cursor, (value) => value.eventId === args.eventId && typeof value.last === 'string').last
      : null;
    const rest = [...this.orders.values()]
      .filter((order) => order.eventId === args.eventId)
      .sort((a, b) => listingOrder(b).localeCompare(listingOrder(a)))
      .filter((order) => after === null || listingOrder(order) < after);
    const orders = rest.slice(0, args.limit);
    const last = orders[orders.length - 1];
    return { orders: orders.map(copy), nextCursor: rest.length > args.limit && last ? encodeCursor({ eventId: args.eventId, last: listingOrder(last) }) : null };
  }
}
