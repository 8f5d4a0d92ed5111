import { describe, expect, it } from 'vitest';
import { flvVideoFrame, KeyframeMeter } from '../../ingest-container/src/video/keyframe-meter';

/** An FLV tag as node-media-server hands it to subscribers: 11-byte header, body, 4-byte size. */
function tag(type: number, dtsMs: number, body: number[]): Buffer {
  const buffer = Buffer.alloc(11 + body.length + 4);
  buffer[0] = type;
  buffer.writeUIntBE(body.length, 1, 3);
  buffer[4] = (dtsMs >> 16) & 0xff;
  buffer[5] = (dtsMs >> 8) & 0xff;
  buffer[6] = dtsMs & 0xff;
  buffer[7] = (dtsMs >> 24) & 0xff;
  Buffer.from(body).copy(buffer, 11);
  return buffer;
}

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

  it('has no reading before the second keyframe', () => {
    const meter = new KeyframeMeter();
    feed(meter, 25, 50, 49);
    expect(meter.reading()).toBeUndefined();
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
