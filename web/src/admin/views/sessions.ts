/**
 * Who is watching an event: its live sessions, newest first, refreshed every
 * few seconds while the page is open; "End session" frees a code stuck on a
 * device, "End all sessions" ends the event's. Paged by the API's cursor. The
 * count is the API's estimate (counting every session of a large audience on
 * each refresh would cost too much), and says so. The state, the actions and
 * the refresh are the model's (`models/sessions-model.ts`); this draws it.
 */
import { h } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type LiveSession } from '../api';
import { plural } from '../labels';
import { sessionsModel, type SessionsModel } from '../models/sessions-model';
import { can } from '../session';
import { act, confirmAction, notify, rerender, tableWrap } from '../ui';
import { cursorPager } from './cursor-pager';

export function sessionsPanel(
  eventId: string,
  onChanged: () => void,
  onCountChanged: () => void,
): { element: HTMLElement; load: () => Promise<void> } {
  const model = sessionsModel({
    eventId,
    api: adminApi,
    screen: () => (!element.isConnected ? 'gone' : document.hidden ? 'hidden' : 'shown'),
    onCountChanged,
  });
  const count = h('p', { className: 'sessions-count', role: 'status' });
  const list = h('div');
  // Listing needs codes:read, ending codes:manage: a read-only role sees who watches but cannot end it.
  const manage = can('codes:manage');
  const endAll = h('button', { type: 'button', className: 'danger', 'data-key': 'sessions-end-all' }, 'End all sessions');
  const pager = cursorPager('sessions', (button) => void act(button, model.load), undefined, model.pager);
  /** After an end: the list again, and the page's figures. */
  const ended = async () => {
    await act(null, model.load);
    onChanged();
  };

  model.subscribe(() => {
    const watching = model.estimate();
    count.textContent = watching === 0 ? 'Nobody is watching right now.' : `About ${plural(watching, 'device')} watching now (estimate).`;
    count.title = 'Estimated from the viewers’ recent check-ins; the list below shows each live session.';
    rerender(list, () => sessionsTable(model, manage, ended));
    endAll.disabled = !model.canEndAll();
  });
  endAll.addEventListener('click', async () => {
    const sure = await confirmAction({
      title: `End all sessions (about ${model.estimate()})?`,
      message: 'Every device watching this event stops within seconds. Viewers can enter their code again to keep watching.',
      confirmLabel: 'End all sessions',
      danger: true,
    });
    if (!sure) return;
    const result = await act(endAll, model.endAll);
    if (!result) return;
    notify(`${plural(result.ended, 'session')} ended.`);
    await ended();
  });

  const element = h(
    'section',
    { className: 'card panel sessions-panel', 'aria-labelledby': 'sessions-title' },
    h('h2', { id: 'sessions-title', tabindex: -1 }, 'Watching now'),
    h('div', { className: 'toolbar sessions-toolbar' }, count, manage && endAll),
    list,
    pager.element,
  );
  return { element, load: model.load };
}

function sessionsTable(model: SessionsModel, manage: boolean, ended: () => Promise<void>): HTMLElement | null {
  const { sessions } = model.page();
  if (sessions.length === 0) return null;
  return tableWrap(
    'Live sessions',
    h(
      'table',
      { className: 'sessions' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['Code', 'Label', 'Started', 'Last heartbeat', 'Address', 'Device'].map((name) => h('th', { scope: 'col' }, name)),
          manage && h('th', { scope: 'col' }, h('span', { className: 'sr-only' }, 'Actions')),
        ),
      ),
      h('tbody', null, sessions.map((session) => sessionRow(model, session, manage, ended, sharesCode(sessions, session)))),
    ),
  );
}

/** A code that lets several devices watch may have several rows: each says which device it is. */
function sharesCode(sessions: LiveSession[], session: LiveSession): boolean {
  return (session.slot ?? 1) > 1 || sessions.some((other) => other !== session && other.code === session.code);
}

function sessionRow(model: SessionsModel, session: LiveSession, manage: boolean, ended: () => Promise<void>, showDevice: boolean): HTMLElement {
  const device = showDevice ? ` (device ${session.slot ?? 1})` : '';
  const button = h(
    'button',
    { type: 'button', className: 'small danger', 'data-key': `end-${session.sessionId}`, 'aria-label': `End session of code ${session.code}${device}` },
    'End session',
  );
  button.addEventListener('click', async () => {
    if (!(await act(button, () => model.endSession(session)))) return;
    notify(`Session of ${session.code}${device} ended: the code can be used again at once.`);
    await ended();
  });
  return h(
    'tr',
    { 'data-session': session.sessionId, 'data-session-code': session.code },
    h('th', { scope: 'row', className: 'mono code' }, session.code, showDevice && h('span', { className: 'muted device-slot' }, ` · device ${session.slot ?? 1}`)),
    h('td', null, session.label || '—'),
    h('td', null, formatDateTime(session.startedAt)),
    h('td', null, h('time', { datetime: session.lastHeartbeatAt }, secondsAgo(session.lastHeartbeatAt))),
    h('td', { className: 'mono' }, session.clientIp ?? '—'),
    h('td', null, session.userAgent),
    manage && h('td', null, button),
  );
}

/** `12 s ago`, `3 min ago`: a heartbeat's age at a glance (the list refreshes every few seconds). */
function secondsAgo(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return seconds < 90 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}
