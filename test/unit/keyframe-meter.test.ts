import { describe, expect, it } from 'vitest';
import { KeyframeJudge, type Verdict } from '../../ingest-container/src/video/keyframe-judge';
import { flvVideoFrame, KeyframeMeter } from '../../ingest-container/src/video/keyframe-meter';
import { flvTag } from '../support/flv-tags';

const tag = flvTag;

describe('flvVideoFrame', () => {
  it('reads AVC keyframes and inter frames with their timestamps, skipping configuration and other tags', () => {
    expect(flvVideoFrame(tag(9, 40, [0x17, 1, 0, 0, 0]))).toEqual({ dtsMs: 40, keyframe: true });
    expect(flvVideoFrame(tag(9, 0x01_00_00_10, [0x27, 1, 0, 0, 0]))).toEqual({ dtsMs: 0x01_00_00_10, keyframe: false });
    expect(flvVideoFrame(tag(9, 0, [0x17, 0, 0, 0, 0]))).toBeUndefined(); // sequence header
    expect(flvVideoFrame(tag(8, 0, [0xaf, 1, 0]))).toBeUndefined(); // audio
    expect(flvVideoFrame(Buffer.from('FLV\x01\x05\x00\x00\x00\x09\x00\x00\x00\x00', 'latin1'))).toBeUndefined();
  });

  it('reads Enhanced RTMP coded frames and skips its sequence start', () => {
    // 0x80 ex-header | frame type 1 << 4 | packet type; then the FourCC.
    expect(flvVideoFrame(tag(9, 100, [0x91, 0x68, 0x76, 0x63, 0x31]))).toEqual({ dtsMs: 100, keyframe: true });
    expect(flvVideoFrame(tag(9, 100, [0xa3, 0x68, 0x76, 0x63, 0x31]))).toEqual({ dtsMs: 100, keyframe: false });
    expect(flvVideoFrame(tag(9, 0, [0x90, 0x68, 0x76, 0x63, 0x31]))).toBeUndefined();
  });
});

describe('KeyframeMeter', () => {
  const feed = (meter: KeyframeMeter, fps: number, gop: number, frames: number, from = 0) => {
    for (let n = from; n < from + frames; n++) meter.addFrame(Math.round((n * 1000) / fps), n % gop === 0);
  };

  it('has no reading before the third keyframe: the first gap is not the interval (OBS sends a longer first GOP)', () => {
    const meter = new KeyframeMeter();
    feed(meter, 25, 50, 100);
    expect(meter.reading()).toBeUndefined();
    meter.addFrame(4000, true);
    expect(meter.reading()!.keyframeIntervalSeconds).toBe(2);
  });

  it('does not count the first gap', () => {
    const meter = new KeyframeMeter();
    for (const [ms, key] of [[0, true], [2000, true], [3000, true], [4000, true]] as const) meter.addFrame(ms, key);
    expect(meter.reading()!.keyframeIntervalSeconds).toBe(1);
  });

  it('measures the keyframe interval and the frame rate', () => {
    const meter = new KeyframeMeter();
    feed(meter, 30, 250, 751);
    expect(meter.reading()!.keyframeIntervalSeconds).toBeCloseTo(8.33, 2);
    expect(meter.reading()!.frameRate).toBeCloseTo(30, 0);
  });

  it('reports the longest of the recent gaps, and forgets old ones', () => {
    const meter = new KeyframeMeter();
    feed(meter, 25, 100, 201); // 4 s gaps
    feed(meter, 25, 25, 25 * 5, 201); // then 1 s keyframes: 5 gaps, the last one at frame 325
    expect(meter.reading()!.keyframeIntervalSeconds).toBeCloseTo(1, 1);
  });
});

describe('KeyframeJudge', () => {
  /** Video frames at `fps` with keyframes at the given frame numbers, audio every 23 ms between them; the verdicts in order, with the frame that brought each. */
  const judge = (segmentSeconds: number, fps: number, frames: number, keyframe: (n: number) => boolean) => {
    const j = new KeyframeJudge(segmentSeconds);
    const verdicts: { verdict: Verdict; atMs: number }[] = [];
    for (let n = 0; n < frames; n++) {
      const ms = Math.round((n * 1000) / fps);
      const video = j.tag(ms, keyframe(n));
      if (video) verdicts.push({ verdict: video, atMs: ms });
      const audio = j.tag(ms + 11, undefined);
      if (audio) verdicts.push({ verdict: audio, atMs: ms + 11 });
    }
    return verdicts;
  };

  it('copies at the first keyframe a segment after the first', () => {
    expect(judge(1, 30, 300, (n) => n % 30 === 0)).toEqual([{ verdict: 'copy', atMs: 1000 }]);
  });

  it('re-encodes OBS at its defaults (keyframes every 250 frames) as soon as the first gap passes two segments', () => {
    expect(judge(1, 30, 300, (n) => n % 250 === 0)).toEqual([{ verdict: 'reencode', atMs: 2433 }]);
  });

  it('copies a first GOP of 2 s followed by 1 s ones, deciding at the keyframe after it', () => {
    expect(judge(1, 30, 300, (n) => n === 0 || (n >= 60 && n % 30 === 0))).toEqual([{ verdict: 'copy', atMs: 3000 }]);
  });

  it('re-encodes keyframes every 2 s once the second gap is too long, without waiting for its keyframe', () => {
    expect(judge(1, 30, 300, (n) => n % 60 === 0)).toEqual([{ verdict: 'reencode', atMs: 3233 }]);
  });

  it('turns a copy to re-encoding when a later gap grows too long, and stays', () => {
    const verdicts = judge(1, 30, 600, (n) => (n < 150 ? n % 30 === 0 : n === 150 || n >= 450));
    expect(verdicts).toEqual([{ verdict: 'copy', atMs: 1000 }, { verdict: 'reencode', atMs: 6233 }]);
  });

  it('keeps 2 s segments copied at keyframes every 2 s', () => {
    expect(judge(2, 30, 600, (n) => n % 60 === 0)).toEqual([{ verdict: 'copy', atMs: 2000 }]);
  });

  it('copies a stream without keyframes (audio only) once two segments have passed', () => {
    const j = new KeyframeJudge(1);
    const verdicts = Array.from({ length: 200 }, (_, n) => j.tag(n * 23, undefined)).filter(Boolean);
    expect(verdicts).toEqual(['copy']);
    expect(j.verdict).toBe('copy');
  });
});
