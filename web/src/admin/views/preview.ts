/**
 * The preview player beside the OBS settings: the event's stream (live or
 * recording) with a preview token that spends no code, the on-air state and
 * how long ago the last new segment appeared, so "is it working?" is
 * answered at a glance.
 */
import Hls, { type ErrorData, type LevelLoadedData } from 'hls.js/light';
import { h } from '../../shared/dom';
import { requestJson } from '../../shared/http';
import { adminApi, type EventStatus, type Preview } from '../api';
import { act, badge } from '../ui';

const STATUS_POLL_MS = 5_000;
const RETRY_MS = 3_000;
/** The token is renewed at this share of its life, like the viewer's. */
const RENEW_AT = 0.8;

const ON_AIR: Record<EventStatus, { text: string; tone: 'live' | 'warn' | 'muted' }> = {
  live: { text: 'On air', tone: 'live' },
  recording: { text: 'Off air · recording available', tone: 'warn' },
  'not-started': { text: 'Off air · not started', tone: 'muted' },
  ended: { text: 'Off air · ended', tone: 'muted' },
};

export function previewPanel(eventId: string, initialStatus: EventStatus): HTMLElement {
  let status = initialStatus;
  let hls: Hls | undefined;
  /** Between "Start preview" and "Stop preview" (also while waiting to retry). */
  let active = false;
  let token = '';
  let renewTimer: ReturnType<typeof setTimeout> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let lastSn: number | null = null;
  /** When a new segment last showed up in the playlist (at first: when the preview first saw the playlist). */
  let lastSegmentAt: number | null = null;
  let firstSeenOnly = true;
  let finished = false;
  /** Where the stream is, from the preview answer: the player is started again from it when a new part goes on air. */
  let source: Preview | undefined;

  const state = h('p', { className: 'preview-state' });
  const freshness = h('p', { className: 'preview-freshness', 'aria-live': 'off' }, 'Start the preview to see the stream.');
  const message = h('p', { className: 'hint', role: 'status' });
  const video = h('video', { className: 'preview-video', muted: true, playsinline: true, controls: true, 'aria-label': 'Stream preview' });
  video.muted = true;
  const toggle = h('button', { type: 'button', className: 'primary', 'data-key': 'preview-toggle' }, 'Start preview');

  const drawState = () => {
    const { text, tone } = ON_AIR[status];
    state.replaceChildren(badge(text, tone));
  };
  const drawFreshness = () => {
    if (!active) return;
    if (finished) {
      freshness.textContent = 'Recording: the broadcast has ended. The preview follows when OBS goes on air again.';
      freshness.dataset.tone = 'muted';
      return;
    }
    if (lastSegmentAt === null) {
      freshness.textContent = 'Waiting for the first segment…';
      freshness.dataset.tone = 'muted';
      return;
    }
    const seconds = Math.max(0, Math.round((Date.now() - lastSegmentAt) / 1000));
    freshness.textContent = firstSeenOnly
      ? `No new segment since the preview started ${seconds} s ago.`
      : `Last new segment ${seconds} s ago.`;
    freshness.dataset.tone = seconds > 10 ? 'warn' : 'ok';
  };

  const stop = (text = '') => {
    clearTimeout(renewTimer);
    clearTimeout(retryTimer);
    active = false;
    hls?.destroy();
    hls = undefined;
    video.removeAttribute('src');
    video.load();
    toggle.textContent = 'Start preview';
    freshness.textContent = 'Start the preview to see the stream.';
    delete freshness.dataset.tone;
    message.textContent = text;
  };

  const renew = async (): Promise<boolean> => {
    const fresh = await act(null, () => adminApi.preview(eventId));
    if (!fresh) return false;
    token = fresh.playbackToken;
    status = fresh.status;
    drawState();
    clearTimeout(renewTimer);
    renewTimer = setTimeout(() => void renew(), fresh.tokenExpiresIn * 1000 * RENEW_AT);
    return true;
  };

  const play = (preview: Preview) => {
    source = preview;
    lastSn = null;
    lastSegmentAt = null;
    firstSeenOnly = true;
    finished = false;
    const player = new Hls({
      xhrSetup(xhr, url) {
        if (xhr.readyState === XMLHttpRequest.UNSENT) xhr.open('GET', url, true);
        xhr.setRequestHeader('Authorization', `Bearer ${token}`);
      },
      liveSyncDurationCount: 3,
    });
    hls = player;
    player.on(Hls.Events.LEVEL_LOADED, (_event, data: LevelLoadedData) => {
      const { endSN, live } = data.details;
      if (endSN !== lastSn) {
        if (lastSn !== null) firstSeenOnly = false;
        lastSn = endSN;
        lastSegmentAt = Date.now();
      }
      finished = !live;
      message.textContent = '';
      drawFreshness();
    });
    player.on(Hls.Events.MANIFEST_PARSED, () => void video.play().catch(() => undefined));
    player.on(Hls.Events.ERROR, (_event, data: ErrorData) => {
      const code = typeof data.response?.code === 'number' ? data.response.code : undefined;
      if (code === 401 || code === 403) {
        stop('The preview was refused. Start it again; if it keeps failing, check that the event is active.');
        return;
      }
      if (!data.fatal) return;
      // No playlist yet (nobody publishing) or a network hiccup: try again shortly.
      if (hls !== player) return;
      player.destroy();
      hls = undefined;
      message.textContent = code === 404 ? 'No stream yet: waiting for OBS to publish…' : 'The stream is not reachable right now. Retrying…';
      retryTimer = setTimeout(() => {
        if (active && !hls && element.isConnected) play(preview);
      }, RETRY_MS);
    });
    player.loadSource(`${preview.playbackBaseUrl}${preview.streamPath}index.m3u8`);
    player.attachMedia(video);
  };

  toggle.addEventListener('click', () => {
    if (active) return stop();
    void act(toggle, async () => {
      const preview = await adminApi.preview(eventId);
      token = preview.playbackToken;
      status = preview.status;
      drawState();
      clearTimeout(renewTimer);
      renewTimer = setTimeout(() => void renew(), preview.tokenExpiresIn * 1000 * RENEW_AT);
      active = true;
      toggle.textContent = 'Stop preview';
      message.textContent = '';
      play(preview);
      drawFreshness();
    });
  });

  const tick = setInterval(() => {
    if (!element.isConnected) {
      clearInterval(tick);
      clearInterval(poll);
      stop();
      return;
    }
    drawFreshness();
  }, 1_000);
  /**
   * Like the viewer page: a playlist that ended (ENDLIST) is not read again by hls.js, so when the event is
   * on air again (a stop, then a new part) the player starts over on the new part.
   */
  const followStatus = () => {
    if (active && finished && status === 'live' && source && hls) {
      hls.destroy();
      hls = undefined;
      play(source);
      drawFreshness();
    }
  };
  const poll = setInterval(() => {
    if (!element.isConnected || document.hidden) return;
    void requestJson<{ status: EventStatus }>(`/api/events/${encodeURIComponent(eventId)}/status`)
      .then((answer) => {
        status = answer.status;
        drawState();
        followStatus();
      })
      .catch(() => undefined);
  }, STATUS_POLL_MS);

  const element = h(
    'section',
    { className: 'card panel preview-panel', 'aria-labelledby': 'preview-title' },
    h('h2', { id: 'preview-title', tabindex: -1 }, 'Preview'),
    state,
    h('div', { className: 'preview-frame' }, video),
    freshness,
    message,
    h('div', { className: 'toolbar' }, toggle),
    h('p', { className: 'hint' }, 'Watches the stream without using a code; you are not counted as a viewer.'),
  );
  drawState();
  return element;
}
