import * as z from 'zod';
import { Conflict } from '../errors';
import { parseInput, recordId } from '../inputs';
import { rateLimitSubject } from '../rate-limit-subject';
import { hitRateLimit } from '../rate-limits';
import type { AuditDeps } from '../audit';
import type { CounterStore } from '../counter-store';
import type { OrderStore } from './order-store';
import { resendOrderEmail } from './orders';

/** `POST /api/orders/resend`: the event and the address the tickets were bought with. */
export const buyerResendInput = z.object({
  eventId: recordId,
  email: z.email('must be an email address').max(320),
});

/** The buyer's orders looked at: far more than anyone buys for one show. */
const BUYER_ORDERS = 100;

/**
 * A buyer who lost their tickets asks for them again: each paid order of that address for the event
 * owes its tickets email again (the mailer sends it to the order's address, never elsewhere). The
 * answer is the same whether or not the address bought, so that nobody learns who did; the limits
 * count every request, per client and per address, so that the route can neither list buyers nor
 * flood an inbox.
 */
export async function resendBuyerTickets(
  deps: { stores: { counters: CounterStore; orders: OrderStore } } & AuditDeps,
  body: unknown,
  request: { ip: string },
): Promise<{ sent: true }> {
  const input = parseInput(buyerResendInput, body);
  const now = deps.now();
  await hitRateLimit(deps.stores.counters, 'resendClient', rateLimitSubject(request.ip), now);
  await hitRateLimit(deps.stores.counters, 'resendAddress', input.email.toLowerCase(), now);
  const orders = await deps.stores.orders.listBuyerOrders({ eventId: input.eventId, email: input.email, limit: BUYER_ORDERS });
  const actor = { name: 'buyer', clientIp: request.ip };
  for (const order of orders.filter((bought) => bought.status === 'paid')) {
    try {
      await resendOrderEmail(deps, actor, order.id);
    } catch (error) {
      // Refunded since it was read: it owes no tickets.
      if (!(error instanceof Conflict)) throw error;
    }
  }
  return { sent: true };
}
