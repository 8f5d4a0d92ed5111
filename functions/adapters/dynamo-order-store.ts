import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { BuyerOrder, CheckoutPending, CheckoutRecord, CheckoutStatus, OrderChanges, OrderExpectation, OrderRecord, OrderStatus, OrderStore } from '../domain/commerce';
import { decodeCursor, encodeCursor } from './dynamo-cursor';
import { buyerPk, shardOf } from './dynamo-keys';
import { orderKey, paymentKey, earlyRefundKey, checkoutKey, listingPk, HELD_SHARDS, heldPk, listedKeys, heldKeys, KEY_FIELDS, SALES_STEP_SHARDS, salesStepPk } from './dynamo-order-keys';
import type { DynamoTable, Item } from './dynamo-table';

/**
 * Orders: one item per order (`ORDER#<id>`), in its event's listing through the `byEvent` index
 * (gsi1pk = `ORDERS#<eventId>`, gsi1sk = `<createdAt>#<id>`, newest first). A sale comes at
 * checkout pace, far below one partition's 1,000 writes/s. A payment's item (`PAYMENT#<ref>`) names the
 * order it paid, for its refund. An order is also under its buyer (`byLabel`: labelPk =
 * `BUYER#<eventId>#<email>`, labelSk = `<createdAt>#<id>`), for the console's lookup and the buyer's resend. A refund that came before its order's payment leaves `EARLY-REFUND#<order id>`
 * (no order item, in no listing), which that payment finds. A checkout's item (`CHECKOUT#<session id>`) holds its tickets until it is paid or
 * expires; while held it is in the `byEvent` index under one of a few shards of all checkouts held
 * (gsi1pk = `CHECKOUTS-HELD#<n>`, gsi1sk = `<createdAt>#<session id>`), which its move out of `held`
 * removes, so that the sweep finds the held ones its webhook forgot; one waiting for a step of the
 * event's ticket count is there too, under the time that step was asked for (gsi1sk = `<then>#<session id>`),
 * so that the sweep finds those whose writer died. An order waiting for a count of its event's sales
 * figures (`salesStep`) is listed, in the same write, in the sparse `accessFeed` index under one of a few
 * shards of its own (feedPk = `SALES-STEPS#<n>`, feedSk = `<salesStepAt>#<id>`; the access feed reads only
 * `FEED#` shards), so that the checkout sweep finds those whose writer died. Its writes are conditional on the
 * status the caller saw; the table's stream hands orders that owe an email to the mailer.
 */
/** Expression values of the same names: `{ gsi1pk }` → `{ ':gsi1pk' }`. */
const prefixed = (fields: Record<string, string>) => Object.fromEntries(Object.entries(fields).map(([name, value]) => [`:${name}`, value]));

function toCheckout(item: Item): CheckoutRecord {
  const { pk, sk, entity, gsi1pk, gsi1sk, ...checkout } = item;
  return checkout as unknown as CheckoutRecord;
}

export function toOrder(item: Item): OrderRecord {
  const { pk, sk, entity, gsi1pk, gsi1sk, feedPk, feedSk, labelPk, labelSk, ...order } = item;
  return order as unknown as OrderRecord;
}

/** The orders port on DynamoDB. */
export class DynamoOrderStore implements OrderStore {
  constructor(private readonly table: DynamoTable) {}

