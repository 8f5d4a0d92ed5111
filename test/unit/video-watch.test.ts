import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../ingest-container/src/log';
import type { VideoReport } from '../../ingest-container/src/platform/stream-reports';
import type { FlvTap } from '../../ingest-container/src/rtmp/flv-tap';
import { createVideoWatch } from '../../ingest-container/src/video/video-watch';
import { flvTag } from '../support/flv-tags';

const tag = flvTag;

/** An AVC sequence header; `profile` stands for whatever differs between two encoders' SPS/PPS. */
const sequenceHeader = (dtsMs: number, profile: number) => tag(9, dtsMs, [0x17, 0, 0, 0, 0, 1, profile, 0, 0x1e]);
const frame = (dtsMs: number, keyframe: boolean) => tag(9, dtsMs, [keyframe ? 0x17 : 0x27, 1, 0, 0, 0, 0xaa]);

/** A watched publication, its taps fed by hand, and what it reported. */
function watchedStream() {
  const reports: VideoReport[] = [];
  const taps: FlvTap[] = [];
  const broadcast = { postPlay: (tap: FlvTap) => taps.push(tap), donePlay: () => undefined } as unknown as BroadcastServer;
  const watch = createVideoWatch({
    segmentSeconds: 1,
    reporter: { video: async (_name, report) => void reports.push(report), alreadyPublishing: async () => undefined },
    log: createLogger('error', () => undefined),
  });
  watch.started('live/show', 'show', broadcast);
  // 25 fps throughout: node-media-server continues a resumed publish's timestamps where the last one stopped.
  let frames = 0;
  let encoderStart = 0;
  /** `seconds` of video, a keyframe every `gop` frames counted from the encoder's first frame. */
  const video = (seconds: number, gop: number) => {
    for (const end = frames + Math.round(seconds * 25); frames < end; frames++) taps[0]!.sendBuffer(frame(frames * 40, (frames - encoderStart) % gop === 0));
  };
  /** An encoder (re)starts: its sequence header, then its first frame is a keyframe. */
  const header = (profile: number) => {
    taps[0]!.sendBuffer(sequenceHeader(frames * 40, profile));
    encoderStart = frames;
  };
  return { watch, reports, video, header };
}

describe('video watch', () => {
  it('after a re-encoded part, a part of other settings that is copied reports its own keyframes, not re-encoded', () => {
    const { watch, reports, video, header } = watchedStream();
    // veryfast with 4 s keyframes: the packaging re-encodes (decided once a gap runs past 1.2 s).
    header(0x64);
    video(1.2, 100);
    watch.packaging('live/show', true);
    video(10.8, 100);
    expect(reports.at(-1)).toMatchObject({ keyframeIntervalSeconds: 4, reencoding: true, segmentSeconds: 1 });
    const before = reports.length;

    // The encoder comes back with other settings and 1 s keyframes: the new part is copied from its second keyframe on.
    header(0x42);
    video(1.04, 25);
    watch.packaging('live/show', false);
    video(4, 25);
    const after = reports.slice(before);
    expect(after.at(-1)).toMatchObject({ keyframeIntervalSeconds: 1, reencoding: false });
    expect(after.at(-1)!.frameRate).toBeCloseTo(25, 0);
    // Never the old encoder's 4 s beside the new part's packaging, which would warn of 4 s segments.
    expect(after.filter((report) => report.keyframeIntervalSeconds !== 1)).toEqual([]);
  });

  it('a copied part turns the flag off at once when its settings were measured already', () => {
    const { watch, reports, video, header } = watchedStream();
    header(0x64);
    video(4, 25);
    watch.packaging('live/show', true);
    expect(reports.at(-1)).toMatchObject({ keyframeIntervalSeconds: 1, reencoding: true });
    watch.packaging('live/show', false);
    expect(reports.at(-1)).toMatchObject({ keyframeIntervalSeconds: 1, reencoding: false });
    // The same state again says nothing new.
    const count = reports.length;
    watch.packaging('live/show', false);
    expect(reports).toHaveLength(count);
  });

  it('the same settings again (a reconnect with the same profile) keep the measurement', () => {
    const { reports, video, header } = watchedStream();
    header(0x64);
    video(4.04, 25);
    expect(reports.at(-1)).toMatchObject({ keyframeIntervalSeconds: 1 });
    header(0x64);
    // The next keyframe still counts: a longer gap across the reconnect is reported as soon as it is there.
    video(2.04, 50);
    expect(reports.at(-1)).toMatchObject({ keyframeIntervalSeconds: 2 });
  });
});
