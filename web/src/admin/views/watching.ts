/**
 * How a ticket holder watched: the ticket's record in a dialog (from the codes list), and the
 * event's tickets with trouble as a table, with the CSV for refund handling.
 */
import { h, type Child } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type TroublePage, type WatchingView } from '../api';
import { act, tableWrap } from '../ui';

const ratio = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)} %`);
const TROUBLE_LABELS: Record<string, string> = { stalls: 'Stalled over 5 %', 'failed-start': 'Failed to start' };

export function troubleLabel(reason: string | null): string {
  return reason ? (TROUBLE_LABELS[reason] ?? reason) : 'None';
}

/** The ticket's record as label/value pairs. */
export function watchingFacts(view: WatchingView): [string, Child][] {
  return [
    ['Watch time', `${view.watchMinutes} min`],
    ['Sessions', String(view.sessions)],
    ['Stalled', ratio(view.stallRatio)],
    ['Worst session', ratio(view.worstStallRatio)],
    ['Failed starts', String(view.startFailures)],
    ['Player errors', view.lastError ? `${view.errors} (last: ${view.lastError})` : String(view.errors)],
    ['Devices', view.devices.join(', ') || '—'],
    ['First watched', formatDateTime(view.firstWatchedAt)],
    ['Last seen', formatDateTime(view.lastWatchedAt)],
    ['Watching now', view.watchingNow ? `yes, on ${view.watchingNow.device} since ${formatDateTime(view.watchingNow.startedAt)}` : 'no'],
    ['Trouble', troubleLabel(view.trouble)],
  ];
}

/** The row's button that opens the ticket's record. */
export function watchingButton(codeId: string, code: string): HTMLButtonElement {
  const button = h('button', { type: 'button', className: 'small', 'data-key': `watching-${codeId}`, 'aria-label': `Watching: how code ${code} watched` }, 'Watching');
  button.addEventListener('click', () => {
    void act(button, () => adminApi.watching(codeId)).then((view) => view && openWatching(view));
  });
  return button;
}

function openWatching(view: WatchingView): void {
  const opener = document.activeElement as HTMLElement | null;
  const dialog = h(
    'dialog',
    { className: 'watching-dialog', 'aria-labelledby': 'watching-title' },
    h(
      'form',
      { method: 'dialog' },
      h('h2', { id: 'watching-title' }, `Code ${view.code}`),
      view.label && h('p', { className: 'muted' }, view.label),
      h('dl', { className: 'facts' }, watchingFacts(view).map(([label, value]) => [h('dt', null, label), h('dd', null, value)])),
      h('div', { className: 'actions' }, h('button', { value: 'close', autofocus: true }, 'Close')),
    ),
  );
  document.body.append(dialog);
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (opener?.isConnected) opener.focus();
  });
  dialog.showModal();
}

/** The tickets with trouble of one page, newest listing first as the API orders them (by code). */
export function troubleTable(page: TroublePage): HTMLElement {
  if (page.tickets.length === 0) return h('p', { className: 'empty' }, 'No ticket had trouble: no session stalled over 5 % or failed to start.');
  return tableWrap(
    'Tickets with trouble',
    h(
      'table',
      { className: 'trouble' },
      h(
        'thead',
        null,
        h('tr', null, ['Code', 'Label', 'Why', 'Worst session', 'Watch time', 'Devices'].map((name) => h('th', { scope: 'col' }, name)), h('th', { scope: 'col' }, h('span', { className: 'sr-only' }, 'Details'))),
      ),
      h(
        'tbody',
        null,
        page.tickets.map((ticket) =>
          h(
            'tr',
            { 'data-trouble-code': ticket.code },
            h('th', { scope: 'row', className: 'mono code' }, ticket.code),
            h('td', null, ticket.label || '—'),
            h('td', null, troubleLabel(ticket.reason)),
            h('td', null, ratio(ticket.worstStallRatio)),
            h('td', null, `${ticket.watchMinutes} min in ${ticket.sessions === 1 ? '1 session' : `${ticket.sessions} sessions`}`),
            h('td', null, ticket.devices.join(', ') || '—'),
            h('td', null, watchingButton(ticket.tokenId, ticket.code)),
          ),
        ),
      ),
    ),
  );
}
