/**
 * Who is watching an event, without the DOM: the page of live sessions (through the pager model, so an answer
 * to a request older than the newest is dropped), the count's estimate, ending sessions, and the refresh every
 * few seconds while the panel is on screen.
 */
import type { adminApi, LiveSession, SessionsPage } from '../api';
import { cursorPagerModel, type CursorPagerModel } from './cursor-pager-model';
import { listeners } from './listeners';

export type SessionsApi = Pick<typeof adminApi, 'listSessions' | 'endSession' | 'endAllSessions'>;

/** How often the list refreshes itself while shown. */
export const SESSIONS_REFRESH_MS = 5_000;

/** Where the panel is: gone from the page (refreshing stops), in a hidden tab (it waits), or shown. */
export type Screen = 'gone' | 'hidden' | 'shown';

export function sessionsModel(options: {
  eventId: string;
  api: SessionsApi;
  screen: () => Screen;
  /** The estimate changed: the page's "Watching now" figure follows. */
  onCountChanged: () => void;
  pager?: CursorPagerModel;
}) {
  const { eventId, api, screen, onCountChanged, pager = cursorPagerModel() } = options;
  let page: SessionsPage = { sessions: [], total: 0, nextCursor: null };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const changes = listeners();

  /** Throws the API's error; an answer dropped for a newer one changes nothing (the later ask draws, and refreshes on). */
  const load = async () => {
    clearTimeout(timer);
    const before = page.total;
    const answer = await pager.fetch((cursor) => api.listSessions(eventId, cursor));
    if (!answer) return;
    page = answer;
    pager.update(page.nextCursor);
    changes.emit();
    schedule();
    if (page.total !== before) onCountChanged();
  };
  /** Refreshes while the panel is on screen; a hidden tab waits until it is shown again. */
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const where = screen();
      if (where === 'gone') return;
      if (where === 'hidden') return schedule();
      void load().catch(schedule);
    }, SESSIONS_REFRESH_MS);
  };
  /** The estimate, never below the rows this page shows (a lost counter write only makes it smaller). */
  const estimate = () => Math.max(page.total, page.sessions.length);

  return {
    pager,
    subscribe: changes.subscribe,
    page: () => page,
    estimate,
    /** "End all" has nothing to end only on the first page with nobody watching. */
    canEndAll: () => !(estimate() === 0 && pager.page() === 1),
    load,
    endSession: (session: Pick<LiveSession, 'code' | 'sessionId'>) => api.endSession(eventId, session),
    /** Ends every session; the list goes back to its first page (the caller loads). */
    async endAll() {
      const result = await api.endAllSessions(eventId);
      pager.reset();
      return result;
    },
  };
}

export type SessionsModel = ReturnType<typeof sessionsModel>;
