/**
 * The event's box office on its page: the sale at a glance with the link to share (copy, QR), and "Cancel
 * show"'s dialog (the reason; the cancellation job's bar is the codes panel's). The words are the model's
 * (`models/box-office.ts`).
 */
import { h } from '../../shared/dom';
import type { EventDetail } from '../api';
import { cancelMessage, checkCancelReason, CANCEL_REASON_CHARS, salesFigures } from '../models/box-office';
import { qrSvg } from '../tickets';
import { copyFromButton } from '../ui';

/**
 * Sales figures (an event sold here: it has a price) and the viewer link (every event: its page to share);
 * nothing from an API without them.
 */
export function salesPanel(event: EventDetail): HTMLElement | null {
  const sold = event.sales && event.sales.priceMinor !== null ? event.sales : null;
  if (!sold && !event.viewerUrl) return null;
  return h(
    'section',
    { className: 'card panel sales-panel', 'aria-labelledby': 'sales-title' },
    h('h2', { id: 'sales-title', tabindex: -1 }, sold ? 'Sales' : 'Viewer link'),
    sold &&
      h(
        'dl',
        { className: 'stats', 'aria-label': 'Sales' },
        salesFigures(sold).map((figure) => h('div', { className: 'stat', 'data-key': `sales-${figure.key}` }, h('dt', null, figure.label), h('dd', null, figure.value))),
      ),
    event.viewerUrl && viewerLink(event.viewerUrl),
  );
}

/** The page to share: its address to copy, and a QR code of it for a poster or a screen. */
function viewerLink(url: string): HTMLElement {
  const copy = h('button', { type: 'button', className: 'small', 'data-key': 'copy-viewer-url', 'aria-label': 'Copy viewer link' }, 'Copy');
  copy.addEventListener('click', () => void copyFromButton(copy, url, 'Viewer link'));
  const qr = h('button', { type: 'button', className: 'small', 'data-key': 'viewer-qr', 'aria-expanded': 'false', 'aria-controls': 'viewer-qr' }, 'QR code');
  const code = h('div', { id: 'viewer-qr', className: 'viewer-qr', hidden: true }, qrSvg(url, 'QR code of the viewer link'));
  qr.addEventListener('click', () => {
    code.hidden = !code.hidden;
    qr.setAttribute('aria-expanded', String(!code.hidden));
  });
  return h(
    'div',
    { className: 'field viewer-link' },
    h('label', { for: 'viewer-url' }, 'Viewer and sale link'),
    h('div', { className: 'copy-row' }, h('input', { id: 'viewer-url', type: 'text', readonly: true, value: url, className: 'mono', spellcheck: 'false' }), copy, qr),
    h('p', { className: 'hint' }, 'Share this page: buyers get tickets there, and watch there with their code.'),
    code,
  );
}

/**
 * "Cancel show"'s dialog (native `<dialog>`: Escape cancels, focus starts on the reason): the reason, checked
 * before it goes; resolves with it, or null when cancelled.
 */
export function askCancelReason(event: EventDetail): Promise<string | null> {
  const opener = document.activeElement as HTMLElement | null;
  const error = h('p', { id: 'cancel-reason-error', className: 'field-error', role: 'alert' });
  const reason = h('textarea', {
    id: 'cancel-reason',
    rows: 3,
    maxlength: CANCEL_REASON_CHARS,
    required: true,
    autofocus: true,
    'aria-describedby': 'cancel-reason-hint cancel-reason-error',
  });
  const form = h(
    'form',
    { method: 'dialog', novalidate: true },
    h('h2', { id: 'cancel-title' }, `Cancel “${event.title}”?`),
    h('p', { id: 'cancel-message' }, cancelMessage(event)),
    h('label', { for: 'cancel-reason' }, 'Reason'),
    reason,
    h('p', { id: 'cancel-reason-hint', className: 'hint' }, 'Every buyer reads it in their email, and the sale link shows it.'),
    error,
    h(
      'div',
      { className: 'actions' },
      h('button', { type: 'button', value: 'keep', 'data-key': 'keep-show' }, 'Keep the show'),
      h('button', { type: 'submit', value: 'confirm', className: 'danger solid' }, 'Cancel show'),
    ),
  );
  const dialog = h('dialog', { className: 'confirm cancel-show', 'aria-labelledby': 'cancel-title', 'aria-describedby': 'cancel-message' }, form);
  let answer: string | null = null;
  form.querySelector('[data-key="keep-show"]')!.addEventListener('click', () => dialog.close());
  form.addEventListener('submit', (submitted) => {
    const checked = checkCancelReason(reason.value);
    if (checked.error !== undefined) {
      submitted.preventDefault();
      error.textContent = checked.error;
      reason.setAttribute('aria-invalid', 'true');
      reason.focus();
      return;
    }
    answer = checked.reason;
  });
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(answer);
      dialog.remove();
      if (opener?.isConnected) opener.focus();
    });
    dialog.showModal();
  });
}
