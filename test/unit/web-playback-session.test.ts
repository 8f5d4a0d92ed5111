import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PlaybackSession } from '../../web/src/viewer/playback-session';

type Reply = { status: number; body: unknown };

/** A fetch stub answering each API path from a queue (the last answer repeats). */
function stubApi(replies: Record<string, Reply[]>) {
  const calls: { path: string; authorization: string | null; keepalive: boolean | undefined }[] = [];
  const fetchStub = vi.fn(async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    calls.push({ path: url, authorization: headers.get('Authorization'), keepalive: init.keepalive });
    const queue = replies[url];
    if (!queue?.length) throw new TypeError('Failed to fetch');
    const reply = queue.length > 1 ? queue.shift()! : queue[0]!;
    return new Response(JSON.stringify(reply.body), { status: reply.status });
  });
  vi.stubGlobal('fetch', fetchStub);
  return calls;
}

describe('PlaybackSession', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('refreshes at 80 % of the lifetime and sends the new token from then on', async () => {
    const calls = stubApi({
      '/api/playback/refresh': [{ status: 200, body: { playbackToken: 'jwt-2', playbackUrl: 'https://media.test/u2', tokenExpiresIn: 600 } }],
      '/api/playback/heartbeat': [{ status: 200, body: { ok: true } }],
    });
    const session = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost: vi.fn() });
    session.start();
    await vi.advanceTimersByTimeAsync(479_000);
    expect(calls.filter((c) => c.path.endsWith('refresh'))).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.filter((c) => c.path.endsWith('refresh'))).toEqual([
      { path: '/api/playback/refresh', authorization: 'Bearer jwt-1', keepalive: undefined },
    ]);
    expect(session.token).toBe('jwt-2');
    expect(session.playbackUrl).toBe('https://media.test/u2');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(calls.at(-1)).toMatchObject({ path: '/api/playback/heartbeat', authorization: 'Bearer jwt-2' });
    session.stop();
  });

  it('sends a heartbeat every 30 s and stops with a reason when it is refused', async () => {
    const calls = stubApi({
      '/api/playback/heartbeat': [
        { status: 200, body: { ok: true } },
        { status: 403, body: { error: 'Access has been revoked', reason: 'revoked' } },
      ],
    });
    const onLost = vi.fn();
    const session = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost });
    session.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls.map((c) => c.path)).toEqual(['/api/playback/heartbeat', '/api/playback/heartbeat']);
    expect(onLost).toHaveBeenCalledOnce();
    expect(onLost.mock.calls[0]![0].title).toBe('Access revoked');
    expect(session.stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(600_000);
    expect(calls).toHaveLength(2);
  });

  it('keeps playing through network failures of the heartbeat', async () => {
    stubApi({});
    const onLost = vi.fn();
    const session = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost });
    session.start();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(onLost).not.toHaveBeenCalled();
    session.stop();
  });

  it('retries a rate-limited refresh and gives up only when the token has run out', async () => {
    const calls = stubApi({
      '/api/playback/refresh': [{ status: 429, body: { error: 'Too many refresh requests' } }],
      '/api/playback/heartbeat': [{ status: 200, body: { ok: true } }],
    });
    const onLost = vi.fn();
    const session = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost });
    session.start();
    await vi.advanceTimersByTimeAsync(480_000 + 60_000);
    expect(calls.filter((c) => c.path.endsWith('refresh'))).toHaveLength(2);
    expect(onLost).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(onLost).toHaveBeenCalledOnce();
    expect(onLost.mock.calls[0]![0].message).toMatch(/too many refresh requests/i);
  });

  it('rechecks after a media refusal: a fresh token means retry, a refusal means stop', async () => {
    stubApi({
      '/api/playback/refresh': [
        { status: 200, body: { playbackToken: 'jwt-2', tokenExpiresIn: 600 } },
        { status: 410, body: { error: 'Access has expired', reason: 'expired' } },
      ],
    });
    const onLost = vi.fn();
    const session = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost });
    session.start();
    expect(await session.recheck()).toBe(true);
    expect(session.token).toBe('jwt-2');
    expect(await session.recheck()).toBe(false);
    expect(onLost).toHaveBeenCalledOnce();
    expect(onLost.mock.calls[0]![0].title).toBe('Access expired');
  });

  it('releases once, with keepalive and the bearer token; both callers wait for the one answer', async () => {
    const calls = stubApi({ '/api/playback/release': [{ status: 200, body: { released: true } }] });
    const session = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost: vi.fn() });
    session.start();
    const first = session.release();
    const second = session.release();
    expect(second).toBe(first);
    await expect(first).resolves.toBeUndefined();
    expect(calls).toEqual([{ path: '/api/playback/release', authorization: 'Bearer jwt-1', keepalive: true }]);
  });

  it('settles a release the API could not answer, so nothing waits for it forever', async () => {
    stubApi({});
    const session = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost: vi.fn() });
    session.start();
    await expect(session.release()).resolves.toBeUndefined();
  });

  it('asks for the long-lived URL once and reuses it; a failure is asked again next time', async () => {
    const answer = { playbackUrl: 'https://media.test/long', expiresAt: new Date(Date.now() + 12 * 3_600_000).toISOString() };
    const calls = stubApi({
      '/api/playback/url': [{ status: 503, body: { error: 'Internal server error' } }, { status: 200, body: answer }],
    });
    const onLost = vi.fn();
    const session = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost });
    expect(await session.longLivedUrl()).toBeNull();
    expect(await session.longLivedUrl()).toEqual(answer);
    expect(await session.longLivedUrl()).toEqual(answer);
    expect(calls.map((c) => `${c.path} ${c.authorization}`)).toEqual(['/api/playback/url Bearer jwt-1', '/api/playback/url Bearer jwt-1']);
    expect(onLost).not.toHaveBeenCalled();
  });

  it('asks for a new long-lived URL when the one it has is about to expire', async () => {
    const soon = { playbackUrl: 'https://media.test/long-1', expiresAt: new Date(Date.now() + 10 * 60_000).toISOString() };
    const later = { playbackUrl: 'https://media.test/long-2', expiresAt: new Date(Date.now() + 12 * 3_600_000).toISOString() };
    stubApi({ '/api/playback/url': [{ status: 200, body: soon }, { status: 200, body: later }] });
    const session = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost: vi.fn() });
    expect(await session.longLivedUrl()).toEqual(soon);
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(await session.longLivedUrl()).toEqual(soon);
    await vi.advanceTimersByTimeAsync(2 * 60_000);
    expect(await session.longLivedUrl()).toEqual(later);
  });

  it('reports lost access when the long-lived URL is refused, and when a verifying heartbeat is', async () => {
    stubApi({
      '/api/playback/url': [{ status: 403, body: { error: 'Access has been revoked', reason: 'revoked' } }],
      '/api/playback/heartbeat': [{ status: 404, body: { error: 'Session not found', reason: 'session-ended' } }],
    });
    const revoked = vi.fn();
    const first = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost: revoked });
    expect(await first.longLivedUrl()).toBeNull();
    expect(revoked.mock.calls[0]![0].title).toBe('Access revoked');
    const gone = vi.fn();
    const second = new PlaybackSession({ playbackToken: 'jwt-1', playbackUrl: 'https://media.test/u1', tokenExpiresIn: 600, onLost: gone });
    expect(await second.verify()).toBe(false);
    expect(gone.mock.calls[0]![0].title).toBe('Session ended');
  });
  it("sends the player's quality report with each heartbeat, keeps one that did not arrive and drops one the API refused", async () => {
    const bodies: unknown[] = [];
    const answers = [0, 200, 400, 200];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit = {}) => {
        bodies.push(init.body ? JSON.parse(String(init.body)) : undefined);
        const status = answers.shift()!;
        if (status === 0) throw new TypeError('Failed to fetch');
        return new Response(JSON.stringify(status === 200 ? { ok: true } : { error: 'qoe.stalls: must be a number' }), { status });
      }),
    );
    const reports = [{ playingMs: 30_000 }, { playingMs: 1 }, { playingMs: 2 }, null];
    const given: unknown[] = [];
    const quality = { take: vi.fn(() => reports.shift() as never), giveBack: vi.fn((report: unknown) => void given.push(report)) };
    const session = new PlaybackSession({ playbackToken: 'jwt', playbackUrl: 'u', tokenExpiresIn: 600, onLost: vi.fn(), quality });
    session.start();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(bodies).toEqual([{ qoe: { playingMs: 30_000 } }, { qoe: { playingMs: 1 } }, { qoe: { playingMs: 2 } }, undefined]);
    // Only the report of the beat that never arrived is taken back.
    expect(given).toEqual([{ playingMs: 30_000 }]);
    session.stop();
  });
});
