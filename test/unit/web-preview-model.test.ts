/**
 * The stream preview's model, without a browser or hls.js: start and stop, the freshness line, the token's
 * renewal, retries while nobody publishes, a refusal, and the restart when a new part goes on air.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventStatus, Preview } from '../../web/src/admin/api';
import { freshnessOf, previewModel, REFUSED, RETRY_MS, type PreviewApi } from '../../web/src/admin/models/preview-model';

const preview = (token: string, status: EventStatus = 'live') =>
  ({ playbackToken: token, status, tokenExpiresIn: 100, playbackBaseUrl: 'https://cdn', streamPath: '/e1/' }) as unknown as Preview;

function setup(options: { shown?: () => boolean; api?: Partial<PreviewApi> } = {}) {
  const played: string[] = [];
  let stops = 0;
  const errors: unknown[] = [];
  let tokens = 0;
  let clock = 1_000_000;
  const api: PreviewApi = {
    preview: async () => preview(`t${++tokens}`),
    eventStatus: async () => ({ status: 'live' }),
    ...options.api,
  };
  const model = previewModel({
    eventId: 'e1',
    initialStatus: 'not-started',
    api,
    player: { play: (p) => played.push(p.playbackToken), stop: () => (stops += 1) },
    shown: options.shown ?? (() => true),
    onError: (error) => errors.push(error),
    now: () => clock,
  });
  return { model, played, errors, stops: () => stops, tick: (ms: number) => (clock += ms), now: () => clock };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('preview model', () => {
  it('starts with a token, follows new segments, and stops', async () => {
    const { model, played, stops, tick, now } = setup();
    expect(freshnessOf(model.state, now())).toEqual({ text: 'Start the preview to see the stream.' });
    await model.start();
    expect([model.state.active, model.state.status, model.token(), played]).toEqual([true, 'live', 't1', ['t1']]);
    expect(freshnessOf(model.state, now())).toEqual({ text: 'Waiting for the first segment…', tone: 'muted' });
    model.playlistLoaded(5, true);
    tick(4_000);
    expect(freshnessOf(model.state, now())).toEqual({ text: 'No new segment since the preview started 4 s ago.', tone: 'ok' });
    model.playlistLoaded(6, true);
    tick(11_000);
    expect(freshnessOf(model.state, now())).toEqual({ text: 'Last new segment 11 s ago.', tone: 'warn' });
    model.stop();
    expect([model.state.active, stops()]).toEqual([false, 1]);
  });

  it('renews the token at 80 % of its life; a failed renewal is reported', async () => {
    vi.useFakeTimers();
    let fail = false;
    let issued = 0;
    const { model, errors } = setup({
      api: { preview: async () => (fail ? Promise.reject(new Error('down')) : preview(`t${++issued}`)) },
    });
    await model.start();
    await vi.advanceTimersByTimeAsync(79_000);
    expect(model.token()).toBe('t1');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(model.token()).toBe('t2');
    fail = true;
    await vi.advanceTimersByTimeAsync(80_000);
    expect([model.token(), errors.length]).toEqual(['t2', 1]);
    model.stop();
  });

  it('retries while nobody publishes, not once stopped or gone, and stops on a refusal', async () => {
    vi.useFakeTimers();
    let shown = true;
    const { model, played } = setup({ shown: () => shown });
    await model.start();
    model.failed(404);
    expect(model.state.message).toBe('No stream yet: waiting for OBS to publish…');
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    expect(played).toHaveLength(2);
    model.failed(undefined);
    expect(model.state.message).toBe('The stream is not reachable right now. Retrying…');
    shown = false;
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    expect(played).toHaveLength(2);
    shown = true;
    model.refused();
    expect([model.state.active, model.state.message]).toEqual([false, REFUSED]);
  });

  it('starts the player again when an ended playlist goes on air again', async () => {
    let status: EventStatus = 'recording';
    const { model, played, now } = setup({ api: { eventStatus: async () => ({ status }) } });
    await model.start();
    model.playlistLoaded(9, false);
    expect(freshnessOf(model.state, now()).text).toMatch(/^Recording: the broadcast has ended/);
    await model.pollStatus();
    expect([model.state.status, played]).toEqual(['recording', ['t1']]);
    status = 'live';
    await model.pollStatus();
    expect([model.state.status, played, model.state.finished]).toEqual(['live', ['t1', 't1'], false]);
  });
});
