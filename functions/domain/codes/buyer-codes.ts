import { matchesCodeFilter, type CodeFilter } from './code-filter';
import type { CodeStore } from './code-store';
import type { CodeRecord } from '../records';

/**
 * The orders a buyer bought for an event, as the codes area needs them (the commerce area's order
 * store is one): found by the address in one indexed query, never a walk over the event's orders.
 */
export interface BuyerOrders {
  listBuyerOrders(args: { eventId: string; email: string; limit: number }): Promise<{ codes: string[] }[]>;
}

/** A buyer's orders read at most: far more than anyone buys for one show, and a bound on one answer's reads. */
export const BUYER_ORDERS_READ = 100;

const order = (code: CodeRecord) => `${code.createdAt}#${code.id}`;

/**
 * The codes of the event's orders bought with `email` that match `filter`, newest first, at most
 * `limit`: the buyer's orders, then each of their codes by value. A code deleted since, or not issued
 * yet (its order still issuing), is not there.
 */
export async function buyerCodes(
  stores: { codes: CodeStore; orders: BuyerOrders },
  args: { eventId: string; email: string; filter: CodeFilter; limit: number },
): Promise<CodeRecord[]> {
  const orders = await stores.orders.listBuyerOrders({ eventId: args.eventId, email: args.email, limit: BUYER_ORDERS_READ });
  const codes = await Promise.all(orders.flatMap((bought) => bought.codes).map((value) => stores.codes.getCode(value)));
  return codes
    .filter((code): code is CodeRecord => code !== null && code.eventId === args.eventId && matchesCodeFilter(code, args.filter))
    .sort((a, b) => (order(a) < order(b) ? 1 : order(a) > order(b) ? -1 : 0))
    .slice(0, args.limit);
}
