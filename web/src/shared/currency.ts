/** Digits of the currency's minor unit as Intl knows them (EUR 2, JPY 0); null for a code Intl does not know. */
export function currencyDigits(currency: string): number | null {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return null;
  }
}
