/**
 * Who is watching an event: its live sessions, newest first, refreshed every
 * few seconds while the page is open; "End session" frees a code stuck on a
 * device, "End all sessions" ends the event's. Paged by the API's cursor. The
 * count is the API's estimate (counting every session of a large audience on
 * each refresh would cost too much), and says so.
 */
import { h } from '../../shared/dom';
import { formatDateTime } from '../../shared/time';
import { adminApi, type LiveSession, type SessionsPage } from '../api';
import { plural } from '../labels';
import { can } from '../session';
import { act, confirmAction, notify, rerender, tableWrap } from '../ui';
import { cursorPager } from './cursor-pager';

/** How often the list refreshes itself while shown. */
export const SESSIONS_REFRESH_MS = 5_000;

export function sessionsPanel(
  eventId: string,
  onChanged: () => void,
  onCountChanged: () => void,
): { element: HTMLElement; load: () => Promise<void> } {
  let page: SessionsPage = { sessions: [], total: 0, nextCursor: null };
  let timer: ReturnType<typeof setTimeout> | undefined;

  const count = h('p', { className: 'sessions-count', role: 'status' });
  const list = h('div');
  // Listing needs codes:read, ending codes:manage: a read-only role sees who watches but cannot end it.
  const manage = can('codes:manage');
  const endAll = h('button', { type: 'button', className: 'danger', 'data-key': 'sessions-end-all' }, 'End all sessions');
  const pager = cursorPager('sessions', (button) => void act(button, load));

  const load = async () => {
    clearTimeout(timer);
    const before = page.total;
    const answer = await pager.fetch((cursor) => adminApi.listSessions(eventId, cursor));
    // The later ask draws, and refreshes on.
    if (!answer) return;
    page = answer;
    draw();
    schedule();
    // Keeps the page's "Watching now" figure in step with the list.
    if (page.total !== before) onCountChanged();
  };
  /** Refreshes while the panel is on screen; a hidden tab waits until it is shown again. */
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!element.isConnected) return;
      if (document.hidden) return schedule();
      void load().catch(schedule);
    }, SESSIONS_REFRESH_MS);
  };

  /** The estimate, never below the rows this page shows (a lost counter write only makes it smaller). */
  const estimate = () => Math.max(page.total, page.sessions.length);
  const draw = () => {
    const watching = estimate();
    count.textContent = watching === 0 ? 'Nobody is watching right now.' : `About ${plural(watching, 'device')} watching now (estimate).`;
    count.title = 'Estimated from the viewers’ recent check-ins; the list below shows each live session.';
    rerender(list, () => table());
    pager.update(page.nextCursor);
    endAll.disabled = watching === 0 && pager.page() === 1;
  };

  const end = async (button: HTMLButtonElement, session: LiveSession) => {
    const done = await act(button, () => adminApi.endSession(eventId, session));
    if (!done) return;
    notify(`Session of ${session.code} ended: the code can be used again at once.`);
    await act(null, load);
    onChanged();
  };

  const table = () => {
    if (page.sessions.length === 0) return null;
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
        h(
          'tbody',
          null,
          page.sessions.map((session) => {
            const button = h(
              'button',
              { type: 'button', className: 'small danger', 'data-key': `end-${session.sessionId}`, 'aria-label': `End session of code ${session.code}` },
              'End session',
            );
            button.addEventListener('click', () => void end(button, session));
            return h(
              'tr',
              { 'data-session': session.sessionId, 'data-session-code': session.code },
              h('th', { scope: 'row', className: 'mono code' }, session.code),
              h('td', null, session.label || '—'),
              h('td', null, formatDateTime(session.startedAt)),
              h('td', null, h('time', { datetime: session.lastHeartbeatAt }, secondsAgo(session.lastHeartbeatAt))),
              h('td', { className: 'mono' }, session.clientIp ?? '—'),
              h('td', null, session.userAgent),
              manage && h('td', null, button),
            );
          }),
        ),
      ),
    );
  };

  endAll.addEventListener('click', () => {
    void confirmAction({
      title: `End all sessions (about ${estimate()})?`,
      message: 'Every device watching this event stops within seconds. Viewers can enter their code again to keep watching.',
      confirmLabel: 'End all sessions',
      danger: true,
    }).then(async (sure) => {
      if (!sure) return;
      const result = await act(endAll, () => adminApi.endAllSessions(eventId));
      if (!result) return;
      notify(`${plural(result.ended, 'session')} ended.`);
      pager.reset();
      await act(null, load);
      onChanged();
    });
  });

  const element = h(
    'section',
    { className: 'card panel sessions-panel', 'aria-labelledby': 'sessions-title' },
    h('h2', { id: 'sessions-title', tabindex: -1 }, 'Watching now'),
    h('div', { className: 'toolbar sessions-toolbar' }, count, manage && endAll),
    list,
    pager.element,
  );
  return { element, load };
}

/** `12 s ago`, `3 min ago`: a heartbeat's age at a glance (the list refreshes every few seconds). */
function secondsAgo(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return seconds < 90 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}
