import type { OrderChanges, OrderRecord } from './order-store';

/**
 * The rules of an order's email (tickets, refund notice): sends of one email before it is recorded
 * `failed`, and the waits before the second and third try. Each failure is recorded on the order, and
 * that write (on the table's stream) brings the next try.
 */
export const TICKET_MAIL_RETRIES = { sendAttempts: 3, retryDelaysMs: [2_000, 10_000] } as const;

/** The error of a tickets email whose event is gone: retrying cannot help. */
export const EVENT_NOT_FOUND = 'event not found';

/** Whether a write left the order owing an email (the mailer's trigger lets only these through). */
export const owesEmail = (order: Pick<OrderRecord, 'emailStatus'> | null): boolean => order?.emailStatus === 'pending';

/**
 * Whether the order as it is now still owes the email a stream record saw: the same request and attempt.
 * A replayed batch, a resend that came meanwhile, or a retry's own record owes nothing.
 */
export function stillOwesEmail(current: OrderRecord | null, seen: Pick<OrderRecord, 'emailRequest' | 'emailAttempts'>): current is OrderRecord {
  return !!current && owesEmail(current) && current.emailRequest === seen.emailRequest && current.emailAttempts === seen.emailAttempts;
}

/** The wait before sending an email that failed `attempts` times already (none before the first send). */
export function retryDelayMs(attempts: number): number {
  const delays = TICKET_MAIL_RETRIES.retryDelaysMs;
  return attempts > 0 ? (delays[Math.min(attempts, delays.length) - 1] ?? 0) : 0;
}

/** What a sent email leaves on the order. */
export const sentEmail = (at: Date): OrderChanges => ({ emailStatus: 'sent', emailSentAt: at.toISOString(), emailError: null });

/**
 * What a failed send leaves on the order: one attempt more and its error, still `pending` (the next try)
 * until the last attempt, or at once `failed` when retrying cannot help (`permanent`: the sender is not
 * set up; or the event is gone). A resend from the console tries again once that is fixed.
 */
export function failedEmail(order: Pick<OrderRecord, 'emailAttempts'>, error: string, permanent = false): OrderChanges & { emailAttempts: number; emailStatus: 'failed' | 'pending' } {
  const emailAttempts = order.emailAttempts + 1;
  const final = permanent || error === EVENT_NOT_FOUND || emailAttempts >= TICKET_MAIL_RETRIES.sendAttempts;
  return { emailAttempts, emailError: error, emailStatus: final ? 'failed' : 'pending' };
}
