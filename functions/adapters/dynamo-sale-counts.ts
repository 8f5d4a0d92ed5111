import type { SaleMark, SaleMove } from '../domain/events';
import { eventKey } from './dynamo-keys';
import type { DynamoTable } from './dynamo-table';

/**
 * The sales figures on the event item (the events port's `countSale` and `forgetSale`, dynamo-event-store.ts).
 * An order's mark on the event (`sale#<order id>`) says which of its changes the figures hold (`paid`,
 * `refunded`); the write that counts sets it, so a count sent again adds nothing; dropped once the order agrees.
 */
const SALE = 'sale#';
/** The sales figures and the attribute names a count writes them under. */
const FIGURES = { '#held': 'ticketsHeld', '#sold': 'ticketsSold', '#orders': 'paidOrders', '#revenue': 'revenueMinor', '#refunded': 'refundedMinor' } as const;

/** An order's mark: bookkeeping of the counts, not part of the event. */
export const isSaleMark = (name: string) => name.startsWith(SALE);

/** The first move whose `from` is the order's mark now adds its deltas and sets the mark, in one conditional write. */
export async function countSale(table: DynamoTable, id: string, orderId: string, moves: readonly SaleMove[], to: SaleMark): Promise<void> {
  for (const { from, deltas } of moves) {
    const outcome = await table.writeIf({
      update: {
        Key: eventKey(id),
        UpdateExpression: 'SET #mark = :to ADD #held :held, #sold :sold, #orders :orders, #revenue :revenue, #refunded :refunded',
        ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(deleted) AND ${from === 'none' ? 'attribute_not_exists(#mark)' : '#mark = :from'}`,
        ExpressionAttributeNames: { ...FIGURES, '#mark': `${SALE}${orderId}` },
        ExpressionAttributeValues: {
          ':to': to,
          ':held': deltas.ticketsHeld,
          ':sold': deltas.ticketsSold,
          ':orders': deltas.paidOrders,
          ':revenue': deltas.revenueMinor,
          ':refunded': deltas.refundedMinor,
          ...(from === 'none' ? {} : { ':from': from }),
        },
      },
    });
    if (outcome.applied) return;
  }
}

/** Drops the order's mark if it is still `mark` (a later step's mark stays until its own order agrees). */
export async function forgetSale(table: DynamoTable, id: string, orderId: string, mark: SaleMark): Promise<void> {
  await table.writeIf({
    update: {
      Key: eventKey(id),
      UpdateExpression: 'REMOVE #mark',
      ConditionExpression: '#mark = :mark',
      ExpressionAttributeNames: { '#mark': `${SALE}${orderId}` },
      ExpressionAttributeValues: { ':mark': mark },
    },
  });
}
