import { describe, expect, it } from 'vitest';
import { EVENT_NOT_FOUND, TICKET_MAIL_RETRIES, failedEmail, owesEmail, retryDelayMs, sentEmail, stillOwesEmail, type OrderRecord } from '../../functions/domain/commerce';

const order = (fields: Partial<OrderRecord>) => ({ emailStatus: 'pending', emailRequest: 'r1', emailAttempts: 0, ...fields }) as OrderRecord;

describe('ticket mail rules', () => {
  it('owes an email only while it is pending, and only the request and attempt the stream record saw', () => {
    expect(owesEmail(order({}))).toBe(true);
    expect(owesEmail(order({ emailStatus: 'sent' }))).toBe(false);
    expect(owesEmail(null)).toBe(false);
    const seen = { emailRequest: 'r1', emailAttempts: 1 };
    expect(stillOwesEmail(order({ emailAttempts: 1 }), seen)).toBe(true);
    // A resend made a new request meanwhile; a retry's own record; a replay after the send.
    expect(stillOwesEmail(order({ emailRequest: 'r2', emailAttempts: 1 }), seen)).toBe(false);
    expect(stillOwesEmail(order({ emailAttempts: 2 }), seen)).toBe(false);
    expect(stillOwesEmail(order({ emailStatus: 'sent', emailAttempts: 1 }), seen)).toBe(false);
    expect(stillOwesEmail(null, seen)).toBe(false);
  });

  it('waits before each retry, none before the first send, the last wait for any later one', () => {
    expect([0, 1, 2, 3].map(retryDelayMs)).toEqual([0, 2_000, 10_000, 10_000]);
  });

  it('keeps a failed email pending until its last attempt, then fails it', () => {
    expect(failedEmail(order({ emailAttempts: 0 }), 'smtp down')).toEqual({ emailAttempts: 1, emailError: 'smtp down', emailStatus: 'pending' });
    expect(failedEmail(order({ emailAttempts: 1 }), 'smtp down').emailStatus).toBe('pending');
    expect(failedEmail(order({ emailAttempts: TICKET_MAIL_RETRIES.sendAttempts - 1 }), 'smtp down')).toEqual({
      emailAttempts: TICKET_MAIL_RETRIES.sendAttempts,
      emailError: 'smtp down',
      emailStatus: 'failed',
    });
  });

  it('fails at once what retrying cannot help: a gone event, or a failure the caller calls permanent (no sender)', () => {
    expect(failedEmail(order({}), EVENT_NOT_FOUND)).toEqual({ emailAttempts: 1, emailError: EVENT_NOT_FOUND, emailStatus: 'failed' });
    expect(failedEmail(order({}), 'no sender address', true).emailStatus).toBe('failed');
  });

  it('records a sent email with when it went, and clears the last error', () => {
    expect(sentEmail(new Date('2026-11-28T12:00:00Z'))).toEqual({ emailStatus: 'sent', emailSentAt: '2026-11-28T12:00:00.000Z', emailError: null });
  });
});
