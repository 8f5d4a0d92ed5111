import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../ingest-container/src/log';
import type { LeaseAnswer, LeaseClient } from '../../ingest-container/src/platform/live-notifier';
import { createPublications, LEASE_RENEW_MS } from '../../ingest-container/src/publications';
import type { GatedRtmpSession } from '../../ingest-container/src/rtmp/gated-session';

/**
 * A stream's broadcast and its publishers as node-media-server hands them over (a resume publishes on the same
 * broadcast); finishing the broadcast, as a cut does, calls `onFinish` (where node-media-server sends donePublish).
 */
function stream(onFinish: () => void = () => undefined) {
  const calls: string[] = [];
  const broadcast = { getPublishStatus: () => 'publishing', _finishPublish: () => (calls.push('finish'), onFinish()) };
  const publisher = (id: string) =>
    ({ id, streamPath: '/live/show', streamName: 'show', broadcast, stopInput: () => void calls.push(`stopInput ${id}`) }) as unknown as GatedRtmpSession;
  return { publisher, calls };
}

/** Publications (HLS off) over a lease client that answers `answer` and records its calls. */
function publications(answer: () => LeaseAnswer = () => 'ok') {
  const lease: string[] = [];
  const notifier = {
    acquire: async (eventId: string) => (lease.push(`acquire ${eventId}`), answer()),
    release: async (eventId: string) => void lease.push(`release ${eventId}`),
    settle: async () => undefined,
    standbyOf: () => null,
    handover: async () => false,
  } as unknown as LeaseClient;
  const made = createPublications({ hls: undefined, notifier, log: createLogger('error', () => undefined), metrics: { count: () => undefined } });
  return { publications: made, lease };
}

describe('publications: the lease of a show', () => {
  afterEach(() => vi.useRealTimers());

  it('is renewed while the show is on and released once it ends', async () => {
    vi.useFakeTimers();
    const { publications: shows, lease } = publications();
    const publisher = stream().publisher('c1');
    shows.publishStarted(publisher);
    await vi.advanceTimersByTimeAsync(2 * LEASE_RENEW_MS);
    expect(lease).toEqual(['acquire show', 'acquire show']);
    shows.publishDone(publisher);
    await shows.drain();
    await vi.advanceTimersByTimeAsync(2 * LEASE_RENEW_MS);
    // The last renewal at the end asks whether a standby ingest could take the show: none, so it ends.
    expect(lease).toEqual(['acquire show', 'acquire show', 'acquire show', 'release show']);
    expect(shows.has('/live/show')).toBe(false);
  });

  it('lost to another ingest (a renewal answers held): the publisher is cut and the lease is not released', async () => {
    vi.useFakeTimers();
    const { publications: shows, lease } = publications(() => 'held');
    const show = stream(() => shows.publishDone(c1));
    const c1 = show.publisher('c1');
    shows.publishStarted(c1);
    await vi.advanceTimersByTimeAsync(LEASE_RENEW_MS);
    expect(show.calls).toEqual(['stopInput c1', 'finish']);
    expect(shows.has('/live/show')).toBe(false);
    await shows.drain();
    expect(lease).toEqual(['acquire show']);
  });

  it('a new publish of the stream while the old one ends keeps the lease; a resume keeps the publication', async () => {
    const { publications: shows, lease } = publications();
    const show = stream();
    shows.publishStarted(show.publisher('c1'));
    const resumed = show.publisher('c2');
    shows.publishStarted(resumed);
    expect(shows.onAir()).toEqual([resumed]);
    shows.publishDone(resumed);
    shows.publishStarted(stream().publisher('c3'));
    await shows.drain();
    expect(lease).not.toContain('release show');
    expect(shows.has('/live/show')).toBe(true);
  });

  it('a clean stop cuts only the current publisher of the show', () => {
    const { publications: shows } = publications();
    const show = stream();
    const old = show.publisher('c1');
    const current = show.publisher('c2');
    shows.publishStarted(old);
    shows.publishStarted(current);
    shows.publisherStopped(old);
    expect(show.calls).toEqual([]);
    shows.publisherStopped(current);
    expect(show.calls).toEqual(['stopInput c2', 'finish']);
  });
});

/** An encoder of the show `/live/show` in its role's broadcast, sending now. */
function encoder(role: 'primary' | 'backup', id: string, onFinish: () => void = () => undefined) {
  const broadcast = { streamPath: role === 'primary' ? '/live/show' : '/live-backup/show', getPublishStatus: () => 'publishing', _finishPublish: onFinish };
  return {
    id, role, showPath: '/live/show', streamPath: broadcast.streamPath, streamName: 'show', broadcast, standby: false,
    lastInputAt: Date.now(), stopInput: () => undefined,
  } as unknown as GatedRtmpSession & { lastInputAt: number };
}

describe('publications: two encoders of a show', () => {
  afterEach(() => vi.useRealTimers());

  function failover(lease: Partial<LeaseClient> = {}) {
    const switches: string[] = [];
    const calls: string[] = [];
    const notifier = {
      acquire: async (_eventId: string, role?: string) => (calls.push(`acquire ${role}`), 'ok' as LeaseAnswer),
      release: async () => void calls.push('release'),
      settle: async () => undefined,
      standbyOf: () => null,
      handover: async () => false,
      ...lease,
    } as unknown as LeaseClient;
    const shows = createPublications({
      hls: undefined,
      notifier,
      log: createLogger('error', () => undefined),
      metrics: { count: () => undefined },
      onSwitch: (_name, from, to, reason) => switches.push(`${from}→${to} ${reason}`),
    });
    return { shows, switches, calls };
  }

  it('the backup goes on air when the primary drops, the returned primary waits, and takes over when the backup drops', () => {
    const { shows, switches } = failover();
    const primary = encoder('primary', 'p1');
    const backup = encoder('backup', 'b1');
    shows.publishStarted(primary);
    shows.publishStarted(backup);
    expect(switches).toEqual([]);
    shows.publisherClosed(primary);
    expect(switches).toEqual(['primary→backup dropped']);
    shows.publishStarted(encoder('primary', 'p2'));
    expect(switches).toEqual(['primary→backup dropped']);
    shows.publisherClosed(backup);
    expect(switches).toEqual(['primary→backup dropped', 'backup→primary dropped']);
    shows.stop();
  });

  it('a silent primary hands over after the silence; a silent backup alone does not take over', async () => {
    vi.useFakeTimers();
    const { shows, switches } = failover();
    const primary = encoder('primary', 'p1');
    const backup = encoder('backup', 'b1');
    shows.publishStarted(primary);
    shows.publishStarted(backup);
    // Only the backup keeps sending.
    const keepSending = setInterval(() => (backup.lastInputAt = Date.now()), 100);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(switches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(switches).toEqual(['primary→backup silent']);
    clearInterval(keepSending);
    shows.stop();
  });

  it('with the standby on another ingest: the holder whose encoder drops hands the lease over and stands by', async () => {
    const handovers: string[] = [];
    const { shows, calls } = failover({
      standbyOf: () => ({ holder: 'other', role: 'backup' }),
      handover: async (eventId: string) => (handovers.push(eventId), true),
    });
    const primary = encoder('primary', 'p1');
    shows.publishStarted(primary);
    expect(shows.has('/live/show')).toBe(true);
    shows.publisherClosed(primary);
    await vi.waitFor(() => expect(handovers).toEqual(['show']));
    await vi.waitFor(() => expect(shows.has('/live/show')).toBe(false));
    expect(calls).not.toContain('release');
    shows.stop();
  });
});
