/**
 * AirPlay while hls.js plays through Apple's ManagedMediaSource (Safari 17+,
 * iOS 17.1+). WebKit opens such a source only when the element either turns
 * remote playback off or offers an AirPlay-compatible alternative `<source>`;
 * hls.js takes the first way (`disableRemotePlayback = true`), which hides
 * AirPlay. This takes the second: after hls.js attached its blob `<source>`,
 * an HLS `<source>` with the session's header-less URL follows it and remote
 * playback is allowed again. When AirPlay starts, WebKit plays that source on
 * the receiver, and the caller switches to the long-lived URL, since a
 * receiver cannot refresh.
 */

const HLS_TYPE = 'application/vnd.apple.mpegurl';
/** The alternative's URL is short-lived: keep it current (the session refreshes it every 8 minutes). */
const SOURCE_UPDATE_MS = 30_000;

export interface RemotePlaybackOffer {
  stop(): void;
}

/** True when hls.js attached through ManagedMediaSource (a blob `<source>` child, not `src`). */
export function usesManagedMediaSource(video: HTMLVideoElement): boolean {
  return 'ManagedMediaSource' in self && !video.getAttribute('src') && !!video.querySelector('source[src^="blob:"]');
}

export function offerRemotePlayback(video: HTMLVideoElement, playbackUrl: () => string, onConnecting: () => void): RemotePlaybackOffer {
  const source = document.createElement('source');
  source.type = HLS_TYPE;
  source.src = playbackUrl();
  video.appendChild(source);
  video.disableRemotePlayback = false;
  const timer = setInterval(() => {
    if (source.src !== playbackUrl()) source.src = playbackUrl();
  }, SOURCE_UPDATE_MS);
  const remote = video.remote as RemotePlayback | undefined;
  const connecting = () => onConnecting();
  remote?.addEventListener('connecting', connecting);
  return {
    stop() {
      clearInterval(timer);
      remote?.removeEventListener('connecting', connecting);
      source.remove();
    },
  };
}
