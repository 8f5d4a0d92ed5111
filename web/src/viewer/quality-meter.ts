/**
 * What the viewer's playback was like, for the heartbeat's `qoe` (docs/api.md): time playing and
 * stalled, stalls, the start-up time, the rendition's bitrate, dropped frames and player errors.
 * The `<video>` element's own events say most of it, whichever player drives it (hls.js or the
 * element's native HLS); hls.js adds the rendition and its errors. Each heartbeat takes what was
 * measured since the one before.
 */
import type { QualityReportBody } from '../../../functions/domain/playback-quality';

type State = 'idle' | 'starting' | 'playing' | 'stalled';

/**
 * The bit rate a fragment plays at (kbps): its bytes over its duration, or undefined when either is
 * unknown. What the rendition really delivers, where a variant's declared `BANDWIDTH` is its peak (ours
 * announces the peak segment rounded up to 0.5 Mbit/s: 3.5 to 4 Mbit/s for a 2.5 Mbit/s stream).
 */
export function fragmentKbps(bytes: number, durationSeconds: number): number | undefined {
  if (!(bytes > 0) || !(durationSeconds > 0)) return undefined;
  return (bytes * 8) / 1000 / durationSeconds;
}

/** The names a media element's errors get (`MediaError.code`). */
const MEDIA_ERRORS = ['', 'MEDIA_ERR_ABORTED', 'MEDIA_ERR_NETWORK', 'MEDIA_ERR_DECODE', 'MEDIA_ERR_SRC_NOT_SUPPORTED'];

