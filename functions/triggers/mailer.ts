import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { NO_SENDER, type MailTransport } from '../adapters/mail-transport';
import { logger } from '../adapters/telemetry';
import { MAILER_TRIGGERS } from '../config/mailer-config';
import type { EventStore } from '../domain/events';
import type { OrderRecord, OrderStore } from '../domain/commerce';
import { refundEmail, ticketEmail, type EmailContext } from '../domain/commerce';

export interface MailerDeps {
  orders: OrderStore;
  events: Pick<EventStore, 'getEvent'>;
  transport: Pick<MailTransport, 'send'>;
  context: Omit<EmailContext, 'now'>;
  now?: () => Date;
  /** Waits before a retry (MAILER_TRIGGERS.retryDelaysMs); tests pass a shorter one. */
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

const retryWait = (attempt: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, MAILER_TRIGGERS.retryDelaysMs[Math.min(attempt, MAILER_TRIGGERS.retryDelaysMs.length) - 1] ?? 0));

/**
 * Sends the emails orders owe (tickets, refund notices), fed by the table's stream: a write that
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
    if (!order || order.emailStatus !== 'pending' || order.emailRequest !== image.emailRequest || order.emailAttempts !== image.emailAttempts) return 'skipped';
    if (order.emailAttempts > 0) await wait(order.emailAttempts);
    const expect = { from: [order.status], emailRequest: order.emailRequest! };
    const event = await deps.events.getEvent(order.eventId);
    const at = now();
    let error: string | null = null;
    if (order.emailKind === 'tickets' && !event) error = 'event not found';
    else {
      try {
        await deps.transport.send(order.emailKind === 'tickets' ? ticketEmail(order, event!, { ...deps.context, now: at }) : refundEmail(order, event));
      } catch (sendError) {
        error = sendError instanceof Error ? sendError.message : String(sendError);
      }
    }
    if (error === null) {
      await deps.orders.updateOrder(order.id, expect, { emailStatus: 'sent', emailSentAt: at.toISOString(), emailError: null }, at.toISOString());
      return 'sent';
    }
    const attempts = order.emailAttempts + 1;
    // Retrying cannot help these: a resend from the console tries again once they are fixed.
    const final = attempts >= MAILER_TRIGGERS.sendAttempts || error === 'event not found' || error === NO_SENDER;
    logger.warn('ticket email not sent', { orderId: order.id, attempt: attempts, final, error });
    await deps.orders.updateOrder(order.id, expect, { emailAttempts: attempts, emailError: error, emailStatus: final ? 'failed' : 'pending' }, at.toISOString());
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

/** The order a stream record leaves owing an email, or null (the same test as the trigger's filter, MAILER_TRIGGERS). */
export function orderOwingEmail(record: DynamoDBRecord): OrderRecord | null {
  const image = record.dynamodb?.NewImage;
  if (!image || !String(image.pk?.S ?? '').startsWith('ORDER#') || image.emailStatus?.S !== MAILER_TRIGGERS.stream.emailStatus) return null;
  return unmarshall(image as Record<string, AttributeValue>) as OrderRecord;
}
