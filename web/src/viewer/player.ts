/**
 * The video element driven by hls.js. Every manifest and segment request
 * carries the current playback JWT as `Authorization: Bearer`; a refusal
 * (401/403) or a stream that is not (or no longer) there is reported to the
 * caller, which decides what the viewer sees. A stream that stops decoding is
 * recovered here (`recovery.ts`): hls.js's media recovery, then fresh loads.
 */
import Hls, { type ErrorData } from 'hls.js/light';
import { playWithAutoplayFallback } from './autoplay';
import { fragmentKbps, type QualityMeter } from './quality-meter';
import { Recovery } from './recovery';
import type { RecoveryStep } from './recovery-policy';
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
  /** The stream stopped decoding and the player is recovering: the next try is `retryInMs` away (0: now). */
  onRecovering?(retryInMs: number): void;
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
  /** A recovery's pending reload now, not after its wait. */
  retryNow?(): void;
  destroy(): void;
}

/** Further behind the player's target than this (seconds, or one segment if longer) counts as no longer live. */
const BEHIND_SLACK_SECONDS = 2;

/** Non-fatal media errors after which hls.js resets the media source itself: frames should move again soon after. */
const SELF_RECOVERED: ReadonlySet<string> = new Set([
  Hls.ErrorDetails.MEDIA_SOURCE_REQUIRES_RESET,
  Hls.ErrorDetails.BUFFER_APPEND_ERROR,
  Hls.ErrorDetails.BUFFER_APPENDING_ERROR,
]);

export function canPlayHls(): boolean {
  return Hls.isSupported();
}

export function startPlayer(video: HTMLVideoElement, url: string, callbacks: PlayerCallbacks): Player {
  return new HlsPlayer(video, url, callbacks);
}

