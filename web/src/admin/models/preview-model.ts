/**
 * The stream preview's state and actions, without the DOM: the on-air status, the preview token (renewed at
 * 80 % of its life), whether the player runs, when a new segment last showed up, and the player's restarts
 * (a missing playlist, a new part on air). The player itself (hls.js on a video element) is a port the view
 * gives it.
 */
import type { adminApi, EventStatus, Preview } from '../api';
import { listeners } from './listeners';

/** The token is renewed at this share of its life, like the viewer's. */
export const RENEW_AT = 0.8;
export const RETRY_MS = 3_000;
/** The message of a refused playlist or segment (401, 403). */
export const REFUSED = 'The preview was refused. Start it again; if it keeps failing, check that the event is active.';

export type PreviewApi = Pick<typeof adminApi, 'preview'> & {
  /** The public on-air status of the event. */
  eventStatus(eventId: string): Promise<{ status: EventStatus }>;
};

/** What the model asks of the player: play this stream (replacing any playing), or stop and empty the video. */
export interface PreviewPlayer {
  play(preview: Preview): void;
  stop(): void;
}

export interface PreviewState {
  status: EventStatus;
  /** Between "Start preview" and "Stop preview" (also while waiting to retry). */
  active: boolean;
  message: string;
  /** When a new segment last showed up in the playlist (at first: when the preview first saw the playlist). */
  lastSegmentAt: number | null;
  firstSeenOnly: boolean;
  /** The playlist ended (a recording): the player is started again when the event goes on air. */
  finished: boolean;
}

/** The freshness line: its text and tone (none while the preview is off). */
export function freshnessOf(state: PreviewState, now: number): { text: string; tone?: 'muted' | 'warn' | 'ok' } {
  if (!state.active) return { text: 'Start the preview to see the stream.' };
  if (state.finished) return { text: 'Recording: the broadcast has ended. The preview follows when OBS goes on air again.', tone: 'muted' };
  if (state.lastSegmentAt === null) return { text: 'Waiting for the first segment…', tone: 'muted' };
  const seconds = Math.max(0, Math.round((now - state.lastSegmentAt) / 1000));
  return {
    text: state.firstSeenOnly ? `No new segment since the preview started ${seconds} s ago.` : `Last new segment ${seconds} s ago.`,
    tone: seconds > 10 ? 'warn' : 'ok',
  };
}

export function previewModel(options: {
  eventId: string;
  initialStatus: EventStatus;
  api: PreviewApi;
  player: PreviewPlayer;
  /** Whether the panel is still on the page (a retry after it left does nothing). */
  shown: () => boolean;
  /** A renewal that failed (the view shows it; the preview plays on until the token runs out). */
  onError: (error: unknown) => void;
  now?: () => number;
}) {
  const { eventId, api, player, shown, onError, now = Date.now } = options;
  const state: PreviewState = { status: options.initialStatus, active: false, message: '', lastSegmentAt: null, firstSeenOnly: true, finished: false };
  const changes = listeners();
  let token = '';
  let playing = false;
  let lastSn: number | null = null;
  /** Where the stream is, from the preview answer: the player starts again from it when a new part goes on air. */
  let source: Preview | undefined;
  let renewTimer: ReturnType<typeof setTimeout> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const took = (preview: Preview) => {
    token = preview.playbackToken;
    state.status = preview.status;
    clearTimeout(renewTimer);
    renewTimer = setTimeout(() => void renew(), preview.tokenExpiresIn * 1000 * RENEW_AT);
  };
  const renew = async () => {
    try {
      took(await api.preview(eventId));
      changes.emit();
    } catch (error) {
      onError(error);
    }
  };
  const play = (preview: Preview) => {
    source = preview;
    lastSn = null;
    Object.assign(state, { lastSegmentAt: null, firstSeenOnly: true, finished: false });
    playing = true;
    player.play(preview);
  };
  const stop = (message = '') => {
    clearTimeout(renewTimer);
    clearTimeout(retryTimer);
    Object.assign(state, { active: false, message });
    playing = false;
    player.stop();
    changes.emit();
  };

  return {
    state: state as Readonly<PreviewState>,
    subscribe: changes.subscribe,
    /** The token the player sends with each request. */
    token: () => token,
    /** Asks for a preview token and plays; throws the API's error (nothing starts). */
    async start() {
      const preview = await api.preview(eventId);
      took(preview);
      Object.assign(state, { active: true, message: '' });
      play(preview);
      changes.emit();
    },
    stop,
    /** The player read the playlist: a new last segment is news. */
    playlistLoaded(endSn: number, live: boolean) {
      if (endSn !== lastSn) {
        if (lastSn !== null) state.firstSeenOnly = false;
        lastSn = endSn;
        state.lastSegmentAt = now();
      }
      state.finished = !live;
      state.message = '';
      changes.emit();
    },
    /** The stream refused the token. */
    refused: () => stop(REFUSED),
    /** The player gave up (the view destroyed it): no playlist yet (404, nobody publishing) or a network hiccup; it tries again shortly. */
    failed(httpStatus: number | undefined) {
      playing = false;
      state.message = httpStatus === 404 ? 'No stream yet: waiting for OBS to publish…' : 'The stream is not reachable right now. Retrying…';
      changes.emit();
      const again = source;
      retryTimer = setTimeout(() => {
        if (state.active && !playing && shown() && again) play(again);
      }, RETRY_MS);
    },
    /**
     * Reads the on-air status. Like the viewer page: a playlist that ended (ENDLIST) is not read again by
     * hls.js, so when the event is on air again (a stop, then a new part) the player starts over on the new part.
     */
    async pollStatus() {
      state.status = (await api.eventStatus(eventId)).status;
      if (state.active && state.finished && state.status === 'live' && source && playing) play(source);
      changes.emit();
    },
  };
}

export type PreviewModel = ReturnType<typeof previewModel>;
