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
