/**
 * The video element playing HLS by itself (Safari before iOS 17.1, browsers
 * without Media Source Extensions) from the session's long-lived playback URL:
 * the credential is in the path, so the element's own requests, which carry
 * no header, are authorised. The element does not say why it failed, so a
 * failure is reported as such and the caller asks the API whether access is over;
 * a decode error (`MEDIA_ERR_DECODE`) is the stream's, and is recovered here by
 * loading the source again (`recovery.ts`).
 */
import { playWithAutoplayFallback } from './autoplay';
import type { Player } from './player';
import { Recovery } from './recovery';

/** The HLS type an element names when it can play it natively. */
const HLS_TYPE = 'application/vnd.apple.mpegurl';
/**
 * A refused playlist often makes the element wait rather than fail: stalled
 * this long, the caller is told, so a revoke shows before the next heartbeat.
 */
const STALL_REPORT_MS = 8_000;

export interface NativePlayerCallbacks {
  /** The element gave up: access may be over, or the stream is not there. */
  onFailed(): void;
  onEnded(): void;
  onPlaying(): void;
  /** No progress for a while: worth asking whether access is over. */
  onStalled(): void;
  /** The stream stopped decoding and the player is recovering: the next try is `retryInMs` away (0: now). */
  onRecovering?(retryInMs: number): void;
}

export function canPlayHlsNatively(video: HTMLVideoElement): boolean {
  return video.canPlayType(HLS_TYPE) !== '';
}

export function startNativePlayer(video: HTMLVideoElement, url: string, callbacks: NativePlayerCallbacks): Player {
  let done = false;
  const finish = (report: () => void) => {
    if (done) return;
    destroy();
    report();
  };
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  const onPlaying = () => {
    played = true;
    clearTimeout(stallTimer);
    stallTimer = undefined;
    callbacks.onPlaying();
  };
  const onWaiting = () => {
    stallTimer ??= setTimeout(() => {
      stallTimer = undefined;
      callbacks.onStalled();
    }, STALL_REPORT_MS);
  };
  const onEnded = () => finish(callbacks.onEnded);
  // Every step is a fresh load here: the element has no media recovery of its own.
  const recovery = new Recovery(video, {
    apply: () => {
      if (done) return;
      video.src = url;
      playWithAutoplayFallback(video);
    },
    onRecovering: (retryInMs) => callbacks.onRecovering?.(retryInMs),
  });
  /** Frames moved on this source: a "not supported" now is a segment the element could not parse, not the source. */
  let played = false;
  const onError = () => {
    const code = video.error?.code;
    if (code === MediaError.MEDIA_ERR_DECODE || (code === MediaError.MEDIA_ERR_SRC_NOT_SUPPORTED && played)) {
      // The stream's fault: loaded again. A heartbeat meanwhile tells whether access ended too.
      recovery.failed();
      callbacks.onStalled();
    } else finish(callbacks.onFailed);
  };
  video.addEventListener('playing', onPlaying);
  video.addEventListener('waiting', onWaiting);
  video.addEventListener('ended', onEnded);
  video.addEventListener('error', onError);
  video.src = url;
  playWithAutoplayFallback(video);

  function destroy(): void {
    if (done) return;
    done = true;
    clearTimeout(stallTimer);
    recovery.stop();
    video.removeEventListener('playing', onPlaying);
    video.removeEventListener('waiting', onWaiting);
    video.removeEventListener('ended', onEnded);
    video.removeEventListener('error', onError);
    video.pause();
    video.removeAttribute('src');
    video.load();
  }

  return { destroy, retryNow: () => recovery.retryNow() };
}
