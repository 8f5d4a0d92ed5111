/**
 * The video element driven by hls.js. Every manifest and segment request
 * carries the current playback JWT as `Authorization: Bearer`; a refusal
 * (401/403) or a stream that is not (or no longer) there is reported to the
 * caller, which decides what the viewer sees.
 */
import Hls, { type ErrorData } from 'hls.js/light';
import type { QualityMeter } from './quality-meter';
import { offerRemotePlayback, usesManagedMediaSource, type RemotePlaybackOffer } from './remote-playback';
import { liveSyncSeconds } from './timing';

export interface PlayerCallbacks {
  /** The JWT to send now (it changes when refreshed). */
  token(): string;
  /** The media server refused the token. */
  onDenied(status: number): void;
  /** The manifest is missing or the network failed. */
  onUnavailable(): void;
  /** Playback reached the end of the stream (the broadcast finished); the last frame stays shown. */
  onEnded(): void;
  /** Frames are moving. */
  onPlaying(): void;
  /** For AirPlay under ManagedMediaSource: the session's current header-less URL, and what to do when AirPlay starts. */
  remote?: { playbackUrl(): string; onConnecting(): void };
  /** Where playback is against the live edge: at it, behind it (paused or sought back), or not live (a recording). */
  onLiveEdge?(state: LiveEdgeState): void;
  /** Told the rendition and the player's errors, for the heartbeat's quality report. */
  quality?: Pick<QualityMeter, 'rendition' | 'error'>;
}

export type LiveEdgeState = 'live' | 'behind' | 'off';

export interface Player {
  /** Jumps to the live edge and plays (hls.js only). */
  goLive?(): void;
  destroy(): void;
}

/** Further behind the player's target than this (seconds, or one segment if longer) counts as no longer live. */
const BEHIND_SLACK_SECONDS = 2;

export function canPlayHls(): boolean {
  return Hls.isSupported();
}

export function startPlayer(video: HTMLVideoElement, url: string, callbacks: PlayerCallbacks): Player {
  let done = false;
  let mediaRecoveries = 0;
  const hls = new Hls({
    xhrSetup(xhr, requestUrl) {
      if (xhr.readyState === XMLHttpRequest.UNSENT) xhr.open('GET', requestUrl, true);
      xhr.setRequestHeader('Authorization', `Bearer ${callbacks.token()}`);
    },
    // Until the first playlist is read; then two of its recent segments (liveSyncSeconds). A player that fell further
    // behind catches up at up to 1.2× speed, which viewers hardly notice.
    liveSyncDurationCount: 2,
    maxLiveSyncPlaybackRate: 1.2,
  });

  let remoteOffer: RemotePlaybackOffer | undefined;
  const finish = (report: () => void) => {
    if (done) return;
    destroy();
    report();
  };

  // Runs after hls.js's own handler, which has just put its blob <source> in place.
  hls.on(Hls.Events.MEDIA_ATTACHING, () => {
    const remote = callbacks.remote;
    if (remote && usesManagedMediaSource(video)) remoteOffer = offerRemotePlayback(video, remote.playbackUrl, remote.onConnecting);
  });

  let live = false;
  let targetDuration = 0;
  let edgeState: LiveEdgeState | undefined;
  const reportEdge = () => {
    let state: LiveEdgeState = 'off';
    if (live) {
      const slack = Math.max(BEHIND_SLACK_SECONDS, targetDuration);
      const latency = hls.latency;
      state = video.paused || (Number.isFinite(latency) && latency > (hls.targetLatency ?? 0) + slack) ? 'behind' : 'live';
    }
    if (state === edgeState) return;
    edgeState = state;
    callbacks.onLiveEdge?.(state);
  };
  let holdBack: number | undefined;
  hls.on(Hls.Events.LEVEL_UPDATED, (_event, data) => {
    live = data.details.live;
    targetDuration = data.details.targetduration;
    // Runs before hls.js picks its first segment, so playback starts at this distance too. Set only on a change:
    // setting it resets hls.js's own allowance for stalls.
    const hold = live ? liveSyncSeconds(data.details.fragments.map((fragment) => fragment.duration)) : undefined;
    if (hold !== undefined && hold !== holdBack) {
      holdBack = hold;
      hls.targetLatency = hold;
      // What the player holds back, for whoever inspects the page (the latency tests and benchmark).
      video.dataset.liveSyncSeconds = hold.toFixed(3);
    }
    reportEdge();
  });

  const onPlaying = () => {
    reportEdge();
    callbacks.onPlaying();
  };
  // The player stays on its last frame (the page may offer to watch again); the caller destroys it.
  const onEnded = () => {
    if (!done) callbacks.onEnded();
  };
  video.addEventListener('playing', onPlaying);
  video.addEventListener('ended', onEnded);
  for (const name of ['timeupdate', 'pause', 'seeked'] as const) video.addEventListener(name, reportEdge);

  hls.on(Hls.Events.MANIFEST_PARSED, () => {
    video.play().catch((error: unknown) => {
      // Autoplay with sound refused: start muted, the controls let the viewer unmute.
      if (error instanceof DOMException && error.name === 'NotAllowedError' && !video.muted) {
        video.muted = true;
        video.play().catch(() => undefined);
      }
    });
  });

  // The rendition played: its declared bitrate, or (a single rendition without a master playlist) what its fragments measure.
  hls.on(Hls.Events.FRAG_LOADED, (_event, data) => {
    const declared = hls.levels[data.frag.level]?.bitrate;
    const bytes = data.frag.stats.total;
    callbacks.quality?.rendition(declared ? declared / 1000 : (bytes * 8) / 1000 / Math.max(0.1, data.frag.duration));
  });

  hls.on(Hls.Events.ERROR, (_event, data: ErrorData) => {
    const status = httpStatus(data);
    if (status === 401 || status === 403) return finish(() => callbacks.onDenied(status));
    const recoverable = data.type === Hls.ErrorTypes.MEDIA_ERROR && mediaRecoveries < 2;
    // A stream that is not there (404) is not on air, and a stalled buffer is counted as a stall: neither is a playback error.
    if (status !== 404 && data.details !== Hls.ErrorDetails.BUFFER_STALLED_ERROR) callbacks.quality?.error(data.details, data.fatal && !recoverable);
    if (!data.fatal) return;
    if (recoverable) {
      mediaRecoveries += 1;
      hls.recoverMediaError();
      return;
    }
    finish(callbacks.onUnavailable);
  });

  hls.loadSource(url);
  hls.attachMedia(video);

  function destroy(): void {
    if (done) return;
    done = true;
    video.removeEventListener('playing', onPlaying);
    video.removeEventListener('ended', onEnded);
    remoteOffer?.stop();
    delete video.dataset.liveSyncSeconds;
    for (const name of ['timeupdate', 'pause', 'seeked'] as const) video.removeEventListener(name, reportEdge);
    hls.destroy();
    video.pause();
    video.removeAttribute('src');
    video.load();
  }

  function goLive(): void {
    const edge = hls.liveSyncPosition;
    if (edge !== null && Number.isFinite(edge)) video.currentTime = edge;
    void video.play().catch(() => undefined);
  }

  return { goLive, destroy };
}

function httpStatus(data: ErrorData): number | undefined {
  if (typeof data.response?.code === 'number') return data.response.code;
  const details = data.networkDetails as { status?: unknown } | undefined;
  return typeof details?.status === 'number' ? details.status : undefined;
}
