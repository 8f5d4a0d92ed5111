/**
 * Runs the recovery policy (`recovery-policy.ts`) on a video element: takes
 * its steps (a reload after its wait), watches whether frames move again, and
 * checks after each step that they did. A pause by the viewer is not a failure.
 */
import { RecoveryPolicy, type RecoveryStep } from './recovery-policy';

export interface RecoveryHooks {
  /** Do the step now (a reload's wait is over). */
  apply(step: RecoveryStep): void;
  /** A step was taken: the next try is `retryInMs` away (0: now), for the viewer to be told. */
  onRecovering(retryInMs: number): void;
}

export class Recovery {
  readonly #video: HTMLVideoElement;
  readonly #hooks: RecoveryHooks;
  readonly #policy = new RecoveryPolicy();
  #checkTimer: ReturnType<typeof setTimeout> | undefined;
  #reloadTimer: ReturnType<typeof setTimeout> | undefined;
  #pending: RecoveryStep | undefined;
  /**
   * The viewer paused: a `pause` event while the element has no error (Chromium pauses the element on a
   * decode error, after setting it; re-attaching a source stops it without one).
   */
  #viewerPaused = false;
  #lastTime = 0;
  readonly #listeners: [string, () => void][] = [
    ['timeupdate', () => this.#timeUpdate()],
    ['waiting', () => this.#stopped()],
    ['pause', () => (this.#viewerPaused = this.#video.error === null)],
    ['play', () => (this.#viewerPaused = false)],
  ];

  constructor(video: HTMLVideoElement, hooks: RecoveryHooks) {
    this.#video = video;
    this.#hooks = hooks;
    for (const [name, listener] of this.#listeners) video.addEventListener(name, listener);
  }

  /** True while the viewer has not paused: a player resumes after re-attaching its source. */
  get wantsPlaying(): boolean {
    return !this.#viewerPaused;
  }

  /** Playback failed: the next step. */
  failed(): void {
    this.#take(this.#policy.failed(Date.now()));
  }

  /** A failure the player recovers from by itself: checked later that frames move again. */
  noticed(): void {
    this.#policy.noticed(Date.now());
    this.#arm();
  }

  /** The pending reload now ("Try now"), not after its wait. */
  retryNow(): void {
    if (!this.#pending) return;
    clearTimeout(this.#reloadTimer);
    this.#run();
  }

  stop(): void {
    clearTimeout(this.#checkTimer);
    clearTimeout(this.#reloadTimer);
    for (const [name, listener] of this.#listeners) this.#video.removeEventListener(name, listener);
  }

  #take(step: RecoveryStep): void {
    clearTimeout(this.#reloadTimer);
    this.#pending = step;
    const wait = step.kind === 'reload' ? step.afterMs : 0;
    this.#hooks.onRecovering(wait);
    if (wait > 0) this.#reloadTimer = setTimeout(() => this.#run(), wait);
    else this.#run();
    this.#arm();
  }

  #run(): void {
    const step = this.#pending;
    this.#pending = undefined;
    if (step) this.#hooks.apply(step);
  }

  #arm(): void {
    clearTimeout(this.#checkTimer);
    const at = this.#policy.checkAt;
    if (at !== null) this.#checkTimer = setTimeout(() => this.#check(), Math.max(0, at - Date.now()));
  }

  #check(): void {
    // Paused by the viewer, or at the end of a recording: nothing is meant to move.
    if (this.#viewerPaused || this.#video.ended) return;
    const step = this.#policy.check(Date.now());
    if (step) this.#take(step);
    else this.#arm();
  }

  #timeUpdate(): void {
    const time = this.#video.currentTime;
    // A reload starts a new timeline, so any change counts.
    const moved = time !== this.#lastTime && !this.#video.paused && !this.#video.seeking;
    this.#lastTime = time;
    if (moved) this.#policy.played(Date.now());
  }

  #stopped(): void {
    this.#policy.stopped(Date.now());
    this.#arm();
  }
}
