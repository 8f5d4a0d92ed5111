import { KeyframeJudge, type Verdict } from '../video/keyframe-judge';
import { flvTagTime, flvVideoFrame } from '../video/keyframe-meter';
import type { PackagingOptions } from './ffmpeg-args';
import type { RunChain } from './run-chain';

/** Re-encoding bit rate when the publisher declares none and there is nothing to measure it on. */
const FALLBACK_VIDEO_KBPS = 2_500;

/** The packaging of one part of a publish, fed its tags in order. */
export interface PartPackaging {
  tag(buffer: Buffer): void;
  /** Ends the part's run (copying what is still held); resolves once it and the runs before it are stored. */
  end(ownsShow?: () => boolean): Promise<void>;
  /** Packaging failed: what is held is dropped, and `end` starts no run for it. */
  abandon(): void;
}

/**
 * One part: from the publish start, or from a keyframe where the codec
 * settings changed (`preamble`: the FLV header, metadata and the sequence
 * headers it decodes with). Its own keyframe judge decides, from its own
 * keyframes, whether to copy the video or re-encode it: the tags are held
 * until the first keyframes tell, then go to one ffmpeg that copies or one
 * that re-encodes with a keyframe every segment. A copied part whose
 * keyframes drift apart later switches to re-encoding at once: the copy ends
 * where it stands, and a new run (`<id>-reencoded`, a new part of the
 * recording), re-encoded from the last keyframe with the picture before the
 * switch cut off, follows it. With a ladder, or re-encoding off, there is no
 * judge: one run from the start.
 */
export function packagePart(deps: {
  id: string;
  runs: RunChain;
  options: PackagingOptions;
  /** What a run started mid-part begins with: the FLV header, metadata and the sequence headers in use. */
  preamble: () => Buffer[];
  /** The video bit rate the publisher declared (kbit/s), if any. */
  declaredVideoKbps: () => number | undefined;
  /** Tags this part begins with before its first tag (a new part's preamble); not judged. */
  first?: readonly Buffer[];
  /** Copy or re-encode as measured before this part (an encoder that was standby): no tags are held to judge. */
  verdict?: Verdict;
}): PartPackaging {
  const { id, runs, options, preamble, declaredVideoKbps } = deps;
  const first = deps.first ?? [];
  const judge = options.ladder.length === 0 && (options.reencode ?? 'auto') === 'auto' ? new KeyframeJudge(options.segmentSeconds, deps.verdict) : undefined;
  let held: Buffer[] | undefined = judge && !judge.verdict ? [...first] : undefined;
  /** Tags since the last keyframe, while copying under the judge: a switch re-encodes from there. */
  let gop: Buffer[] = [];
  // To re-encode at the bit rate the publisher sends.
  const sent = { videoBytes: 0, firstMs: undefined as number | undefined, lastMs: 0 };
  const videoKbps = () => {
    const declared = declaredVideoKbps();
    if (declared && declared > 0) return Math.round(declared);
    const spanMs = sent.lastMs - (sent.firstMs ?? sent.lastMs);
    return spanMs > 0 ? Math.round((sent.videoBytes * 8) / spanMs) : FALLBACK_VIDEO_KBPS;
  };

  if (!judge) {
    runs.begin(id, options.ladder.length > 0 ? { kind: 'ladder', ladder: options.ladder } : { kind: 'copy' });
    runs.write(first);
  } else if (judge.verdict) {
    runs.begin(id, judge.verdict === 'copy' ? { kind: 'copy' } : { kind: 'reencode', videoKbps: videoKbps() });
    runs.write(first);
  }

  function tag(buffer: Buffer): void {
    if (!judge) return runs.write([buffer]);
    const timeMs = flvTagTime(buffer);
    const frame = flvVideoFrame(buffer);
    if (frame) {
      sent.videoBytes += buffer.length;
      sent.firstMs ??= frame.dtsMs;
      sent.lastMs = frame.dtsMs;
    }
    const verdict = timeMs === undefined ? undefined : judge.tag(timeMs, frame?.keyframe);
    if (held) {
      held.push(buffer);
      if (!verdict) return;
      runs.begin(id, verdict === 'copy' ? { kind: 'copy' } : { kind: 'reencode', videoKbps: videoKbps() });
      runs.write(held);
      held = undefined;
      return;
    }
    if (verdict === 'reencode' && frame) {
      // The copy stops before this frame; the re-encode decodes from the last keyframe and keeps the picture from here.
      void runs.endCurrent();
      runs.begin(`${id}-reencoded`, { kind: 'reencode', videoKbps: videoKbps(), fromMs: frame.dtsMs });
      runs.write([...preamble(), ...gop.filter((tag) => flvVideoFrame(tag)), buffer]);
      gop = [];
      return;
    }
    if (judge.verdict === 'copy') {
      if (frame?.keyframe) gop = [];
      if (timeMs !== undefined) gop.push(buffer);
    }
    runs.write([buffer]);
  }

  return {
    tag,
    end(ownsShow) {
      // The part ended before its keyframes told: copy what there is.
      if (held && held.length > 0) {
        runs.begin(id, { kind: 'copy' });
        runs.write(held);
      }
      held = undefined;
      return runs.endCurrent(ownsShow);
    },
    abandon() {
      held = undefined;
    },
  };
}
