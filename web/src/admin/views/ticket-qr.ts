/** A code's ticket in the codes list: a small QR that opens a large one with its watch link and a copy button. */
import { h } from '../../shared/dom';
import { consoleWatchLink, groupedCode, qrSvg } from '../tickets';
import { copyText, notify } from '../ui';

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

export function copyLinkButton(code: string): HTMLButtonElement {
  const button = h('button', { type: 'button', className: 'small', 'data-key': `link-${code}`, 'aria-label': `Copy watch link of code ${code}` }, 'Copy link');
  button.addEventListener('click', () => void copyLink(code));
  return button;
}

async function copyLink(code: string): Promise<void> {
  const ok = await copyText(consoleWatchLink(code));
  notify(ok ? `Watch link of ${code} copied.` : "Couldn't copy: select the link and copy it.");
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
        h('button', { type: 'button', className: 'primary', onclick: () => void copyLink(code) }, 'Copy link'),
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
