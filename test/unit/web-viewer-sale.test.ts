import { describe, expect, it } from 'vitest';
import { checkoutErrorMessage, formatPrice, orderStatusMessage } from '../../web/src/viewer/sale';

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
});
