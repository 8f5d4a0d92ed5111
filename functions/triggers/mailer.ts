import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { NO_SENDER, type MailTransport } from '../adapters/mail-transport';
import { tableChange } from '../adapters/table-stream-changes';
import { logger } from '../adapters/telemetry';
import type { EventStore } from '../domain/events';
import type { EventRecord } from '../domain/records';
import type { OrderRecord, OrderStore } from '../domain/commerce';
import { cancellationEmail, EVENT_NOT_FOUND, failedEmail, owesEmail, refundEmail, retryDelayMs, sentEmail, stillOwesEmail, ticketEmail, type EmailContext } from '../domain/commerce';

export interface MailerDeps {
  orders: OrderStore;
  events: Pick<EventStore, 'getEvent'>;
  transport: Pick<MailTransport, 'send'>;
  context: Omit<EmailContext, 'now'>;
  now?: () => Date;
  /** Waits before a retry (retryDelayMs, functions/domain/commerce/ticket-mail.ts); tests pass a shorter one. */
  wait?: (attempt: number) => Promise<void>;
}

export interface MailerResult {
  sent: number;
  failed: number;
  /** Sends that failed and will be tried again. */
  retrying: number;
  /** Records of emails already handled (a replayed batch, a newer request, a retry's own record). */
  skipped: number;
}

const retryWait = (attempt: number) => new Promise<void>((resolve) => setTimeout(resolve, retryDelayMs(attempt)));

/**
 * Sends the emails orders owe (tickets, refund notices, a cancelled show's notices), fed by the table's stream: a write that
 * leaves an order's email `pending` is a record here. Each record is checked against the order as it
 * is now (the email request and its attempt must be the record's), so a replayed batch, a resend
 * that came meanwhile or a stale record sends nothing. A failed send is recorded on the order (its
 * attempt count and error); that write is the next record, so the stream itself brings the retry,
 * after a wait, until `sendAttempts` make the email `failed`. An error of the table fails the batch:
 * the event source mapping retries it, then hands it to the failure destination.
 */
export function createMailerHandler(deps: MailerDeps) {
  const now = deps.now ?? (() => new Date());
  const wait = deps.wait ?? retryWait;

  async function deliver(image: OrderRecord): Promise<keyof MailerResult> {
    const order = await deps.orders.getOrder(image.id);
    if (!stillOwesEmail(order, image)) return 'skipped';
    if (order.emailAttempts > 0) await wait(order.emailAttempts);
    const expect = { from: [order.status], emailRequest: order.emailRequest! };
    const event = await deps.events.getEvent(order.eventId);
    const at = now();
    let error: string | null = null;
    if (order.emailKind === 'tickets' && !event) error = EVENT_NOT_FOUND;
    else {
      try {
        await deps.transport.send(emailOf(order, event, { ...deps.context, now: at }));
      } catch (sendError) {
        error = sendError instanceof Error ? sendError.message : String(sendError);
      }
    }
    if (error === null) {
      await deps.orders.updateOrder(order.id, expect, sentEmail(at), at.toISOString());
      return 'sent';
    }
    // Without a sender no retry can help: a resend from the console tries again once it is set.
    const changes = failedEmail(order, error, error === NO_SENDER);
    const final = changes.emailStatus === 'failed';
    logger.warn('ticket email not sent', { orderId: order.id, attempt: changes.emailAttempts, final, error });
    await deps.orders.updateOrder(order.id, expect, changes, at.toISOString());
    return final ? 'failed' : 'retrying';
  }

  return async function mailer(event: DynamoDBStreamEvent): Promise<MailerResult> {
    const result: MailerResult = { sent: 0, failed: 0, retrying: 0, skipped: 0 };
    // One email per order and batch (its latest record): records of one item arrive in order, one batch at a time.
    const latest = new Map(event.Records.map(orderOwingEmail).flatMap((order) => (order ? [[order.id, order] as const] : [])));
    const owed = [...latest.values()];
    result.skipped += event.Records.length - owed.length;
    // Emails of one batch go out side by side; a table error fails the batch once all are done.
    const outcomes = await Promise.allSettled(owed.map(deliver));
    for (const outcome of outcomes) if (outcome.status === 'fulfilled') result[outcome.value]++;
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure) throw (failure as PromiseRejectedResult).reason;
    return result;
  };
}

/** The email the order owes, by its kind (a tickets email has its event: checked before). */
function emailOf(order: OrderRecord, event: EventRecord | null, context: EmailContext) {
  if (order.emailKind === 'tickets') return ticketEmail(order, event!, context);
  if (order.emailKind === 'cancelled') return cancellationEmail(order, event, context);
  return refundEmail(order, event);
}

/** The order a stream record leaves owing an email, or null (the same test as the trigger's filter, MAILER_TRIGGERS). */
export function orderOwingEmail(record: DynamoDBRecord): OrderRecord | null {
  const change = tableChange(record, new Date());
  return change.kind === 'order' && change.after && owesEmail(change.after) ? change.after : null;
}
