import { KeyframeJudge, type Verdict } from '../video/keyframe-judge';
import { flvTagTime, flvVideoFrame } from '../video/keyframe-meter';
import type { Packaging, PackagingOptions } from './ffmpeg-args';
import type { RunChain } from './run-chain';
import type { MarkPattern } from '../../../recording/watermark-pattern';
import { flvSequenceHeader } from '../video/sequence-header-watch';
import { avcPictureSize, type PictureSize } from '../video/picture-size';

/** Re-encoding bit rate when the publisher declares none and there is nothing to measure it on. */
const FALLBACK_VIDEO_KBPS = 2_500;
/** A watermarked part's picture size when neither the sequence header nor the metadata tells (the picture is scaled to it). */
const FALLBACK_PICTURE: PictureSize = { width: 1280, height: 720 };
/** A watermarked part held this long without a video frame has nothing to mark: it is copied. */
const WATERMARK_NO_VIDEO_MS = 5_000;

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
  /** The publish is watermarked (the publish check's answer): every rendition is encoded as A and B. */
  watermark?: MarkPattern;
  /** The picture size the publisher's metadata declares, if any. */
  declaredSize?: () => PictureSize | undefined;
}): PartPackaging {
  if (deps.watermark) return packageWatermarkedPart({ ...deps, watermark: deps.watermark });
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

/**
 * A watermarked part: always transcoded (copy becomes a re-encode at the publisher's bit rate, a
 * ladder keeps its rungs), A and B of every rendition. The pattern frames need each rendition's
 * exact size, so the tags are held until the first video frame: the size is the AVC sequence
 * header's (else the metadata's, else 1280×720; the picture is scaled to it either way). A part with
 * no video frame for 5 s is copied: there is no picture to mark.
 */
function packageWatermarkedPart(deps: Parameters<typeof packagePart>[0] & { watermark: MarkPattern }): PartPackaging {
  const { id, runs, options, watermark } = deps;
  let held: Buffer[] | undefined = [];
  let size: PictureSize | undefined;
  let firstMs: number | undefined;

  const start = (packaging: Packaging) => {
    runs.begin(id, packaging);
    runs.write(held!);
    held = undefined;
  };
  const hold = (tag: Buffer): void => {
    held!.push(tag);
    if (flvSequenceHeader(tag) === 'video') size = avcPictureSize(tag) ?? size;
    const timeMs = flvTagTime(tag);
    // Audio's clock: how long the part has gone without a picture.
    if (timeMs !== undefined && tag[0] === 8) firstMs ??= timeMs;
    if (flvVideoFrame(tag)) {
      const picture = size ?? deps.declaredSize?.() ?? FALLBACK_PICTURE;
      start(watermarkPackaging(watermark, picture, options, deps.declaredVideoKbps() || FALLBACK_VIDEO_KBPS));
    } else if (firstMs !== undefined && timeMs !== undefined && timeMs - firstMs > WATERMARK_NO_VIDEO_MS) {
      start({ kind: 'copy' });
    }
  };
  for (const tag of deps.first ?? []) if (held) hold(tag);

  return {
    tag: (buffer) => (held ? hold(buffer) : runs.write([buffer])),
    end(ownsShow) {
      if (held && held.length > 0) start({ kind: 'copy' });
      held = undefined;
      return runs.endCurrent(ownsShow);
    },
    abandon() {
      held = undefined;
    },
  };
}

/** The renditions of a watermarked part at exact, even sizes: the publisher's picture, or each ladder rung at its aspect ratio. */
export function watermarkPackaging(pattern: MarkPattern, picture: PictureSize, options: PackagingOptions, videoKbps: number): Extract<Packaging, { kind: 'watermark' }> {
  const even = (n: number) => Math.max(2, 2 * Math.floor(n / 2));
  if (options.ladder.length === 0) {
    return { kind: 'watermark', pattern, ladder: false, renditions: [{ width: even(picture.width), height: even(picture.height), videoKbps: Math.round(videoKbps) }] };
  }
  const renditions = options.ladder.map((r) => ({ ...r, width: Math.max(2, 2 * Math.round((r.height * picture.width) / picture.height / 2)) }));
  return { kind: 'watermark', pattern, ladder: true, renditions };
}
