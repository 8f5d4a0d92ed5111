/** A code's ticket in the codes list: a small QR that opens a large one with its watch link and a copy button. */
import { h } from '../../shared/dom';
import { consoleWatchLink, groupedCode, qrSvg } from '../tickets';
import { copyFromButton } from '../ui';

/** The thumbnail button of a row. */
export function qrButton(code: string, label: string): HTMLButtonElement {
  const button = h(
    'button',
    { type: 'button', className: 'qr-thumb', 'data-key': `qr-${code}`, 'aria-label': `Show QR code and link for code ${code}` },
    qrSvg(consoleWatchLink(code), ''),
  );
  button.querySelector('svg')?.setAttribute('aria-hidden', 'true');
  button.addEventListener('click', () => openTicket(code, label));
  return button;
}

/** Its accessible name starts with the words it shows ("Copy link"), so voice control finds it by them. */
export function copyLinkButton(code: string, className = 'small'): HTMLButtonElement {
  const button = h('button', { type: 'button', className, 'data-key': `link-${code}`, 'aria-label': `Copy link of code ${code}` }, 'Copy link');
  button.addEventListener('click', () => void copyFromButton(button, consoleWatchLink(code), `Watch link of ${code}`));
  return button;
}

/** The enlarged QR (native `<dialog>`: Escape closes, focus returns to the thumbnail). */
function openTicket(code: string, label: string): void {
  const opener = document.activeElement as HTMLElement | null;
  const link = consoleWatchLink(code);
  const dialog = h(
    'dialog',
    { className: 'ticket-dialog', 'aria-labelledby': 'ticket-dialog-title' },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: 'ticket-dialog-title' }, `Code ${groupedCode(code)}`),
      label && h('p', { className: 'muted' }, label),
      qrSvg(link, `QR code of the watch link for ${code}`),
      h('label', { for: 'ticket-link' }, 'Watch link'),
      h('input', { id: 'ticket-link', type: 'text', readonly: true, value: link, className: 'mono', spellcheck: 'false' }),
      h(
        'div',
        { className: 'actions' },
        copyLinkButton(code, 'primary'),
        h('button', { value: 'close', autofocus: true }, 'Close'),
      ),
    ),
  );
  document.body.append(dialog);
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (opener?.isConnected) opener.focus();
  });
  dialog.showModal();
}
