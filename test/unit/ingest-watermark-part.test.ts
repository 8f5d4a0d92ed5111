import { describe, expect, it } from 'vitest';
import { packagePart, watermarkPackaging } from '../../ingest-container/src/hls/part-packaging';
import type { Packaging } from '../../ingest-container/src/hls/ffmpeg-args';
import type { RunChain } from '../../ingest-container/src/hls/run-chain';
import { avcPictureSize } from '../../ingest-container/src/video/picture-size';
import { patternFromSigns } from '../../recording/watermark-pattern';

/** The AVC sequence header tag x264 wrote for an 854 × 480 picture (coded 864 wide, cropped). */
const SEQUENCE_HEADER_854x480 = Buffer.from(
  '0900003200000000000000170000000001f4001effe1001967f4001e919680d83de2fc0440000003004000000c83c58ba801000568ce0f1920fff8f8000000003d',
  'hex',
);
const pattern = patternFromSigns('+-+-+-+-+-+-')!;

/** An FLV tag of `type` at `ms` with this body. */
function tag(type: 8 | 9, ms: number, body: number[]): Buffer {
  const buffer = Buffer.alloc(11 + body.length + 4);
  buffer[0] = type;
  buffer.writeUIntBE(body.length, 1, 3);
  buffer.writeUIntBE(ms & 0xffffff, 4, 3);
  buffer[7] = ms >>> 24;
  Buffer.from(body).copy(buffer, 11);
  return buffer;
}
const keyframe = (ms: number) => tag(9, ms, [0x17, 1, 0, 0, 0, 0, 0, 0, 1]);
const audio = (ms: number) => tag(8, ms, [0xaf, 1, 0x21]);

function chain() {
  const begun: Packaging[] = [];
  const written: Buffer[] = [];
  const runs: RunChain = { begin: (_id, packaging) => void begun.push(packaging), write: (buffers) => void written.push(...buffers), endCurrent: async () => undefined };
  return { runs, begun, written };
}
const deps = (runs: RunChain, extra: Partial<Parameters<typeof packagePart>[0]> = {}) => ({
  id: 'p1',
  runs,
  options: { segmentSeconds: 1, ladder: [] },
  preamble: () => [],
  declaredVideoKbps: () => 1_800,
  watermark: pattern,
  ...extra,
});

describe('a watermarked part\'s packaging', () => {
  it('reads the picture size from the AVC sequence header', () => {
    expect(avcPictureSize(SEQUENCE_HEADER_854x480)).toEqual({ width: 854, height: 480 });
    expect(avcPictureSize(keyframe(0))).toBeUndefined();
  });

  it('holds the tags until the first video frame, then transcodes at the sequence header\'s size (copy mode becomes a re-encode)', () => {
    const { runs, begun, written } = chain();
    const part = packagePart(deps(runs, { declaredSize: () => ({ width: 1920, height: 1080 }) }));
    part.tag(SEQUENCE_HEADER_854x480);
    part.tag(audio(0));
    expect(begun).toEqual([]);
    part.tag(keyframe(0));
    expect(begun).toEqual([{ kind: 'watermark', pattern, ladder: false, renditions: [{ width: 854, height: 480, videoKbps: 1_800 }] }]);
    expect(written).toHaveLength(3);
    part.tag(keyframe(40));
    expect(written).toHaveLength(4);
  });

  it('without a sequence header it knows, the metadata\'s size (made even)', () => {
    const { runs, begun } = chain();
    const part = packagePart(deps(runs, { declaredSize: () => ({ width: 853, height: 481 }) }));
    part.tag(keyframe(0));
    expect(begun[0]).toMatchObject({ renditions: [{ width: 852, height: 480 }] });
  });

  it('a part without a picture for 5 s is copied: nothing to mark', () => {
    const { runs, begun } = chain();
    const part = packagePart(deps(runs));
    for (let ms = 0; ms <= 5_000; ms += 1_000) part.tag(audio(ms));
    expect(begun).toEqual([]);
    part.tag(audio(5_100));
    expect(begun).toEqual([{ kind: 'copy' }]);
  });

  it('a ladder keeps its rungs, each at the picture\'s aspect ratio', () => {
    const ladder = [{ height: 720, videoKbps: 2_800 }, { height: 360, videoKbps: 800 }];
    expect(watermarkPackaging(pattern, { width: 1920, height: 1080 }, { segmentSeconds: 1, ladder }, 6_000)).toEqual({
      kind: 'watermark',
      pattern,
      ladder: true,
      renditions: [{ height: 720, width: 1280, videoKbps: 2_800 }, { height: 360, width: 640, videoKbps: 800 }],
    });
    expect(watermarkPackaging(pattern, { width: 854, height: 480 }, { segmentSeconds: 1, ladder }, 1).renditions.map((r) => r.width)).toEqual([1282, 640]);
  });
});
