/**
 * The console's box office words (issue 36), without a browser: an event's sales as figures, what the delete,
 * cancel and refund dialogs say before anyone confirms, the one count formatter, the codes pager's "of about",
 * and a failed job in plain words.
 */
import { describe, expect, it } from 'vitest';
import type { EventDetail, Sales } from '../../web/src/admin/api';
import { formatCount, formatMoney, jobFailureText, pageLabel, plural } from '../../web/src/admin/labels';
import { cancelledLine, cancelMessage, checkCancelReason, deleteMessage, refundPrompt, salesFigures } from '../../web/src/admin/models/box-office';

const sales: Sales = {
  onSale: true,
  priceMinor: 1500,
  currency: 'eur',
  capacity: 2000,
  ticketsSold: 1234,
  ticketsHeld: 3,
  ticketsLeft: 763,
  revenueMinor: 1_851_000,
  refundedMinor: 1500,
  orders: 1100,
};
const euros = (minor: number) => formatMoney(minor, 'eur');
const stats = { tokens: 100_004, redeemed: 0, revoked: 0, activeViewers: 0 } as EventDetail['stats'];

describe('box office figures', () => {
  it('shows the sale at a glance, every count with thousands separators and money in the currency', () => {
    expect(Object.fromEntries(salesFigures(sales).map((figure) => [figure.label, figure.value]))).toEqual({
      'On sale': 'Yes',
      Price: euros(1500),
      Sold: '1,234',
      'In checkout': '3',
      Left: '763',
      Revenue: euros(1_851_000),
      Refunded: euros(1500),
      'Paid orders': '1,100',
    });
    expect(euros(1_851_000)).toMatch(/18,510\.00|18\.510,00|18 510,00/);
    const noSale: Sales = { ...sales, onSale: false, priceMinor: null, currency: null, capacity: null, ticketsLeft: null, ticketsSold: 0, revenueMinor: 0, refundedMinor: 0, orders: 0 };
    expect(salesFigures(noSale).find((figure) => figure.key === 'left')?.value).toBe('No limit');
    expect(salesFigures(noSale).find((figure) => figure.key === 'price')?.value).toBe('—');
  });

  it('formats every count through one formatter', () => {
    expect([formatCount(0), formatCount(999), formatCount(1000), formatCount(100_004), formatCount(1_000_000)]).toEqual(['0', '999', '1,000', '100,004', '1,000,000']);
    expect(plural(100_004, 'code')).toBe('100,004 codes');
    expect(formatMoney(500, 'jpy')).toMatch(/500/);
  });
});

describe('the dialogs say what happens before anyone confirms', () => {
  it('delete: codes, live sessions and paid orders, and the way out for paid orders', () => {
    const message = deleteMessage({ stats, _count: { tokens: 100_004 }, liveSessions: 1200, sales: { ...sales, orders: 3 } });
    expect(message).toMatch(/^This event has 100,004 access codes, 1,200 live sessions and 3 paid orders\./);
    expect(message).toMatch(/Cancel show/);
    // An API from before the box office: the codes alone, and nothing about orders.
    const older = deleteMessage({ stats: { ...stats, tokens: 1 } });
    expect(older).toMatch(/^This event has 1 access code\. The event and all its access codes are deleted/);
    expect(deleteMessage({ stats, liveSessions: 0, sales: { ...sales, orders: 0 } })).not.toMatch(/Cancel show/);
  });

  it('refund: names the amount and the buyer', () => {
    const prompt = refundPrompt({ orderId: 'cs_1', email: 'ana@example.com', quantity: 2, amount: { minor: 3000, currency: 'eur' } } as never);
    expect(prompt.title).toBe('Refund order cs_1?');
    expect(prompt.message).toContain(`${euros(3000)} goes back to ana@example.com`);
    expect(prompt.message).toContain('2 tickets stop working');
    expect(prompt.confirmLabel).toBe(`Refund ${euros(3000)}`);
  });

  it('cancel: a reason of 1 to 500 characters, and what happens to the buyers', () => {
    expect(checkCancelReason('  The singer is ill ')).toEqual({ reason: 'The singer is ill' });
    expect(checkCancelReason('   ').error).toMatch(/Say why/);
    expect(checkCancelReason('x'.repeat(501)).error).toMatch(/500 characters/);
    expect(cancelMessage({ sales: { ...sales, orders: 1100 } })).toMatch(/1,100 paid orders are refunded/);
    expect(cancelledLine({ reason: 'Storm', at: '2026-11-28T15:00:00.000Z' })).toMatch(/^Cancelled .+: Storm$/);
  });
});

describe('codes pager', () => {
  it('says "Page 3 of about 1,000" from the event\'s code count, and the page alone for a filter', () => {
    expect(pageLabel(3, 100_000, 100)).toBe('Page 3 of about 1,000');
    expect(pageLabel(1, 0, 100)).toBe('Page 1 of about 1');
    // More pages than the count said (codes made meanwhile): never "Page 5 of about 4".
    expect(pageLabel(5, 350, 100)).toBe('Page 5 of about 5');
    expect(pageLabel(1_200, null, 100)).toBe('Page 1,200');
  });
});

describe('job failures in plain words', () => {
  it('keeps what failed and says the cause as a sentence', () => {
    expect(jobFailureText('25 codes could not be revoked: DynamoDB unavailable: InternalServerError Internal server error')).toBe(
      'Stopped: 25 codes could not be revoked because the database was unavailable or too busy. Retry goes on from where it stopped.',
    );
    expect(jobFailureText('The event was deleted')).toBe('Stopped because the event was deleted meanwhile.');
    expect(jobFailureText('the worker stopped (timed out or crashed) in each of 5 tries')).toBe(
      'Stopped because the background worker ran out of time or stopped on every try. Retry goes on from where it stopped.',
    );
    expect(jobFailureText('Stripe refund failed: rate_limit')).toMatch(/because Stripe did not answer/);
    expect(jobFailureText(null)).toBe('Stopped because of an error on the server. Retry goes on from where it stopped.');
  });
});
