/**
 * What a player does when the stream stops decoding (a media error, the
 * element's `MEDIA_ERR_DECODE`, or frames that did not move again after a
 * recovery): hls.js's media recovery first, then the same with the audio
 * codec swapped, then fresh loads of the source after a growing wait, capped,
 * so a stream that stays broken costs one reload every 30 s, not a spin.
 * Frames moving for a few seconds end the recovery; a later failure starts
 * over. Pure: times in milliseconds, given by the caller. Unit-tested in
 * `test/unit/web-recovery-policy.test.ts`.
 */

/** What to do now. `reload`: a fresh load of the source once `afterMs` have passed. */
export type RecoveryStep =
  | { kind: 'recover-media' }
  | { kind: 'swap-audio-and-recover' }
  | { kind: 'reload'; afterMs: number };

/** Waits before the 1st, 2nd, … fresh load; the last one repeats. */
export const RELOAD_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000] as const;
/** Frames moving this long after a step: the stream plays again, and the next failure starts over. */
export const HEALTHY_AFTER_MS = 5_000;
/**
 * A step that has not got frames moving this long after it took effect failed
 * too: a recovery can leave the element stuck without another error.
 */
export const STEP_CHECK_MS = 8_000;

export class RecoveryPolicy {
  /** Steps taken since playback was last healthy. */
  #steps = 0;
  /** When the last step takes effect (a reload's wait included). */
  #stepAt = 0;
  /** When frames started moving after the last step; undefined while they have not. */
  #movingSince: number | undefined;
  /** A failure the player handles itself is being watched: no step yet. */
  #watching = false;

  /** Between a failure and healthy playback. */
  get recovering(): boolean {
    return this.#steps > 0 || this.#watching;
  }

  /**
   * A failure the player recovers from by itself (hls.js's own handling of a
   * non-fatal media error) at `nowMs`: no step, but if frames have not moved
   * `STEP_CHECK_MS` later, `check` takes the first.
   */
  noticed(nowMs: number): void {
    if (this.recovering) return;
    this.#watching = true;
    this.#stepAt = nowMs;
    this.#movingSince = undefined;
  }

  /** Playback failed at `nowMs`: the next step. */
  failed(nowMs: number): RecoveryStep {
    this.#steps += 1;
    this.#watching = false;
    this.#movingSince = undefined;
    const step = this.#stepNumber(this.#steps);
    this.#stepAt = nowMs + (step.kind === 'reload' ? step.afterMs : 0);
    return step;
  }

  #stepNumber(n: number): RecoveryStep {
    if (n === 1) return { kind: 'recover-media' };
    if (n === 2) return { kind: 'swap-audio-and-recover' };
    return { kind: 'reload', afterMs: RELOAD_DELAYS_MS[Math.min(n - 2, RELOAD_DELAYS_MS.length) - 1]! };
  }

  /** When to call `check` (ms from the epoch of `nowMs`), or null while not recovering. */
  get checkAt(): number | null {
    return this.recovering ? this.#stepAt + STEP_CHECK_MS : null;
  }

  /**
   * Frames moved at `nowMs`: true when that ends the recovery (they have moved
   * for `HEALTHY_AFTER_MS` since the last step took effect).
   */
  played(nowMs: number): boolean {
    if (!this.recovering) return false;
    this.#movingSince ??= nowMs;
    if (nowMs - this.#movingSince < HEALTHY_AFTER_MS) return false;
    this.#steps = 0;
    this.#watching = false;
    this.#movingSince = undefined;
    return true;
  }

  /** Frames stopped at `nowMs` (not a pause by the viewer) before the recovery ended: checked again `STEP_CHECK_MS` later. */
  stopped(nowMs: number): void {
    if (!this.recovering || this.#movingSince === undefined) return;
    this.#movingSince = undefined;
    this.#stepAt = nowMs;
  }

  /**
   * The check after a step, at `nowMs`: the next step if frames have not moved
   * since the last one took effect, else null (also when not yet due).
   */
  check(nowMs: number): RecoveryStep | null {
    const due = this.checkAt;
    if (due === null || nowMs < due || this.#movingSince !== undefined) return null;
    return this.failed(nowMs);
  }
}
