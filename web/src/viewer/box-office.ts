/**
 * The box office of an event's page (`/?event=<id>`): "Buy a ticket" with the price while the event is
 * on sale, a checkout on Stripe's page, and the buyer's return (`&checkout=<session id>`): "Your ticket
 * is on its way", then, once paid, the order's tickets to choose from and "Watch now" on this browser.
 * Also "Lost your tickets?", the organiser's contact, a cancelled show, and a link to no event.
 */
import { byId, h, replaceChildren } from '../shared/dom';
import { asApiError, requestJson } from '../shared/http';
import { formatDateTime } from '../shared/time';
import { offerLostTickets } from './lost-tickets';
import { showOrderTickets } from './order-tickets';
import { checkoutErrorMessage, formatPrice, orderStatusMessage, type CheckoutState } from './sale';
import type { Cancellation, CheckoutStatusAnswer, EventSaleAnswer, EventStatusAnswer } from './types';

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
  cancelled: byId('cancelled'),
  cancelledReason: byId('cancelled-reason'),
  cancelledWhen: byId('cancelled-when'),
  contact: byId('box-office-contact'),
  entry: byId('entry'),
};

/** Plays a code as the code form does; `ticket` names it on the page (`Ticket 2 of 3 (…)`). */
export type WatchCode = (code: string, ticket?: string) => void;

/** What the box office needs of the page around it. */
export interface BoxOfficeHost {
  watch: WatchCode;
  /** The event is on screen (a saved code or a link already plays): the box office stays out of sight. */
  watching(): boolean;
  /** The code this device watches with, if any: the order's choice starts there. */
  currentCode(): string | null;
}

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

/** Polls the checkout until it settles; then the order's tickets, one to choose, and "Watch now" with it. */
async function followOrder(sessionId: string, host: BoxOfficeHost): Promise<void> {
  els.order.hidden = false;
  els.buy.hidden = true;
  els.orderTitle.textContent = 'Thank you!';
  els.orderStatus.textContent = orderStatusMessage('pending', 1);
  // The buyer is back from paying: the order is what they came for, not the code field (unless a reload already plays).
  if (!host.watching()) els.orderTitle.focus();
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
        showOrderTickets(answer.codes, host.watch, host.currentCode());
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

/** A link to no event (deleted, or mistyped): said so, with the code form below for a ticket's code. */
function showUnknownEvent(): void {
  els.title.textContent = 'We can’t find this event';
  els.when.textContent = 'The link names no event: it may have been mistyped, or the event was deleted. Check the link in your email, or enter the access code from your ticket below.';
}

/** A cancelled show: why and when, instead of the sale and the code form (its codes no longer play). */
function showCancelled(cancelled: Cancellation): void {
  els.cancelled.hidden = false;
  els.buy.hidden = true;
  els.notOnSale.hidden = true;
  els.cancelledReason.textContent = cancelled.reason;
  els.cancelledWhen.textContent = `Cancelled ${formatDateTime(cancelled.at)}.`;
  els.entry.hidden = true;
}

/** The organiser's address, where the page has one. */
export function showContact(element: HTMLElement, email: string | null | undefined): void {
  element.hidden = !email;
  if (!email) return;
  replaceChildren(element, 'Questions? Write to the organiser: ', h('a', { href: `mailto:${email}` }, email));
}

/** Whether a cancelled event leaves the code form out: the page knows it, and nothing plays. */
let cancelledShow = false;

export function showCancelledShow(): boolean {
  return cancelledShow;
}

/**
 * Shows the event's box office when the page names an event; the return from Stripe's page is followed
 * (its session id moved from the address into this tab's storage).
 */
export async function startBoxOffice(host: BoxOfficeHost): Promise<void> {
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
  } catch (thrown) {
    if (asApiError(thrown).status !== 404) return;
    shown = true;
    els.section.hidden = host.watching();
    showUnknownEvent();
    return;
  }
  shown = true;
  // A saved code or an email's link may already play: the box office waits for the way back to the code form.
  els.section.hidden = host.watching();
  els.title.textContent = sale.title;
  els.when.textContent = `${formatDateTime(status.startsAt)} – ${formatDateTime(status.endsAt)}`;
  showContact(els.contact, sale.contactEmail);
  if (sale.cancelled) {
    cancelledShow = true;
    showCancelled(sale.cancelled);
    return;
  }
  showSale(sale.sale);
  offerLostTickets(eventId);
  els.form.addEventListener('submit', (submit) => void buy(eventId, submit));
  const sessionId = sessionStorage.getItem(storageKey(eventId));
  if (sessionId) await followOrder(sessionId, host);
}
