/**
 * The video element playing HLS by itself (Safari before iOS 17.1, browsers
 * without Media Source Extensions) from the session's long-lived playback URL:
 * the credential is in the path, so the element's own requests, which carry
 * no header, are authorised. The element does not say why it failed, so a
 * failure is reported as such and the caller asks the API whether access is over.
 */
import type { Player } from './player';

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
  const onError = () => finish(callbacks.onFailed);
  video.addEventListener('playing', onPlaying);
  video.addEventListener('waiting', onWaiting);
  video.addEventListener('ended', onEnded);
  video.addEventListener('error', onError);
  video.src = url;
  video.play().catch((error: unknown) => {
    // Autoplay with sound refused: start muted, the controls let the viewer unmute.
    if (error instanceof DOMException && error.name === 'NotAllowedError' && !video.muted) {
      video.muted = true;
      video.play().catch(() => undefined);
    }
  });

  function destroy(): void {
    if (done) return;
    done = true;
    clearTimeout(stallTimer);
    video.removeEventListener('playing', onPlaying);
    video.removeEventListener('waiting', onWaiting);
    video.removeEventListener('ended', onEnded);
    video.removeEventListener('error', onError);
    video.pause();
    video.removeAttribute('src');
    video.load();
  }

  return { destroy };
}
