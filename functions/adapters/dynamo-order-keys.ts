import type { CheckoutRecord } from '../domain/commerce';
import { shardOf } from './dynamo-keys';

/** The keys of the orders port's items (dynamo-order-store.ts says where each one is listed). */
export const orderKey = (id: string) => ({ pk: `ORDER#${id}`, sk: 'ORDER' });
export const paymentKey = (ref: string) => ({ pk: `PAYMENT#${ref}`, sk: 'PAYMENT' });
export const earlyRefundKey = (id: string) => ({ pk: `EARLY-REFUND#${id}`, sk: 'EARLY-REFUND' });
export const checkoutKey = (sessionId: string) => ({ pk: `CHECKOUT#${sessionId}`, sk: 'CHECKOUT' });
export const listingPk = (eventId: string) => `ORDERS#${eventId}`;
/** Checkouts start at buyers' pace, across every event: spread so that no partition takes them all. */
export const HELD_SHARDS = 8;
export const heldPk = (shard: number) => `CHECKOUTS-HELD#${shard}`;
export const listedKeys = (sessionId: string, at: string) => ({ gsi1pk: heldPk(shardOf(sessionId, HELD_SHARDS)), gsi1sk: `${at}#${sessionId}` });
export const heldKeys = (checkout: CheckoutRecord) => listedKeys(checkout.sessionId, checkout.createdAt);
export const KEY_FIELDS = ['pk', 'sk', 'gsi1pk', 'gsi1sk'] as const;
export const SALES_STEP_SHARDS = 4;
export const salesStepPk = (shard: number) => `SALES-STEPS#${shard}`;
