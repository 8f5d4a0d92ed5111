/**
 * The live sessions panel's model, without a browser: the estimate, the refresh every few seconds only while
 * shown, the count's news, ending sessions, and a refresh answered after a page turn dropped.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LiveSession, SessionsPage } from '../../web/src/admin/api';
import { SESSIONS_REFRESH_MS, sessionsModel, type Screen, type SessionsApi } from '../../web/src/admin/models/sessions-model';

const session = (id: string) => ({ sessionId: id, code: `CODE-${id}` }) as LiveSession;
const page = (ids: string[], total: number, nextCursor: string | null = null): SessionsPage => ({ sessions: ids.map(session), total, nextCursor });

function fakeApi(answer: (cursor: string | null) => Promise<SessionsPage>) {
  const calls: unknown[][] = [];
  const api: SessionsApi = {
    listSessions: (eventId, cursor) => (calls.push(['listSessions', eventId, cursor]), answer(cursor)),
    endSession: async (eventId, s) => (calls.push(['endSession', eventId, s.sessionId]), { ended: true as const }),
    endAllSessions: async (eventId) => (calls.push(['endAllSessions', eventId]), { ended: 3 }),
  };
  return { api, calls };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('sessions model', () => {
  it('estimates never below the rows shown, and tells when the count changed', async () => {
    let counted = 0;
    let answer = page(['a', 'b'], 1, 'n');
    const { api } = fakeApi(async () => answer);
    const model = sessionsModel({ eventId: 'e1', api, screen: () => 'gone', onCountChanged: () => (counted += 1) });
    expect(model.canEndAll()).toBe(false);
    await model.load();
    expect([model.estimate(), model.pager.hasOlder(), counted, model.canEndAll()]).toEqual([2, true, 1, true]);
    await model.load();
    expect(counted).toBe(1);
    answer = page([], 0);
    await model.load();
    expect([model.estimate(), counted, model.canEndAll()]).toEqual([0, 2, false]);
  });

  it('refreshes every few seconds while shown, waits while hidden, stops once gone', async () => {
    vi.useFakeTimers();
    let screen: Screen = 'shown';
    const { api, calls } = fakeApi(async () => page(['a'], 1));
    const model = sessionsModel({ eventId: 'e1', api, screen: () => screen, onCountChanged: () => undefined });
    await model.load();
    await vi.advanceTimersByTimeAsync(SESSIONS_REFRESH_MS);
    expect(calls).toHaveLength(2);
    screen = 'hidden';
    await vi.advanceTimersByTimeAsync(SESSIONS_REFRESH_MS * 3);
    expect(calls).toHaveLength(2);
    screen = 'shown';
    await vi.advanceTimersByTimeAsync(SESSIONS_REFRESH_MS);
    expect(calls).toHaveLength(3);
    screen = 'gone';
    await vi.advanceTimersByTimeAsync(SESSIONS_REFRESH_MS * 3);
    expect(calls).toHaveLength(3);
  });

  it('drops a refresh of page 1 answered after the turn to page 2', async () => {
    let release!: (answer: SessionsPage) => void;
    const slow = new Promise<SessionsPage>((resolve) => (release = resolve));
    let firstDone = false;
    const { api } = fakeApi(async (cursor) => {
      if (cursor) return page(['p2'], 5);
      if (!firstDone) return (firstDone = true), page(['p1'], 5, 'c2');
      return slow;
    });
    const model = sessionsModel({ eventId: 'e1', api, screen: () => 'gone', onCountChanged: () => undefined });
    await model.load();
    const refresh = model.load();
    model.pager.older();
    await model.load();
    release(page(['stale'], 9, 'c2'));
    await refresh;
    expect([model.page().sessions.map((s) => s.sessionId), model.page().total, model.pager.page()]).toEqual([['p2'], 5, 2]);
  });

  it('ends one session, or all of them and goes back to the first page', async () => {
    const { api, calls } = fakeApi(async () => page(['a'], 1, 'c2'));
    const model = sessionsModel({ eventId: 'e1', api, screen: () => 'gone', onCountChanged: () => undefined });
    await model.load();
    model.pager.older();
    await model.endSession(session('a'));
    expect(await model.endAll()).toEqual({ ended: 3 });
    expect(model.pager.page()).toBe(1);
    expect(calls.slice(1)).toEqual([['endSession', 'e1', 'a'], ['endAllSessions', 'e1']]);
  });
});
