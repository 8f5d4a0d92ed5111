import type { CheckoutSessionRequest } from './checkout-sessions';
/** Where an order came from: `shop` for the signed order webhook of any shop, `stripe` for Stripe's. */
export type OrderSource = 'shop' | 'stripe';
export type OrderStatus = 'issuing' | 'paid' | 'refunded' | 'failed';
/** `cancelled`: the show was cancelled (cancellation-email.ts), whatever became of the order's money. */
export type EmailKind = 'tickets' | 'refund' | 'cancelled';
export type EmailStatus = 'pending' | 'sent' | 'failed';
/** The count of its event's sales figures an order waits for (sales-count.ts): `paid` (its sale), `refunded` (its refund, its sale counted already). */
export type SalesStep = 'paid' | 'refunded';

/**
 * One order as a shop reported it. `id` is ours (derived from source and the shop's order id, so a
 * replayed delivery finds the same record); `codes` and `codeIds` are planned when the order is
 * recorded, one per ticket, so issuing them can be resumed after a crash without issuing twice.
 */
export interface OrderRecord {
  id: string;
  source: OrderSource;
  /** The shop's own order id. */
  orderId: string;
  eventId: string;
  email: string;
  quantity: number;
  /** In the currency's minor unit (cents), when the shop told it. */
  amountMinor: number | null;
  currency: string | null;
  status: OrderStatus;
  /** Why the order was not fulfilled (`failed`). */
  failure: string | null;
  codes: string[];
  codeIds: string[];
  createdAt: string;
  updatedAt: string;
  /** The email owed to the buyer: which one, its state, and the request it answers (a resend makes a new one). */
  emailKind: EmailKind | null;
  emailStatus: EmailStatus | null;
  emailRequest: string | null;
  emailAttempts: number;
  emailError: string | null;
  emailSentAt: string | null;
  /** The count of the event's sales figures this order waits for; null (or absent) once they agree with it. */
  salesStep?: SalesStep | null;
  /** When its step was asked for, or last claimed: whoever wrote it owns the step until it is stale (sales-count.ts). */
  salesStepAt?: string | null;
  /** Its tickets were held by a checkout of ours until paid (they count in the event's `ticketsTaken`). */
  checkoutHeld?: boolean;
}

/** An order as a buyer's listing gives it: enough to find its codes and whether it owes tickets. */
export type BuyerOrder = Pick<OrderRecord, 'id' | 'status' | 'codes'>;

/** What an order's state change writes, besides `updatedAt`. */
export type OrderChanges = Partial<
  Pick<OrderRecord, 'status' | 'failure' | 'emailKind' | 'emailStatus' | 'emailRequest' | 'emailAttempts' | 'emailError' | 'emailSentAt' | 'salesStep' | 'salesStepAt' | 'checkoutHeld'>
>;

/** What an order's update expects of it: one of these statuses and, with each field given, that value (`salesStep` null: none). */
export interface OrderExpectation {
  from: readonly OrderStatus[];
  emailRequest?: string;
  salesStep?: SalesStep | null;
  salesStepAt?: string;
}

/**
 * A Stripe Checkout Session of `POST /api/checkout` and its hold on the event's capacity (keyed by the
 * session's id): `held` from its creation, `paid` once completed (it keeps its tickets), `released` when it
 * expired or its order was refunded (its tickets went back to the sale).
 */
export type CheckoutStatus = 'held' | 'paid' | 'released';
/**
 * The step of the event's ticket count a checkout's record waits for (domain/commerce/checkout.ts): `take` (recorded,
 * its tickets maybe not taken yet), `untake` (given up before its take was known: given back if taken),
 * `return` (released: its tickets to give back). Absent once the count agrees with the record.
 */
export type CheckoutPending = 'take' | 'untake' | 'return';
export interface CheckoutRecord {
  sessionId: string;
  eventId: string;
  /** What the buyer typed (Stripe's page fills it in). */
  email: string;
  quantity: number;
  status: CheckoutStatus;
  createdAt: string;
  updatedAt: string;
  /**
   * Only while Stripe's answer to the session's creation is unknown (it did not answer): the request as
   * sent, and `sessionId` is `unanswered:<its idempotency key>` (domain/commerce/checkout.ts).
   */
  request?: CheckoutSessionRequest;
  /** Only while the event's count has not caught up with the record. */
  pending?: CheckoutPending;
}

