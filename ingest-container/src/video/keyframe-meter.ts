/**
 * Measures a publisher's keyframe interval and frame rate from its video
 * timestamps, for the event page: keyframes further apart than the segment
 * length cost the ingest a re-encode (or, copying, latency).
 */

/** Recent keyframe gaps considered; their longest is the reported interval (one long GOP is enough to hurt). */
const INTERVALS_KEPT = 5;
/** Frames within this window count towards the frame rate. */
const RATE_WINDOW_MS = 5_000;

export interface VideoReading {
  keyframeIntervalSeconds: number;
  frameRate: number;
}

export class KeyframeMeter {
  #lastKeyframeMs: number | undefined;
  /** The first gap is not the publisher's interval: OBS's first GOP is twice as long. */
  #firstGapSeen = false;
  readonly #intervalsMs: number[] = [];
  readonly #frameTimesMs: number[] = [];

  /** One coded video frame with its decode timestamp (ms); out-of-order or repeated stamps are ignored for gaps. */
  addFrame(dtsMs: number, keyframe: boolean): void {
    this.#frameTimesMs.push(dtsMs);
    while (this.#frameTimesMs.length > 2 && dtsMs - this.#frameTimesMs[0]! > RATE_WINDOW_MS) this.#frameTimesMs.shift();
    if (!keyframe) return;
    if (this.#lastKeyframeMs !== undefined && dtsMs > this.#lastKeyframeMs) {
      if (this.#firstGapSeen) this.#intervalsMs.push(dtsMs - this.#lastKeyframeMs);
      this.#firstGapSeen = true;
      if (this.#intervalsMs.length > INTERVALS_KEPT) this.#intervalsMs.shift();
    }
    this.#lastKeyframeMs = dtsMs;
  }

  /** Undefined until three keyframes have been seen. */
  reading(): VideoReading | undefined {
    if (this.#intervalsMs.length === 0) return undefined;
    const times = this.#frameTimesMs;
    const spanMs = times[times.length - 1]! - times[0]!;
    return {
      keyframeIntervalSeconds: Math.max(...this.#intervalsMs) / 1000,
      frameRate: spanMs > 0 ? ((times.length - 1) * 1000) / spanMs : 0,
    };
  }
}

/** A video tag of an FLV message (11-byte tag header, then the body), as node-media-server hands them to subscribers. */
export interface FlvVideoFrame {
  dtsMs: number;
  keyframe: boolean;
}

/**
 * The coded frame in an FLV tag, or undefined for anything else (audio,
 * metadata, the FLV file header, codec configuration, end-of-sequence).
 * Knows legacy AVC/HEVC tags and Enhanced RTMP's extended header.
 */
export function flvVideoFrame(tag: Buffer): FlvVideoFrame | undefined {
  if (tag.length < 13 || tag[0] !== 9) return undefined;
  const dtsMs = flvTagTime(tag)!;
  const first = tag[11]!;
  const frameType = (first >> 4) & 0x07;
  // 5: a video info/command frame, no picture.
  if (frameType === 5) return undefined;
  if (first & 0x80) {
    // Enhanced RTMP: packet type 1 (coded frames) or 3 (coded frames, no composition time).
    const packetType = first & 0x0f;
    if (packetType !== 1 && packetType !== 3) return undefined;
  } else {
    const codecId = first & 0x0f;
    // AVC and HEVC (12, as OBS and ffmpeg sent it before Enhanced RTMP): packet type 1 is a coded frame.
    if ((codecId === 7 || codecId === 12) && tag[12] !== 1) return undefined;
  }
  return { dtsMs, keyframe: frameType === 1 };
}

/** The timestamp (ms) of an FLV audio, video or data tag; undefined for anything else (the FLV file header). */
export function flvTagTime(tag: Buffer): number | undefined {
  if (tag.length < 11 || (tag[0] !== 8 && tag[0] !== 9 && tag[0] !== 18)) return undefined;
  return ((tag[7]! << 24) | (tag[4]! << 16) | (tag[5]! << 8) | tag[6]!) >>> 0;
}