class HlsPlayer implements Player {
  readonly #video: HTMLVideoElement;
  readonly #url: string;
  readonly #callbacks: PlayerCallbacks;
  readonly #recovery: Recovery;
  #hls: Hls;
  #done = false;
  #remoteOffer: RemotePlaybackOffer | undefined;
  #live = false;
  #targetDuration = 0;
  #edgeState: LiveEdgeState | undefined;
  #holdBack: number | undefined;
  readonly #onPlaying = () => {
    this.#reportEdge();
    this.#callbacks.onPlaying();
  };
  // The player stays on its last frame (the page may offer to watch again); the caller destroys it.
  readonly #onEnded = () => {
    if (!this.#done) this.#callbacks.onEnded();
  };
  readonly #edgeListener = () => this.#reportEdge();

  constructor(video: HTMLVideoElement, url: string, callbacks: PlayerCallbacks) {
    this.#video = video;
    this.#url = url;
    this.#callbacks = callbacks;
    this.#recovery = new Recovery(video, {
      apply: (step) => this.#apply(step),
      onRecovering: (retryInMs) => callbacks.onRecovering?.(retryInMs),
    });
    video.addEventListener('playing', this.#onPlaying);
    video.addEventListener('ended', this.#onEnded);
    for (const name of ['timeupdate', 'pause', 'seeked'] as const) video.addEventListener(name, this.#edgeListener);
    this.#hls = this.#load();
  }

  /** A new hls.js on the element, from the live edge (a recording: from its start). */
  #load(): Hls {
    const callbacks = this.#callbacks;
    const video = this.#video;
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
    this.#holdBack = undefined;
    let attached = false;
    // Runs after hls.js's own handler, which has just put its blob <source> in place.
    hls.on(Hls.Events.MEDIA_ATTACHING, () => {
      const remote = callbacks.remote;
      this.#remoteOffer?.stop();
      if (remote && usesManagedMediaSource(video)) this.#remoteOffer = offerRemotePlayback(video, remote.playbackUrl, remote.onConnecting);
    });
    // A media recovery (ours or hls.js's own) attaches a new source, which leaves the element paused.
    hls.on(Hls.Events.MEDIA_ATTACHED, () => {
      if (attached && this.#recovery.wantsPlaying) playWithAutoplayFallback(video);
      attached = true;
    });
    hls.on(Hls.Events.LEVEL_UPDATED, (_event, data) => this.#levelUpdated(data.details));
    hls.on(Hls.Events.MANIFEST_PARSED, () => playWithAutoplayFallback(video));
    // The rendition played: what each fragment measures as playback enters it (not when it is loaded ahead,
    // and not the variant's BANDWIDTH, which is its peak).
    hls.on(Hls.Events.FRAG_CHANGED, (_event, data) => {
      const kbps = fragmentKbps(data.frag.stats.total, data.frag.duration);
      if (kbps !== undefined) callbacks.quality?.rendition(kbps);
    });
    hls.on(Hls.Events.ERROR, (_event, data) => this.#error(data));
    hls.loadSource(this.#url);
    hls.attachMedia(video);
    return hls;
  }

  #levelUpdated(details: { live: boolean; targetduration: number; fragments: { duration: number }[] }): void {
    this.#live = details.live;
    this.#targetDuration = details.targetduration;
    // Runs before hls.js picks its first segment, so playback starts at this distance too. Set only on a change:
    // setting it resets hls.js's own allowance for stalls.
    const hold = details.live ? liveSyncSeconds(details.fragments.map((fragment) => fragment.duration)) : undefined;
    if (hold !== undefined && hold !== this.#holdBack) {
      this.#holdBack = hold;
      this.#hls.targetLatency = hold;
      // What the player holds back, for whoever inspects the page (the latency tests and benchmark).
      this.#video.dataset.liveSyncSeconds = hold.toFixed(3);
    }
    this.#reportEdge();
  }

  #reportEdge(): void {
    let state: LiveEdgeState = 'off';
    if (this.#live) {
      const slack = Math.max(BEHIND_SLACK_SECONDS, this.#targetDuration);
      const latency = this.#hls.latency;
      state = this.#video.paused || (Number.isFinite(latency) && latency > (this.#hls.targetLatency ?? 0) + slack) ? 'behind' : 'live';
    }
    if (state === this.#edgeState) return;
    this.#edgeState = state;
    this.#callbacks.onLiveEdge?.(state);
  }

  #error(data: ErrorData): void {
    const status = httpStatus(data);
    if (status === 401 || status === 403) return this.#finish(() => this.#callbacks.onDenied(status));
    const media = data.type === Hls.ErrorTypes.MEDIA_ERROR;
    // A stream that is not there (404) is not on air, and a stalled buffer is counted as a stall: neither is a playback error.
    // A fatal media error is recovered, so it is not the report's fatal one.
    if (status !== 404 && data.details !== Hls.ErrorDetails.BUFFER_STALLED_ERROR) this.#callbacks.quality?.error(data.details, data.fatal && !media);
    if (media && data.fatal) return this.#recovery.failed();
    if (media && SELF_RECOVERED.has(data.details)) return this.#recovery.noticed();
    if (data.fatal) this.#finish(this.#callbacks.onUnavailable);
  }

  #apply(step: RecoveryStep): void {
    if (this.#done) return;
    if (step.kind === 'reload') {
      this.#remoteOffer?.stop();
      this.#remoteOffer = undefined;
      this.#hls.destroy();
      this.#hls = this.#load();
      return;
    }
    if (step.kind === 'swap-audio-and-recover') this.#hls.swapAudioCodec();
    this.#hls.recoverMediaError();
  }

  #finish(report: () => void): void {
    if (this.#done) return;
    this.destroy();
    report();
  }

  destroy(): void {
    if (this.#done) return;
    this.#done = true;
    const video = this.#video;
    this.#recovery.stop();
    video.removeEventListener('playing', this.#onPlaying);
    video.removeEventListener('ended', this.#onEnded);
    this.#remoteOffer?.stop();
    delete video.dataset.liveSyncSeconds;
    for (const name of ['timeupdate', 'pause', 'seeked'] as const) video.removeEventListener(name, this.#edgeListener);
    this.#hls.destroy();
    video.pause();
    video.removeAttribute('src');
    video.load();
  }

  goLive(): void {
    const edge = this.#hls.liveSyncPosition;
    if (edge !== null && Number.isFinite(edge)) this.#video.currentTime = edge;
    void this.#video.play().catch(() => undefined);
  }

  retryNow(): void {
    this.#recovery.retryNow();
  }
}

function httpStatus(data: ErrorData): number | undefined {
  if (typeof data.response?.code === 'number') return data.response.code;
  const details = data.networkDetails as { status?: unknown } | undefined;
  return typeof details?.status === 'number' ? details.status : undefined;
}
