/**
 * The box office of an event's page (`/?event=<id>`): "Buy a ticket" with the price while the event is
 * on sale, a checkout on Stripe's page, and the buyer's return (`&checkout=<session id>`): "Your ticket
 * is on its way", then, once paid, "Watch now" with the order's code on this browser.
 */
import { byId, h, replaceChildren } from '../shared/dom';
import { asApiError, requestJson } from '../shared/http';
import { formatDateTime } from '../shared/time';
import { checkoutErrorMessage, formatPrice, orderStatusMessage, type CheckoutState } from './sale';
import type { CheckoutStatusAnswer, EventSaleAnswer, EventStatusAnswer } from './types';

const els = {
  section: byId('box-office'),
  title: byId('box-office-title'),
  when: byId('box-office-when'),
  buy: byId('buy'),
  price: byId('price'),
  soldOut: byId('sold-out'),
  form: byId<HTMLFormElement>('buy-form'),
  email: byId<HTMLInputElement>('buy-email'),
  quantity: byId<HTMLSelectElement>('buy-quantity'),
  error: byId('buy-error'),
  button: byId<HTMLButtonElement>('buy-button'),
  notOnSale: byId('not-on-sale'),
  order: byId('order'),
  orderTitle: byId('order-title'),
  orderStatus: byId('order-status'),
  orderCodes: byId('order-codes'),
  watchNow: byId<HTMLButtonElement>('watch-now'),
};

const POLL_MS = 2_000;
/** Stripe confirms within seconds; past this the email is the buyer's way in, and the page stops asking. */
const POLL_FOR_MS = 10 * 60_000;
/** The session id stays in this tab, out of the address (it reveals the codes to whoever holds it). */
const storageKey = (eventId: string) => `stagedoor.checkout.${eventId}`;

/** Whether the box office is showing (the code entry beside it stays). */
let shown = false;

export function boxOfficeShown(): boolean {
  return shown;
}

function setError(message: string): void {
  els.error.textContent = message;
  if (message) els.email.setAttribute('aria-invalid', 'true');
  else els.email.removeAttribute('aria-invalid');
}

function showSale(sale: EventSaleAnswer['sale']): void {
  els.buy.hidden = !sale?.open;
  els.notOnSale.hidden = !sale || sale.open;
  if (!sale?.open) return;
  els.price.textContent = formatPrice(sale.priceMinor, sale.currency);
  els.soldOut.hidden = !sale.soldOut;
  els.form.hidden = sale.soldOut;
  replaceChildren(els.quantity, Array.from({ length: sale.maxPerOrder }, (_, i) => h('option', { value: String(i + 1) }, String(i + 1))));
}

async function buy(eventId: string, submit: SubmitEvent): Promise<void> {
  submit.preventDefault();
  const email = els.email.value.trim();
  if (!email || !els.email.checkValidity()) {
    setError('Enter the email address your ticket should go to.');
    els.email.focus();
    return;
  }
  setError('');
  els.button.disabled = true;
  els.button.textContent = 'Opening the checkout…';
  try {
    const { url } = await requestJson<{ url: string }>('/api/checkout', { json: { eventId, email, quantity: Number(els.quantity.value) } });
    location.assign(url);
  } catch (thrown) {
    const error = asApiError(thrown);
    setError(checkoutErrorMessage(error.status, error.message));
    if (error.status === 409 && error.message === 'sold out') {
      els.soldOut.hidden = false;
      els.form.hidden = true;
    }
    els.button.disabled = false;
    els.button.textContent = 'Buy a ticket';
  }
}

/** Polls the checkout until it settles; "Watch now" plays the first code (the others are listed, and in the email). */
async function followOrder(sessionId: string, watch: (code: string) => void): Promise<void> {
  els.order.hidden = false;
  els.buy.hidden = true;
  els.orderTitle.textContent = 'Thank you!';
  els.orderStatus.textContent = orderStatusMessage('pending', 1);
  // The buyer is back from paying: the order is what they came for, not the code field.
  els.orderTitle.focus();
  const until = Date.now() + POLL_FOR_MS;
  for (;;) {
    let answer: CheckoutStatusAnswer | null = null;
    try {
      answer = await requestJson<CheckoutStatusAnswer>(`/api/checkout/${encodeURIComponent(sessionId)}`);
    } catch (thrown) {
      if (asApiError(thrown).status === 404) {
        els.orderTitle.textContent = 'Checkout not found';
        els.orderStatus.textContent = 'This page does not know that checkout. Your email has your ticket if you paid.';
        return;
      }
    }
    if (answer) {
      els.orderTitle.textContent = answer.status === 'expired' ? 'Checkout expired' : `Your ${answer.quantity === 1 ? 'ticket is on its' : 'tickets are on their'} way to ${answer.email}`;
      els.orderStatus.textContent = orderStatusMessage(answer.status as CheckoutState, answer.quantity);
      if (answer.status === 'paid') {
        const [first] = answer.codes;
        els.orderCodes.hidden = false;
        replaceChildren(els.orderCodes, answer.codes.map((code) => h('li', null, code)));
        els.watchNow.hidden = !first;
        if (first) els.watchNow.onclick = () => watch(first);
        return;
      }
      if (answer.status !== 'pending') return;
    }
    if (Date.now() > until) {
      els.orderStatus.textContent = 'The payment is taking longer than usual to confirm. Your ticket comes by email as soon as it is.';
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Shows the event's box office when the page names an event; the return from Stripe's page is followed
 * (its session id moved from the address into this tab's storage). `watch` plays a code as the code form does.
 */
export async function startBoxOffice(watch: (code: string) => void): Promise<void> {
  const url = new URL(location.href);
  const eventId = url.searchParams.get('event');
  if (!eventId) return;
  const returned = url.searchParams.get('checkout');
  if (returned) {
    sessionStorage.setItem(storageKey(eventId), returned);
    url.searchParams.delete('checkout');
    history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }
  const path = `/api/events/${encodeURIComponent(eventId)}`;
  let status: EventStatusAnswer, sale: EventSaleAnswer;
  try {
    [status, sale] = await Promise.all([requestJson<EventStatusAnswer>(`${path}/status`), requestJson<EventSaleAnswer>(`${path}/sale`)]);
  } catch {
    return;
  }
  shown = true;
  els.section.hidden = false;
  els.title.textContent = sale.title;
  els.when.textContent = `${formatDateTime(status.startsAt)} – ${formatDateTime(status.endsAt)}`;
  showSale(sale.sale);
  els.form.addEventListener('submit', (submit) => void buy(eventId, submit));
  const sessionId = sessionStorage.getItem(storageKey(eventId));
  if (sessionId) await followOrder(sessionId, watch);
}
