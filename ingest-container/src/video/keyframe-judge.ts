/**
 * Whether a publisher's video can be copied into segments of the configured
 * length or must be re-encoded. Copied video can only be cut at its
 * keyframes, so keyframes further apart make longer segments, and players
 * keep a few segments behind the live edge: OBS at its defaults (x264,
 * a keyframe every 250 frames) would put viewers about 20 s behind.
 */

/** Keyframes this much further apart than a segment are too far (timestamps jitter by a frame or two). */
export const KEYFRAME_TOLERANCE = 1.2;
/** A publisher's first GOP may be this many segments long: OBS's first is twice its keyframe interval. */
const FIRST_GOP_SEGMENTS = 2;

export const keyframesTooFar = (intervalSeconds: number, segmentSeconds: number) => intervalSeconds > segmentSeconds * KEYFRAME_TOLERANCE;

export type Verdict = 'copy' | 'reencode';

/**
 * Decides from the frames as they arrive, without waiting for a keyframe
 * that may be seconds away: the time since the last one says when it is late.
 * - The first gap may be up to two segments long; the gap after it decides then.
 * - `copy` at the first gap short enough; `reencode` as soon as one is too long.
 * - After `copy`, a gap growing too long turns to `reencode` (for the rest of
 *   the publish: a publisher whose keyframes drift once will again).
 * - No keyframe at all (audio only, or a broken encoder): `copy`, nothing to fix.
 */
export class KeyframeJudge {
  readonly #limitMs: number;
  #verdict: Verdict | undefined;
  #firstMs: number | undefined;
  #lastKeyframeMs: number | undefined;
  #gaps = 0;

  /** `verdict`: already known from this encoder's frames before (a standby going on air). */
  constructor(segmentSeconds: number, verdict?: Verdict) {
    this.#limitMs = segmentSeconds * KEYFRAME_TOLERANCE * 1000;
    this.#verdict = verdict;
  }

  get verdict(): Verdict | undefined {
    return this.#verdict;
  }

  /** Every tag of the stream in order: `keyframe` for video frames (true or false), undefined for audio and data. Returns a new verdict. */
  tag(timeMs: number, keyframe: boolean | undefined): Verdict | undefined {
    if (this.#verdict === 'reencode') return undefined;
    this.#firstMs ??= timeMs;
    const last = this.#lastKeyframeMs;
    if (last === undefined) {
      if (keyframe) this.#lastKeyframeMs = timeMs;
      else if (this.#verdict === undefined && timeMs - this.#firstMs > FIRST_GOP_SEGMENTS * this.#limitMs) return this.#decide('copy');
      return undefined;
    }
    if (keyframe === undefined) return undefined;
    const limit = this.#gaps === 0 ? FIRST_GOP_SEGMENTS * this.#limitMs : this.#limitMs;
    if (timeMs - last > limit) return this.#decide('reencode');
    if (!keyframe || timeMs <= last) return undefined;
    const gap = timeMs - last;
    this.#lastKeyframeMs = timeMs;
    this.#gaps++;
    if (this.#verdict === undefined && gap <= this.#limitMs) return this.#decide('copy');
    return undefined;
  }

  #decide(verdict: Verdict): Verdict {
    this.#verdict = verdict;
    return verdict;
  }
}
