import type { CheckoutRecord, CheckoutStatus, OrderChanges, OrderRecord, OrderStatus, OrderStore } from '../../functions/domain/order-store';
import { decodeCursor, encodeCursor } from './memory-cursor';
import { copy } from './memory-records';

const listingOrder = (order: OrderRecord) => `${order.createdAt}#${order.id}`;

/** The orders port in memory (memory-stores.ts): each method reads and writes without an await between. */
export class MemoryOrderStore implements OrderStore {
  private readonly orders = new Map<string, OrderRecord>();
  private readonly payments = new Map<string, string>();
  private readonly checkouts = new Map<string, CheckoutRecord>();

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

  async updateOrder(id: string, expect: { from: readonly OrderStatus[]; emailRequest?: string }, changes: OrderChanges, now: string): Promise<OrderRecord | null> {
    const order = this.orders.get(id);
    if (!order || !expect.from.includes(order.status)) return null;
    if (expect.emailRequest !== undefined && order.emailRequest !== expect.emailRequest) return null;
    Object.assign(order, copy(changes), { updatedAt: now });
    return copy(order);
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

  async createCheckout(checkout: CheckoutRecord): Promise<void> {
    if (!this.checkouts.has(checkout.sessionId)) this.checkouts.set(checkout.sessionId, copy(checkout));
  }

  async getCheckout(sessionId: string): Promise<CheckoutRecord | null> {
    const checkout = this.checkouts.get(sessionId);
    return checkout ? copy(checkout) : null;
  }

  async moveCheckout(checkout: Omit<CheckoutRecord, 'status' | 'updatedAt'>, from: readonly (CheckoutStatus | 'absent')[], to: CheckoutStatus, now: string): Promise<boolean> {
    const existing = this.checkouts.get(checkout.sessionId);
    if (!from.includes(existing ? existing.status : 'absent')) return false;
    this.checkouts.set(checkout.sessionId, { ...copy(checkout), ...existing, status: to, updatedAt: now });
    return true;
  }

  async listHeldCheckouts(args: { before: string; limit: number }): Promise<CheckoutRecord[]> {
    return [...this.checkouts.values()]
      .filter((checkout) => checkout.status === 'held' && checkout.createdAt < args.before)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .slice(0, args.limit)
      .map(copy);
  }

  /** The cursor names its event and the last order shown (`createdAt#id`). */
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