/**
 * The orders port. Every write is conditional on the state the caller saw, so that replays and
 * parallel deliveries of one order change it once. Adapters raise the errors of `errors.ts`
 * (InvalidCursor) and nothing from their SDK.
 */
export interface OrderStore {
  /** Records the order unless it exists; otherwise answers the existing one, unchanged. */
  createOrder(order: OrderRecord): Promise<{ created: boolean; order: OrderRecord }>;
  getOrder(id: string): Promise<OrderRecord | null>;
  /**
   * Applies `changes` if the order's status is one of `from` (and, with `emailRequest`, `salesStep` or
   * `salesStepAt`, each is still that one); null when the condition failed or the order does not exist.
   * An order with a sales step is listed for the sweep under its `salesStepAt` until the step is done.
   */
  updateOrder(id: string, expect: OrderExpectation, changes: OrderChanges, now: string): Promise<OrderRecord | null>;
  /** Orders whose sales step was asked for or last claimed before `before` (their writer died), oldest first, at most `limit`. */
  listStaleSalesSteps(args: { before: string; limit: number }): Promise<OrderRecord[]>;
  /** Swaps one planned code for another (a collision with a code issued elsewhere), if line `index` still plans `previous`. */
  replacePlannedCode(id: string, index: number, previous: string, next: string, now: string): Promise<OrderRecord | null>;
  /** Remembers which order a payment (Stripe's payment intent) paid, so that its refund finds the order; idempotent. */
  linkPayment(paymentRef: string, orderId: string): Promise<void>;
  /** The order a payment paid (`id`), or null when no paid event named it yet. */
  orderOfPayment(paymentRef: string): Promise<string | null>;
  /**
   * Marks that a refund came for order `id` before any payment of it (a separate item, in no listing: no
   * order is made), so that the payment, arriving later, issues nothing. Idempotent.
   */
  markRefundedBeforePaid(id: string, now: string): Promise<void>;
  /** Whether a refund of order `id` came before any payment of it. */
  refundedBeforePaid(id: string): Promise<boolean>;
  /** Records a checkout unless its session has a record already (a webhook came first: that one stands). */
  createCheckout(checkout: CheckoutRecord): Promise<void>;
  getCheckout(sessionId: string): Promise<CheckoutRecord | null>;
  /**
   * Moves the checkout to `to` if its status is one of `from` and no count step is pending on it (`absent`:
   * it has no record, and gets `checkout`'s with status `to`); with `pending`, the record waits for that step
   * from then on. True when this call moved it, so that each move happens once however often, and however
   * concurrently, Stripe delivers the event that asks for it.
   */
  moveCheckout(checkout: Omit<CheckoutRecord, 'status' | 'updatedAt'>, from: readonly (CheckoutStatus | 'absent')[], to: CheckoutStatus, now: string, pending?: CheckoutPending): Promise<boolean>;
  /** Moves the checkout from its pending step `from` to status `to.status` and step `to.pending` (null: none); true when this call moved it. */
  advanceCheckout(sessionId: string, from: CheckoutPending, to: { status: CheckoutStatus; pending: CheckoutPending | null }, now: string): Promise<boolean>;
  /**
   * The sweep's claim on a checkout with a pending step: its `updatedAt` (and its place in the sweep's
   * listing) moves to `now` if it is still `seenUpdatedAt`, so that only one sweep works on it at a time.
   */
  claimCheckout(sessionId: string, seenUpdatedAt: string, now: string): Promise<boolean>;
  /**
   * Checkouts the sweep should look at, oldest first, at most `limit`: those still `held` created before
   * `before` (their session should long have been settled by Stripe's webhook: domain/commerce/checkout-sweep.ts asks
   * Stripe about them) and those whose pending step was last written before `before` (its writer died).
   */
  listHeldCheckouts(args: { before: string; limit: number }): Promise<CheckoutRecord[]>;
  /**
   * The event's orders bought with `email` (matched whatever its case), newest first, at most `limit`:
   * one indexed query, whatever the number of the event's orders.
   */
  listBuyerOrders(args: { eventId: string; email: string; limit: number }): Promise<BuyerOrder[]>;
  /** An event's orders, newest first, `limit` per page; `cursor` is the previous page's `nextCursor` (InvalidCursor otherwise). */
  listEventOrders(args: { eventId: string; cursor: string | null; limit: number }): Promise<{ orders: OrderRecord[]; nextCursor: string | null }>;
}