  async createOrder(order: OrderRecord): Promise<{ created: boolean; order: OrderRecord }> {
    const outcome = await this.table.writeIf({
      put: {
        Item: {
          ...orderKey(order.id),
          entity: 'order',
          gsi1pk: listingPk(order.eventId),
          gsi1sk: `${order.createdAt}#${order.id}`,
          labelPk: buyerPk(order.eventId, order.email),
          labelSk: `${order.createdAt}#${order.id}`,
          ...order,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
    if (outcome.applied) return { created: true, order };
    return { created: false, order: toOrder((await outcome.seen())!) };
  }

  async getOrder(id: string): Promise<OrderRecord | null> {
    const item = await this.table.get(orderKey(id));
    return item ? toOrder(item) : null;
  }

  async updateOrder(id: string, expect: OrderExpectation, changes: OrderChanges, now: string): Promise<OrderRecord | null> {
    const fields: Record<string, unknown> = { ...changes, updatedAt: now };
    // Listed for the sweep while it waits for a sales step, under the time its step was asked for or claimed.
    if (changes.salesStepAt) Object.assign(fields, { feedPk: salesStepPk(shardOf(id, SALES_STEP_SHARDS)), feedSk: `${changes.salesStepAt}#${id}` });
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = {};
    const sets = Object.entries(fields).map(([field, value], i) => {
      names[`#f${i}`] = field;
      values[`:f${i}`] = value;
      return `#f${i} = :f${i}`;
    });
    const from = expect.from.map((status, i) => {
      values[`:from${i}`] = status;
      return `:from${i}`;
    });
    const conditions = [`attribute_exists(pk) AND #status IN (${from.join(', ')})`];
    for (const field of ['emailRequest', 'salesStep', 'salesStepAt'] as const) {
      const value = expect[field];
      if (value === undefined) continue;
      names[`#x${field}`] = field;
      values[`:x${field}`] = value;
      // Null: absent on orders made before the field.
      conditions.push(value === null ? `(attribute_not_exists(#x${field}) OR #x${field} = :x${field})` : `#x${field} = :x${field}`);
    }
    const unlisted = changes.salesStepAt === null ? ' REMOVE feedPk, feedSk' : '';
    const outcome = await this.table.writeIf({
      update: {
        Key: orderKey(id),
        UpdateExpression: `SET ${sets.join(', ')}${unlisted}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      },
    });
    return outcome.applied ? toOrder(outcome.item) : null;
  }

  async listStaleSalesSteps(args: { before: string; limit: number }): Promise<OrderRecord[]> {
    const shards = await Promise.all(
      Array.from({ length: SALES_STEP_SHARDS }, (_, shard) =>
        this.table.queryAll(
          {
            IndexName: 'accessFeed',
            KeyConditionExpression: 'feedPk = :pk AND feedSk < :before',
            ExpressionAttributeValues: { ':pk': salesStepPk(shard), ':before': args.before },
          },
          args.limit,
        ),
      ),
    );
    // The index holds a few of an order's fields: the order itself is read (and skipped if its step ended meanwhile).
    const oldest = shards
      .flat()
      .sort((a, b) => String(a.feedSk).localeCompare(String(b.feedSk)))
      .slice(0, args.limit);
    const orders = await Promise.all(oldest.map((item) => this.getOrder(String(item.pk).slice('ORDER#'.length))));
    return orders.filter((order): order is OrderRecord => Boolean(order?.salesStep));
  }

  async replacePlannedCode(id: string, index: number, previous: string, next: string, now: string): Promise<OrderRecord | null> {
    const outcome = await this.table.writeIf({
      update: {
        Key: orderKey(id),
        UpdateExpression: `SET codes[${index}] = :next, updatedAt = :now`,
        ConditionExpression: `codes[${index}] = :previous`,
        ExpressionAttributeValues: { ':next': next, ':previous': previous, ':now': now },
        ReturnValues: 'ALL_NEW',
      },
    });
    return outcome.applied ? toOrder(outcome.item) : null;
  }

  async linkPayment(paymentRef: string, orderId: string): Promise<void> {
    await this.table.client.send(new PutCommand({ TableName: this.table.name, Item: { ...paymentKey(paymentRef), entity: 'payment', orderId } }));
  }

  async orderOfPayment(paymentRef: string): Promise<string | null> {
    return ((await this.table.get(paymentKey(paymentRef)))?.orderId as string | undefined) ?? null;
  }

  async markRefundedBeforePaid(id: string, now: string): Promise<void> {
    await this.table.client.send(new PutCommand({ TableName: this.table.name, Item: { ...earlyRefundKey(id), entity: 'early-refund', orderId: id, at: now } }));
  }

  async refundedBeforePaid(id: string): Promise<boolean> {
    return (await this.table.get(earlyRefundKey(id))) !== null;
  }

  async createCheckout(checkout: CheckoutRecord): Promise<void> {
    const held = checkout.status === 'held' || checkout.pending ? heldKeys(checkout) : {};
    await this.table.writeIf({ put: { Item: { ...checkoutKey(checkout.sessionId), entity: 'checkout', ...held, ...checkout }, ConditionExpression: 'attribute_not_exists(pk)' } });
  }

  async getCheckout(sessionId: string): Promise<CheckoutRecord | null> {
    const item = await this.table.get(checkoutKey(sessionId));
    return item ? toCheckout(item) : null;
  }

  async moveCheckout(checkout: Omit<CheckoutRecord, 'status' | 'updatedAt'>, from: readonly (CheckoutStatus | 'absent')[], to: CheckoutStatus, now: string, pending?: CheckoutPending): Promise<boolean> {
    const names: Record<string, string> = { '#status': 'status', '#pending': 'pending' };
    const values: Record<string, unknown> = { ':to': to, ':now': now, ':entity': 'checkout' };
    // A record made by this write gets the checkout's fields; an existing one keeps its own.
    const kept = Object.entries({ ...checkout }).map(([field, value], i) => {
      names[`#k${i}`] = field;
      values[`:k${i}`] = value;
      return `#k${i} = if_not_exists(#k${i}, :k${i})`;
    });
    const statuses = from.filter((status) => status !== 'absent').map((status, i) => {
      values[`:from${i}`] = status;
      return `:from${i}`;
    });
    const conditions = [...(from.includes('absent') ? ['attribute_not_exists(pk)'] : []), ...(statuses.length ? [`(#status IN (${statuses.join(', ')}) AND attribute_not_exists(#pending))`] : [])];
    // Held, it stays in the sweep's listing; waiting for a count step, it enters it (again) now; otherwise it leaves it.
    let listing = ' REMOVE gsi1pk, gsi1sk';
    if (pending) {
      Object.assign(values, { ':pending': pending, ...prefixed(listedKeys(checkout.sessionId, now)) });
      listing = ', #pending = :pending, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk';
    } else if (to === 'held') listing = '';
    const outcome = await this.table.writeIf({
      update: {
        Key: checkoutKey(checkout.sessionId),
        UpdateExpression: `SET #status = :to, updatedAt = :now, entity = if_not_exists(entity, :entity), ${kept.join(', ')}${listing}`,
        ConditionExpression: conditions.join(' OR '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    });
    return outcome.applied;
  }

  async advanceCheckout(sessionId: string, from: CheckoutPending, to: { status: CheckoutStatus; pending: CheckoutPending | null }, now: string): Promise<boolean> {
    const values: Record<string, unknown> = { ':from': from, ':to': to.status, ':now': now };
    let update = 'SET #status = :to, updatedAt = :now';
    if (to.pending) {
      Object.assign(values, { ':pending': to.pending, ...prefixed(listedKeys(sessionId, now)) });
      update += ', #pending = :pending, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk';
    } else {
      // Held, it keeps its place (its creation time); otherwise it leaves the sweep's listing.
      update += to.status === 'held' ? ' REMOVE #pending' : ' REMOVE #pending, gsi1pk, gsi1sk';
    }
    const outcome = await this.table.writeIf({
      update: {
        Key: checkoutKey(sessionId),
        UpdateExpression: update,
        ConditionExpression: '#pending = :from',
        ExpressionAttributeNames: { '#status': 'status', '#pending': 'pending' },
        ExpressionAttributeValues: values,
      },
    });
    return outcome.applied;
  }

  async claimCheckout(sessionId: string, seenUpdatedAt: string, now: string): Promise<boolean> {
    const outcome = await this.table.writeIf({
      update: {
        Key: checkoutKey(sessionId),
        UpdateExpression: 'SET updatedAt = :now, gsi1sk = :gsi1sk',
        ConditionExpression: 'attribute_exists(#pending) AND updatedAt = :seen',
        ExpressionAttributeNames: { '#pending': 'pending' },
        ExpressionAttributeValues: { ':now': now, ':seen': seenUpdatedAt, ':gsi1sk': listedKeys(sessionId, now).gsi1sk },
      },
    });
    return outcome.applied;
  }

  async listHeldCheckouts(args: { before: string; limit: number }): Promise<CheckoutRecord[]> {
    const shards = await Promise.all(
      Array.from({ length: HELD_SHARDS }, async (_, shard) => {
        const { Items = [] } = await this.table.client.send(
          new QueryCommand({
            TableName: this.table.name,
            IndexName: 'byEvent',
            KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :before',
            ExpressionAttributeValues: { ':pk': heldPk(shard), ':before': args.before },
            Limit: args.limit,
          }),
        );
        return Items as Item[];
      }),
    );
    // Each shard's oldest `limit`: together they hold the oldest `limit` of all.
    return shards
      .flat()
      .sort((a, b) => String(a.gsi1sk).localeCompare(String(b.gsi1sk)))
      .slice(0, args.limit)
      .map(toCheckout);
  }

  async listBuyerOrders(args: { eventId: string; email: string; limit: number }): Promise<BuyerOrder[]> {
    const { Items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        IndexName: 'byLabel',
        KeyConditionExpression: 'labelPk = :pk',
        ExpressionAttributeValues: { ':pk': buyerPk(args.eventId, args.email) },
        ScanIndexForward: false,
        Limit: args.limit,
      }),
    );
    return (Items as Item[]).map((item) => ({ id: item.id as string, status: item.status as OrderStatus, codes: item.codes as string[] }));
  }

  async listEventOrders(args: { eventId: string; cursor: string | null; limit: number }): Promise<{ orders: OrderRecord[]; nextCursor: string | null }> {
    const pk = listingPk(args.eventId);
    const start = args.cursor ? decodeCursor(args.cursor, KEY_FIELDS, (key) => key.gsi1pk === pk && key.pk!.startsWith('ORDER#')) : undefined;
    // One more than asked for tells whether another page exists.
    const { Items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        IndexName: 'byEvent',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: false,
        Limit: args.limit + 1,
        ExclusiveStartKey: start,
      }),
    );
    const items = Items.slice(0, args.limit) as Item[];
    const last = items[items.length - 1];
    const nextCursor = Items.length > args.limit && last ? encodeCursor(Object.fromEntries(KEY_FIELDS.map((field) => [field, String(last[field])]))) : null;
    return { orders: items.map(toOrder), nextCursor };
  }
}
