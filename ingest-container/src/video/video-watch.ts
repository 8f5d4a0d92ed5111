import BaseSession from 'node-media-server/src/session/base_session.js';
import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
import type { Logger } from '../log';
import type { StreamReporter } from '../platform/stream-reports';
import { flvVideoFrame, KeyframeMeter, type VideoReading } from './keyframe-meter';

/** Unchanged figures are reported again after this long (the event page shows when they were measured). */
const REPORT_EVERY_MS = 60_000;
/** Keyframes this much further apart than a segment count as too far (timestamp jitter). */
const TOLERANCE = 1.2;

/** An internal subscriber (empty `ip`: no play events) that reads the broadcast's FLV tags into a meter. */
class VideoTap extends BaseSession {
  constructor(streamPath: string, onTag: (tag: Buffer) => void) {
    super();
    this.protocol = 'flv';
    this.streamPath = streamPath;
    this.sendBuffer = onTag;
  }
}

interface Watched {
  broadcast: BroadcastServer;
  tap: VideoTap;
}

/**
 * Measures every publication's keyframe interval and frame rate and reports
 * them: logged, and sent to the platform for the event page. A publisher
 * whose keyframes are further apart than the segment length gets a warning;
 * its stream is not touched.
 */
export function createVideoWatch(deps: { segmentSeconds: number | undefined; reporter: StreamReporter; log: Logger }) {
  const { segmentSeconds, reporter, log } = deps;
  const watched = new Map<string, Watched>();

  function started(streamPath: string, streamName: string, broadcast: BroadcastServer): void {
    if (watched.has(streamPath) || segmentSeconds === undefined) return;
    const meter = new KeyframeMeter();
    let last: { at: number; tooFar: boolean; reading: VideoReading } | undefined;
    const tap = new VideoTap(streamPath, (tag) => {
      const frame = flvVideoFrame(tag);
      if (!frame) return;
      meter.addFrame(frame.dtsMs, frame.keyframe);
      if (!frame.keyframe) return;
      const reading = meter.reading();
      if (!reading) return;
      const tooFar = reading.keyframeIntervalSeconds > segmentSeconds * TOLERANCE;
      const changed = !last || last.tooFar !== tooFar || Math.abs(last.reading.keyframeIntervalSeconds - reading.keyframeIntervalSeconds) > 0.25;
      if (!changed && Date.now() - last!.at < REPORT_EVERY_MS) return;
      last = { at: Date.now(), tooFar, reading };
      const fields = { stream_name: streamName, keyframe_interval_s: round(reading.keyframeIntervalSeconds), frame_rate: round(reading.frameRate), segment_s: segmentSeconds };
      if (tooFar) log.warn('keyframes further apart than the segment length: set the encoder keyframe interval', fields);
      else log.info('publisher video measured', fields);
      void reporter.video(streamName, { ...reading, segmentSeconds });
    });
    broadcast.postPlay(tap);
    watched.set(streamPath, { broadcast, tap });
  }

  function ended(streamPath: string): void {
    const entry = watched.get(streamPath);
    if (!entry) return;
    watched.delete(streamPath);
    entry.broadcast.donePlay(entry.tap);
  }

  return { started, ended, stopAll: () => [...watched.keys()].forEach(ended) };
}

const round = (value: number) => Math.round(value * 100) / 100;
