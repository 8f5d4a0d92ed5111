import { describe, expect, it } from 'vitest';
import { RESENT_MESSAGE, checkoutErrorMessage, formatPrice, orderStatusMessage, resendErrorMessage, ticketName } from '../../web/src/viewer/sale';

describe('the viewer page\'s box office', () => {
  it('writes prices from the minor unit with Intl, by the currency\'s own digits', () => {
    expect(formatPrice(1500, 'eur', 'en-US')).toBe('€15.00');
    expect(formatPrice(1999, 'usd', 'en-US')).toBe('$19.99');
    expect(formatPrice(1500, 'jpy', 'en-US')).toBe('¥1,500');
    expect(formatPrice(1500, 'eur', 'de-DE')).toBe('15,00\u00a0€');
  });

  it('says why a checkout was refused, sold out apart from closed', () => {
    expect(checkoutErrorMessage(409, 'sold out')).toMatch(/^Sold out/);
    expect(checkoutErrorMessage(409, 'This event is not on sale')).toMatch(/not on sale/);
    expect(checkoutErrorMessage(400, 'quantity: must be between 1 and 4')).toBe('Choose how many tickets: must be between 1 and 4.');
    expect(checkoutErrorMessage(400, 'email: must be an email address')).toMatch(/email address/);
    expect(checkoutErrorMessage(502, 'The payment provider is unavailable')).toMatch(/Nothing was charged/);
    expect(checkoutErrorMessage(0, 'Network error')).toMatch(/couldn't reach/);
  });

  it('tells the returning buyer where the order stands', () => {
    expect(orderStatusMessage('paid', 2)).toMatch(/^Paid\. Your tickets are ready/);
    expect(orderStatusMessage('expired', 1)).toMatch(/Nothing was charged/);
  });

  it('names the order\'s ticket a device watches with', () => {
    expect(ticketName(['ABCDEFGHJKLM', 'NPQRSTUVWXYZ'], 'NPQRSTUVWXYZ')).toBe('Ticket 2 of 2 (NPQR-STUV-WXYZ)');
    expect(ticketName(['ABCDEFGHJKLM'], 'ABCDEFGHJKLM')).toBe('Ticket ABCD-EFGH-JKLM');
  });

  it('says the same of every resend, and why one was refused', () => {
    expect(RESENT_MESSAGE).toMatch(/^If that address bought tickets, they are on their way/);
    expect(resendErrorMessage(429)).toMatch(/^Too many tries/);
    expect(resendErrorMessage(0)).toMatch(/couldn't reach/);
  });
});
