import type { FakeSession } from './stripe-fake-sessions';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The hosted checkout page: what is bought, and a "Pay" button while the session is open. */
export function payPage(found: FakeSession): string {
  const amount = new Intl.NumberFormat('en', { style: 'currency', currency: found.currency }).format(found.amount_total / 10 ** currencyDigits(found.currency));
  const open = found.status === 'open';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Pay · Stripe (local)</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}button{font:inherit;padding:.6rem 1.4rem}</style></head>
<body><p>Local stand-in of Stripe Checkout: no card is charged.</p><h1>${escapeHtml(found.title)}</h1>
<p>${Number(found.metadata.quantity ?? 1)} × ticket · <strong id="amount">${escapeHtml(amount)}</strong></p><p>${escapeHtml(found.customer_email ?? '')}</p>
${open ? `<form method="post"><button type="submit">Pay</button></form>${found.cancel_url ? `<p><a href="${escapeHtml(found.cancel_url)}">Cancel</a></p>` : ''}` : `<p>This checkout is ${found.status}.</p>`}
</body></html>`;
}

/** Digits of the currency's minor unit, as Intl knows them (JPY 0, EUR 2). */
function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}
