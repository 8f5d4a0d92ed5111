/**
 * "Lost your tickets?" on an event's page: the buyer's email goes to `POST /api/orders/resend`,
 * which answers the same whether or not that address bought (no one learns who did), so the page
 * says the same too.
 */
import { byId } from '../shared/dom';
import { asApiError, requestJson } from '../shared/http';
import { RESENT_MESSAGE, resendErrorMessage } from './sale';
import type { ResendAnswer } from './types';

const els = {
  details: byId<HTMLDetailsElement>('lost-tickets'),
  form: byId<HTMLFormElement>('lost-form'),
  email: byId<HTMLInputElement>('lost-email'),
  error: byId('lost-error'),
  button: byId<HTMLButtonElement>('lost-button'),
  sent: byId('lost-sent'),
};


function setError(message: string): void {
  els.error.textContent = message;
  if (message) els.email.setAttribute('aria-invalid', 'true');
  else els.email.removeAttribute('aria-invalid');
}

async function resend(eventId: string, submit: SubmitEvent): Promise<void> {
  submit.preventDefault();
  const email = els.email.value.trim();
  els.sent.textContent = '';
  if (!email || !els.email.checkValidity()) {
    setError('Enter the email address you bought the tickets with.');
    els.email.focus();
    return;
  }
  setError('');
  els.button.disabled = true;
  els.button.textContent = 'Sending…';
  try {
    await requestJson<ResendAnswer>('/api/orders/resend', { json: { eventId, email } });
    els.sent.textContent = RESENT_MESSAGE;
  } catch (thrown) {
    setError(resendErrorMessage(asApiError(thrown).status));
    els.email.focus();
  } finally {
    els.button.disabled = false;
    els.button.textContent = 'Send my tickets again';
  }
}

/** Offers the resend for `eventId` (an event that exists and was not cancelled). */
export function offerLostTickets(eventId: string): void {
  els.details.hidden = false;
  els.form.addEventListener('submit', (submit) => void resend(eventId, submit));
}
