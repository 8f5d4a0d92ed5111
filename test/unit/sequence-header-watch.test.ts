import { describe, expect, it } from 'vitest';
import { flvSequenceHeader, SequenceHeaderWatch } from '../../ingest-container/src/video/sequence-header-watch';
import { flvTag } from '../support/flv-tags';

const tag = flvTag;

// AVC sequence header (0x17 0x00 + composition time + avcC), with SPS bytes standing for an encoder's settings.
const avcHeader = (dtsMs: number, sps: number[]) => tag(9, dtsMs, [0x17, 0, 0, 0, 0, 1, 0x64, 0, 0x1f, 0xff, 0xe1, 0, sps.length, ...sps]);
const aacHeader = (dtsMs: number, config: number[]) => tag(8, dtsMs, [0xaf, 0, ...config]);
const keyframe = (dtsMs: number) => tag(9, dtsMs, [0x17, 1, 0, 0, 0, 0xaa]);
const interFrame = (dtsMs: number) => tag(9, dtsMs, [0x27, 1, 0, 0, 0, 0xbb]);
const audioFrame = (dtsMs: number) => tag(8, dtsMs, [0xaf, 1, 0xcc]);
const metadata = (dtsMs: number) => tag(18, dtsMs, [2, 0, 10, ...Buffer.from('onMetaData')]);

const veryfast = [0x67, 0x64, 0x00, 0x1f, 0xac, 0xd9];
const ultrafast = [0x67, 0x42, 0xc0, 0x1e, 0x95, 0xa0];
const stereo = [0x12, 0x10];
const mono = [0x12, 0x08];

describe('flvSequenceHeader', () => {
  it('tells AVC/HEVC and AAC sequence headers, legacy and Enhanced RTMP, from frames and other tags', () => {
    expect(flvSequenceHeader(avcHeader(0, veryfast))).toBe('video');
    expect(flvSequenceHeader(tag(9, 0, [0x1c, 0, 0, 0, 0]))).toBe('video'); // HEVC, codec id 12
    expect(flvSequenceHeader(tag(9, 0, [0x90, 0x68, 0x76, 0x63, 0x31]))).toBe('video'); // Enhanced: sequence start
    expect(flvSequenceHeader(aacHeader(0, stereo))).toBe('audio');
    expect(flvSequenceHeader(tag(8, 0, [0x90, 0x6d, 0x70, 0x34, 0x61]))).toBe('audio'); // Enhanced audio: sequence start
    expect(flvSequenceHeader(keyframe(0))).toBeUndefined();
    expect(flvSequenceHeader(tag(9, 0, [0x91, 0x68, 0x76, 0x63, 0x31]))).toBeUndefined(); // Enhanced coded frame
    expect(flvSequenceHeader(tag(9, 0, [0x50, 0]))).toBeUndefined(); // video command frame
    expect(flvSequenceHeader(audioFrame(0))).toBeUndefined();
    expect(flvSequenceHeader(tag(8, 0, [0x2f, 0, 0]))).toBeUndefined(); // MP3: no configuration
    expect(flvSequenceHeader(metadata(0))).toBeUndefined();
    expect(flvSequenceHeader(Buffer.from('FLV\x01\x05\x00\x00\x00\x09\x00\x00\x00\x00', 'latin1'))).toBeUndefined();
  });
});

describe('SequenceHeaderWatch', () => {
  const start = (watch: SequenceHeaderWatch) =>
    [metadata(0), aacHeader(0, stereo), avcHeader(0, veryfast), keyframe(0), audioFrame(10), interFrame(40)].map((t) => watch.tag(t));

  it('passes a publish and a resume with the same settings (the same headers at other timestamps): no new part', () => {
    const watch = new SequenceHeaderWatch();
    expect(start(watch)).toEqual(['pass', 'pass', 'pass', 'pass', 'pass', 'pass']);
    expect([metadata(0), aacHeader(0, stereo), avcHeader(5000, veryfast), keyframe(5000), interFrame(5040)].map((t) => watch.tag(t))).toEqual([
      'pass', 'pass', 'pass', 'pass', 'pass',
    ]);
  });

  it('a new video configuration: a new part at the next keyframe, what comes between dropped', () => {
    const watch = new SequenceHeaderWatch();
    start(watch);
    const resumed = [metadata(0), aacHeader(0, stereo), avcHeader(0, ultrafast), audioFrame(5000), keyframe(5000), interFrame(5040), keyframe(6000)];
    expect(resumed.map((t) => watch.tag(t))).toEqual(['pass', 'pass', 'drop', 'drop', 'new-part', 'pass', 'pass']);
    // The new part begins with the headers now in use.
    expect(watch.headers()).toEqual([resumed[1], resumed[2]]);
  });

  it('a new audio configuration alone starts a new part too, at the next keyframe', () => {
    const watch = new SequenceHeaderWatch();
    start(watch);
    expect([aacHeader(0, mono), avcHeader(0, veryfast), interFrame(80), audioFrame(90), keyframe(120)].map((t) => watch.tag(t))).toEqual([
      'drop', 'drop', 'drop', 'drop', 'new-part',
    ]);
  });

  it('mid-stream changes count as often as they come, and a change back counts again', () => {
    const watch = new SequenceHeaderWatch();
    start(watch);
    expect([avcHeader(1000, ultrafast), keyframe(1000)].map((t) => watch.tag(t))).toEqual(['drop', 'new-part']);
    expect([avcHeader(2000, ultrafast), keyframe(2000)].map((t) => watch.tag(t))).toEqual(['pass', 'pass']);
    expect([avcHeader(3000, veryfast), keyframe(3000)].map((t) => watch.tag(t))).toEqual(['drop', 'new-part']);
  });

  it('a publish without video starts its new part at the first audio frame after the change', () => {
    const watch = new SequenceHeaderWatch();
    expect([aacHeader(0, stereo), audioFrame(0), aacHeader(0, mono), metadata(0), audioFrame(23)].map((t) => watch.tag(t))).toEqual([
      'pass', 'pass', 'drop', 'drop', 'new-part',
    ]);
    expect(watch.headers()).toHaveLength(1);
  });
});
