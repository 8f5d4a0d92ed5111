/** Starts a video element, muted if autoplay with sound is refused (the controls let the viewer unmute). */
export function playWithAutoplayFallback(video: HTMLVideoElement): void {
  video.play().catch((error: unknown) => {
    if (error instanceof DOMException && error.name === 'NotAllowedError' && !video.muted) {
      video.muted = true;
      video.play().catch(() => undefined);
    }
  });
}
