import { Contended } from '../errors';
import type { EventStore, SaleMark, SaleMove } from '../events';
import type { SalesDeltas } from '../records';
import type { OrderChanges, OrderExpectation, OrderRecord, OrderStore, SalesStep } from './order-store';

/**
 * The event's sales figures (records.ts) follow its orders without a transaction, which the embedded
 * DynamoDB lacks: the write that changes an order's status asks for its count step in the same write
 * (`salesStep`), the event's figures then change in one conditional write that leaves the order's mark
 * on the event (so the step sent again adds nothing), the order says the step is done, and the event
 * forgets the mark. Whoever asked for a step (or claimed it, `salesStepAt`) owns it; one left longer than
 * any function of the app runs has a dead writer, and a replay of the order or the sweep claims and ends it.
 */
export const SALES_STEP_STALE_MS = 5 * 60_000;

type SalesDeps = { stores: { events: EventStore; orders: OrderStore }; now(): Date };

const paidDeltas = (order: OrderRecord): SalesDeltas => ({
  ticketsHeld: order.checkoutHeld ? -order.quantity : 0,
  ticketsSold: order.quantity,
  paidOrders: 1,
  revenueMinor: order.amountMinor ?? 0,
  refundedMinor: 0,
});

/** A refunded checkout's tickets go back to its hold for a moment: its release gives them back to the sale (checkout.ts). */
const refundDeltas = (order: OrderRecord): SalesDeltas => ({
  ticketsHeld: order.checkoutHeld ? order.quantity : 0,
  ticketsSold: -order.quantity,
  paidOrders: -1,
  revenueMinor: -(order.amountMinor ?? 0),
  refundedMinor: order.amountMinor ?? 0,
});

/**
 * What a step may find on the event (the order's mark) and adds then; the mark it leaves. A refund is asked
 * for only once the sale's count is done (refundSalesStep), so its sale's mark is there still or forgotten.
 */
function movesOf(order: OrderRecord, step: SalesStep): { moves: SaleMove[]; to: SaleMark } {
  if (step === 'paid') return { moves: [{ from: 'none', deltas: paidDeltas(order) }], to: 'paid' };
  return { moves: [{ from: 'none', deltas: refundDeltas(order) }, { from: 'paid', deltas: refundDeltas(order) }], to: 'refunded' };
}

const isStale = (order: OrderRecord, now: Date) => Date.parse(order.salesStepAt ?? '') < now.getTime() - SALES_STEP_STALE_MS;

/** The changes that make an order paid also ask for its sale's count; a Stripe order of a checkout of ours held its tickets until now. */
export async function paidSalesStep(deps: SalesDeps, order: OrderRecord): Promise<OrderChanges> {
  const checkout = order.source === 'stripe' ? await deps.stores.orders.getCheckout(order.orderId) : null;
  return { salesStep: 'paid', salesStepAt: deps.now().toISOString(), checkoutHeld: checkout?.status === 'paid' };
}

/** How long a refund waits for a live writer to finish counting the sale (a few writes: milliseconds) before it gives up. */
const COUNT_WAIT_MS = 2_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What refunding `order` (as read) expects and asks for: a paid one's refund counted, on the sale's count
 * it saw. A sale whose count a live writer is still making is waited for (its writer's mark must not be
 * forgotten under it), then refused (Contended: the sender retries); one whose writer died is ended first.
 */
export async function refundSalesStep(deps: SalesDeps, order: OrderRecord): Promise<{ expect: OrderExpectation; changes: OrderChanges }> {
  if (order.status !== 'paid') return { expect: { from: [order.status] }, changes: {} };
  let current = await settleSalesStep(deps, order);
  for (const started = Date.now(); current.salesStep && Date.now() - started < COUNT_WAIT_MS; ) {
    await sleep(50);
    current = await settleSalesStep(deps, (await deps.stores.orders.getOrder(order.id)) ?? current);
  }
  if (current.salesStep) throw new Contended(`order ${order.id}: its sale is being counted`);
  return { expect: { from: ['paid'], salesStep: null }, changes: { salesStep: 'refunded', salesStepAt: deps.now().toISOString() } };
}

/**
 * Carries out the order's step, which this writer owns (it asked for it or claimed it at the order's `salesStepAt`):
 * the event's figures, then the order says so (unless another claimed the step meanwhile: that one ends it),
 * then the event forgets the order. The order as it is after.
 */
export async function countSale(deps: SalesDeps, order: OrderRecord): Promise<OrderRecord> {
  const step = order.salesStep;
  if (!step || !order.salesStepAt) return order;
  const { moves, to } = movesOf(order, step);
  await deps.stores.events.countSale(order.eventId, order.id, moves, to);
  const agreed = await deps.stores.orders.updateOrder(
    order.id,
    { from: [order.status], salesStep: step, salesStepAt: order.salesStepAt },
    { salesStep: null, salesStepAt: null },
    deps.now().toISOString(),
  );
  if (!agreed) return (await deps.stores.orders.getOrder(order.id)) ?? order;
  await deps.stores.events.forgetSale(order.eventId, order.id, to);
  return agreed;
}

/** An order as a replay (or the sweep) finds it: a step left by a dead writer is claimed and ended; one still fresh is its writer's. */
export async function settleSalesStep(deps: SalesDeps, order: OrderRecord): Promise<OrderRecord> {
  const now = deps.now();
  if (!order.salesStep || !isStale(order, now)) return order;
  const claimed = await deps.stores.orders.updateOrder(
    order.id,
    { from: [order.status], salesStep: order.salesStep, salesStepAt: order.salesStepAt! },
    { salesStepAt: now.toISOString() },
    now.toISOString(),
  );
  return claimed ? countSale(deps, claimed) : ((await deps.stores.orders.getOrder(order.id)) ?? order);
}

/** How many stale steps one sweep run ends (the next run takes the rest). */
const SWEEP_BATCH = 50;

/** The sweep's part: ends the steps of orders whose writer died; the orders it settled. */
export async function settleStaleSalesSteps(deps: SalesDeps): Promise<string[]> {
  const before = new Date(deps.now().getTime() - SALES_STEP_STALE_MS).toISOString();
  const stale = await deps.stores.orders.listStaleSalesSteps({ before, limit: SWEEP_BATCH });
  const settled: string[] = [];
  for (const order of stale) {
    const after = await settleSalesStep(deps, order);
    if (!after.salesStep) settled.push(order.id);
  }
  return settled;
}
