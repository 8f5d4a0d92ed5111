/**
 * The preview player beside the OBS settings: the event's stream (live or
 * recording) with a preview token that spends no code, the on-air state and
 * how long ago the last new segment appeared, so "is it working?" is
 * answered at a glance. The state and actions are the model's
 * (`models/preview-model.ts`); this draws it and runs hls.js for it.
 */
import Hls, { type ErrorData, type LevelLoadedData } from 'hls.js/light';
import { h } from '../../shared/dom';
import { requestJson } from '../../shared/http';
import { adminApi, type EventStatus, type Preview } from '../api';
import { freshnessOf, previewModel, type PreviewModel, type PreviewPlayer } from '../models/preview-model';
import { act, badge, reportError } from '../ui';

const STATUS_POLL_MS = 5_000;

const ON_AIR: Record<EventStatus, { text: string; tone: 'live' | 'warn' | 'muted' }> = {
  live: { text: 'On air', tone: 'live' },
  recording: { text: 'Off air · recording available', tone: 'warn' },
  'not-started': { text: 'Off air · not started', tone: 'muted' },
  ended: { text: 'Off air · ended', tone: 'muted' },
};

export function previewPanel(eventId: string, initialStatus: EventStatus): HTMLElement {
  const state = h('p', { className: 'preview-state' });
  const freshness = h('p', { className: 'preview-freshness', 'aria-live': 'off' }, 'Start the preview to see the stream.');
  const message = h('p', { className: 'hint', role: 'status' });
  const video = h('video', { className: 'preview-video', muted: true, playsinline: true, controls: true, 'aria-label': 'Stream preview' });
  video.muted = true;
  const toggle = h('button', { type: 'button', className: 'primary', 'data-key': 'preview-toggle' }, 'Start preview');
  const model: PreviewModel = previewModel({
    eventId,
    initialStatus,
    api: { preview: adminApi.preview, eventStatus: (id) => requestJson<{ status: EventStatus }>(`/api/events/${encodeURIComponent(id)}/status`) },
    player: hlsPlayer(video, () => model),
    shown: () => element.isConnected,
    onError: reportError,
  });

  const drawFreshness = () => {
    const { text, tone } = freshnessOf(model.state, Date.now());
    freshness.textContent = text;
    if (tone) freshness.dataset.tone = tone;
    else delete freshness.dataset.tone;
  };
  model.subscribe(() => {
    const { text, tone } = ON_AIR[model.state.status];
    state.replaceChildren(badge(text, tone));
    drawFreshness();
    message.textContent = model.state.message;
    toggle.textContent = model.state.active ? 'Stop preview' : 'Start preview';
  });
  toggle.addEventListener('click', () => {
    if (model.state.active) return model.stop();
    void act(toggle, model.start);
  });

  const tick = setInterval(() => {
    if (!element.isConnected) {
      clearInterval(tick);
      clearInterval(poll);
      model.stop();
      return;
    }
    drawFreshness();
  }, 1_000);
  const poll = setInterval(() => {
    if (!element.isConnected || document.hidden) return;
    void model.pollStatus().catch(() => undefined);
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
  state.replaceChildren(badge(ON_AIR[initialStatus].text, ON_AIR[initialStatus].tone));
  return element;
}

/** hls.js on the video element, reporting what it sees to the model (`model` is read once it exists). */
function hlsPlayer(video: HTMLVideoElement, model: () => PreviewModel): PreviewPlayer {
  let hls: Hls | undefined;
  const destroy = () => {
    hls?.destroy();
    hls = undefined;
  };
  return {
    play(preview: Preview) {
      destroy();
      const player = new Hls({
        xhrSetup(xhr, url) {
          if (xhr.readyState === XMLHttpRequest.UNSENT) xhr.open('GET', url, true);
          xhr.setRequestHeader('Authorization', `Bearer ${model().token()}`);
        },
        liveSyncDurationCount: 3,
      });
      hls = player;
      player.on(Hls.Events.LEVEL_LOADED, (_event, data: LevelLoadedData) => model().playlistLoaded(data.details.endSN, data.details.live));
      player.on(Hls.Events.MANIFEST_PARSED, () => void video.play().catch(() => undefined));
      player.on(Hls.Events.ERROR, (_event, data: ErrorData) => {
        const code = typeof data.response?.code === 'number' ? data.response.code : undefined;
        if (code === 401 || code === 403) return model().refused();
        if (!data.fatal || hls !== player) return;
        destroy();
        model().failed(code);
      });
      player.loadSource(`${preview.playbackBaseUrl}${preview.streamPath}index.m3u8`);
      player.attachMedia(video);
    },
    stop() {
      destroy();
      video.removeAttribute('src');
      video.load();
    },
  };
}