export class QualityMeter {
  readonly #now: () => number;
  #video: HTMLVideoElement | undefined;
  #state: State = 'idle';
  #since = 0;
  #startRequestedAt: number | undefined;
  /** Measured and not yet taken. */
  #playingMs = 0;
  #stalledMs = 0;
  #stalls = 0;
  #startupMs: number | undefined;
  /** The session's first frame was reported: start-up is measured once per session. */
  #started = false;
  #kbps: number | undefined;
  /** Σ kbps × ms of playing time, for the average rendition since the last take. */
  #kbpsMs = 0;
  #errors = 0;
  /** The errors since the last take, by name. */
  #errorTypes = new Map<string, number>();
  #lastFatal: string | undefined;
  #droppedSeen = 0;
  readonly #listeners: [string, () => void][];

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#listeners = [
      ['playing', () => this.#enter('playing')],
      ['waiting', () => this.#waiting()],
      ['pause', () => this.#halt()],
      ['seeking', () => this.#halt()],
      ['ended', () => this.#halt()],
      ['error', () => this.#mediaError()],
    ];
  }

  /** Follows `video` (one element for the whole viewing). */
  attach(video: HTMLVideoElement): void {
    this.detach();
    this.#video = video;
    for (const [name, listener] of this.#listeners) video.addEventListener(name, listener);
  }

  detach(): void {
    this.#enter('idle');
    for (const [name, listener] of this.#listeners) this.#video?.removeEventListener(name, listener);
    this.#video = undefined;
  }

  /** A player starts loading the stream: until its first frame, time is start-up, not playing. */
  starting(): void {
    this.#enter('idle');
    if (!this.#started) {
      this.#startRequestedAt = this.#now();
      this.#state = 'starting';
    }
  }

  /** The rendition now playing, as its fragments measure (`fragmentKbps` of the fragment entering playback). */
  rendition(kbps: number): void {
    if (!Number.isFinite(kbps) || kbps <= 0) return;
    this.#account();
    this.#kbps = kbps;
  }

  /** A player error; a fatal one is named in the next report. Not the stream being absent, nor access refused: those are not playback quality. */
  error(name: string, fatal: boolean): void {
    this.#errors += 1;
    this.#errorTypes.set(name, (this.#errorTypes.get(name) ?? 0) + 1);
    if (fatal) this.#lastFatal = name;
  }

  /** What was measured since the last take, or null when there is nothing to say. */
  take(): QualityReportBody | null {
    this.#account();
    const droppedFrames = this.#droppedFrames();
    const report: QualityReportBody = {
      playingMs: Math.round(this.#playingMs),
      stalledMs: Math.round(this.#stalledMs),
      stalls: this.#stalls,
      droppedFrames,
      errors: {
        count: this.#errors,
        ...(this.#lastFatal ? { lastFatal: this.#lastFatal } : {}),
        ...(this.#errors > 0 ? { types: Object.fromEntries(this.#errorTypes) } : {}),
      },
    };
    if (this.#startupMs !== undefined) report.startupMs = Math.round(this.#startupMs);
    if (this.#playingMs > 0 && this.#kbpsMs > 0) report.bitrateKbps = Math.round(this.#kbpsMs / this.#playingMs);
    const empty = !report.playingMs && !report.stalledMs && !report.stalls && !droppedFrames && !this.#errors && report.startupMs === undefined;
    this.#playingMs = this.#stalledMs = this.#kbpsMs = 0;
    this.#stalls = this.#errors = 0;
    this.#errorTypes = new Map();
    this.#startupMs = this.#lastFatal = undefined;
    return empty ? null : report;
  }

  /** A report that could not be sent goes into the next one. */
  giveBack(report: QualityReportBody): void {
    this.#playingMs += report.playingMs ?? 0;
    this.#stalledMs += report.stalledMs ?? 0;
    this.#stalls += report.stalls ?? 0;
    this.#errors += report.errors?.count ?? 0;
    for (const [name, count] of Object.entries(report.errors?.types ?? {})) this.#errorTypes.set(name, (this.#errorTypes.get(name) ?? 0) + count);
    this.#lastFatal ??= report.errors?.lastFatal;
    this.#startupMs ??= report.startupMs;
    if (report.bitrateKbps) this.#kbpsMs += report.bitrateKbps * (report.playingMs ?? 0);
    this.#droppedSeen -= report.droppedFrames ?? 0;
  }

  /** Adds the time since the last change of state to where it belongs. */
  #account(): void {
    const now = this.#now();
    const elapsed = now - this.#since;
    if (this.#state === 'playing') {
      this.#playingMs += elapsed;
      if (this.#kbps !== undefined) this.#kbpsMs += this.#kbps * elapsed;
    } else if (this.#state === 'stalled') this.#stalledMs += elapsed;
    this.#since = now;
  }

  #enter(state: State): void {
    this.#account();
    if (state === 'playing' && this.#state === 'starting' && this.#startRequestedAt !== undefined) {
      this.#startupMs = this.#now() - this.#startRequestedAt;
      this.#started = true;
    }
    // A stall ends with the next frame, or when the viewer pauses or seeks.
    this.#state = state;
  }

  /** Paused, seeking or ended: neither playing nor stalled. A player's own seek to the live edge before its first frame is still start-up. */
  #halt(): void {
    if (this.#state !== 'starting') this.#enter('idle');
  }

  #waiting(): void {
    // Waiting before the first frame is start-up; after a seek or a pause, not a stall either.
    if (this.#state !== 'playing' || this.#video?.seeking) return;
    this.#enter('stalled');
    this.#stalls += 1;
  }

  #mediaError(): void {
    const code = this.#video?.error?.code ?? 0;
    this.error(MEDIA_ERRORS[code] || 'MEDIA_ERR_UNKNOWN', true);
  }

  /** Frames dropped since the last take: the element's count grows with its source and starts over with a new one. */
  #droppedFrames(): number {
    const total = this.#video?.getVideoPlaybackQuality?.().droppedVideoFrames ?? 0;
    const dropped = total >= this.#droppedSeen ? total - this.#droppedSeen : total;
    this.#droppedSeen = total;
    return Math.max(0, dropped);
  }
}
