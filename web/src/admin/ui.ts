/** Small pieces of the console's UI: notices, confirmation, copying, keeping focus across re-renders. */
import { byId, h, replaceChildren, type Child } from '../shared/dom';
import { asApiError } from '../shared/http';
import { adminErrorMessage } from './labels';

let noticeTimer: ReturnType<typeof setTimeout> | undefined;

/** A short success message in the polite live region. */
export function notify(message: string): void {
  const status = byId('status');
  byId('alert').textContent = '';
  status.textContent = message;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => (status.textContent = ''), 6_000);
}

/** An error message in the assertive live region; stays until the next notice. */
export function alertError(message: string): void {
  clearTimeout(noticeTimer);
  byId('status').textContent = '';
  byId('alert').textContent = message;
}

export function clearNotices(): void {
  clearTimeout(noticeTimer);
  byId('status').textContent = '';
  byId('alert').textContent = '';
}

/** An API failure as an alert (a 401 is the login form's business, not an alert). */
export function reportError(thrown: unknown): void {
  const error = asApiError(thrown);
  if (error.status !== 401) alertError(adminErrorMessage(error.status, error.message));
}

/** Runs an action, disabling `button` meanwhile; an API failure becomes an alert. */
export async function act<T>(button: HTMLButtonElement | null, action: () => Promise<T>): Promise<T | undefined> {
  if (button) button.disabled = true;
  try {
    return await action();
  } catch (thrown) {
    reportError(thrown);
    return undefined;
  } finally {
    if (button?.isConnected) button.disabled = false;
  }
}

export interface ConfirmOptions {
  title: string;
  message: string;
  confirmLabel: string;
  danger?: boolean;
}

/** A modal confirmation (native `<dialog>`: focus trapped, Escape cancels). Cancel has focus first. */
export function confirmAction(options: ConfirmOptions): Promise<boolean> {
  const opener = document.activeElement as HTMLElement | null;
  const dialog = h(
    'dialog',
    { className: 'confirm', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-message' },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: 'confirm-title' }, options.title),
      h('p', { id: 'confirm-message' }, options.message),
      h(
        'div',
        { className: 'actions' },
        h('button', { value: 'cancel', autofocus: true }, 'Cancel'),
        h('button', { value: 'confirm', className: options.danger ? 'danger solid' : 'primary' }, options.confirmLabel),
      ),
    ),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
      if (opener?.isConnected) opener.focus();
    });
    dialog.showModal();
  });
}

/**
 * A copy button's confirmation, where the click was: the button says "Copied" (or that it could not)
 * for a moment, and screen readers hear it from a hidden polite region, not the page-wide notices.
 */
export async function copyFromButton(button: HTMLButtonElement, text: string, what: string): Promise<void> {
  const ok = await copyText(text);
  const label = button.dataset.label ?? button.textContent ?? '';
  button.dataset.label = label;
  button.textContent = ok ? 'Copied' : "Couldn't copy";
  byId('announcer').textContent = ok ? `${what} copied.` : `Couldn't copy the ${what}: select it and copy it.`;
  clearTimeout(copiedTimers.get(button));
  copiedTimers.set(
    button,
    setTimeout(() => {
      button.textContent = label;
      byId('announcer').textContent = '';
    }, COPIED_MS),
  );
}

const COPIED_MS = 2_500;
const copiedTimers = new WeakMap<HTMLButtonElement, ReturnType<typeof setTimeout>>();

/** Copies text to the clipboard (with a fallback for insecure origins). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h('textarea', { className: 'sr-only', readonly: true }, text);
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/**
 * Re-renders `container` and puts focus back on the element with the same
 * `data-key` (or the container's first heading), so keyboard users keep their place.
 */
export function rerender(container: HTMLElement, render: () => Child): void {
  const active = document.activeElement as HTMLElement | null;
  const key = active && container.contains(active) ? active.dataset.key : undefined;
  replaceChildren(container, render());
  if (key) {
    const again = container.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
    (again ?? container.querySelector<HTMLElement>('h2'))?.focus();
  }
}

export function badge(text: string, tone: 'ok' | 'warn' | 'danger' | 'muted' | 'live'): HTMLElement {
  return h('span', { className: `badge ${tone}` }, text);
}

/**
 * A keyboard-focusable wrapper for tables. On phones (admin.css) each row
 * becomes a card whose cells carry their column's name, taken here from the
 * header, so no column ends up off-screen.
 */
export function tableWrap(label: string, table: HTMLTableElement): HTMLElement {
  const names = [...(table.tHead?.rows[0]?.cells ?? [])].map((cell) => cell.textContent?.trim() ?? '');
  for (const body of table.tBodies) {
    for (const row of body.rows) {
      [...row.cells].forEach((cell, i) => {
        if (names[i]) cell.dataset.label = names[i];
      });
    }
  }
  return h('div', { className: 'table-wrap', role: 'region', 'aria-label': label, tabindex: 0 }, table);
}
