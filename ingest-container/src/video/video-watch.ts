import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
import type { Logger } from '../log';
import type { StreamReporter } from '../platform/stream-reports';
import { FlvTap } from '../rtmp/flv-tap';
import { keyframesTooFar, type Verdict } from './keyframe-judge';
import { flvVideoFrame, KeyframeMeter, type VideoReading } from './keyframe-meter';
import { SequenceHeaderWatch } from './sequence-header-watch';

/** Unchanged figures are reported again after this long (the event page shows when they were measured). */
const REPORT_EVERY_MS = 60_000;

interface Watched {
  broadcast: BroadcastServer;
  tap: FlvTap;
  /** The HLS packaging's current run re-encodes this publisher's video (its keyframes are too far apart, or a ladder). */
  reencoding: boolean;
  /** Reports the last reading again, if there is one (the re-encoding state changed). */
  report: () => void;
  /** Whether the last reading's keyframes are too far apart to copy (undefined: no reading yet). */
  tooFar: () => boolean | undefined;
}

/**
 * Measures every publication's keyframe interval and frame rate and reports
 * them, with whether the packaging re-encodes the video: logged, and sent to
 * the platform for the event page. Both follow what is on air: the
 * measurement starts again when the publisher's codec settings change (a
 * reconnect with another encoder profile: its keyframes are another
 * encoder's), and the re-encoding flag is the current packaging run's, so a
 * part copied after a re-encoded one turns it off.
 */
export function createVideoWatch(deps: {
  segmentSeconds: number | undefined;
  reporter: StreamReporter;
  log: Logger;
  /** The event page shows the encoder on air: a standby encoder's broadcast (false here) is measured, not reported. */
  onAir?: (streamPath: string) => boolean;
}) {
  const { segmentSeconds, reporter, log } = deps;
  const watched = new Map<string, Watched>();

  function started(streamPath: string, streamName: string, broadcast: BroadcastServer): void {
    if (watched.has(streamPath) || segmentSeconds === undefined) return;
    let meter = new KeyframeMeter();
    const settings = new SequenceHeaderWatch();
    let last: { at: number; tooFar: boolean; reading: VideoReading } | undefined;
    const send = (reading: VideoReading, tooFar: boolean) => {
      last = { at: Date.now(), tooFar, reading };
      const { reencoding } = entry;
      const fields = { stream_name: streamName, keyframe_interval_s: round(reading.keyframeIntervalSeconds), frame_rate: round(reading.frameRate), segment_s: segmentSeconds, reencoding };
      if (tooFar && !reencoding) log.warn('keyframes further apart than the segment length, copied as they are: set the encoder keyframe interval', fields);
      else log.info('publisher video measured', fields);
      if (deps.onAir?.(streamPath) !== false) void reporter.video(streamName, { ...reading, segmentSeconds, reencoding });
    };
    const tap = new FlvTap(streamPath, (tag) => {
      if (settings.tag(tag) === 'new-part') {
        // Another encoder's keyframes from here: nothing measured before says anything about them.
        meter = new KeyframeMeter();
        last = undefined;
      }
      const frame = flvVideoFrame(tag);
      if (!frame) return;
      meter.addFrame(frame.dtsMs, frame.keyframe);
      if (!frame.keyframe) return;
      const reading = meter.reading();
      if (!reading) return;
      const tooFar = keyframesTooFar(reading.keyframeIntervalSeconds, segmentSeconds);
      const changed = !last || last.tooFar !== tooFar || Math.abs(last.reading.keyframeIntervalSeconds - reading.keyframeIntervalSeconds) > 0.25;
      if (changed || Date.now() - last!.at >= REPORT_EVERY_MS) send(reading, tooFar);
    });
    const entry: Watched = { broadcast, tap, reencoding: false, report: () => void (last && send(last.reading, last.tooFar)), tooFar: () => last?.tooFar };
    broadcast.postPlay(tap);
    watched.set(streamPath, entry);
  }

  /**
   * The packaging began a run that re-encodes the publication's video, or one that copies it (a new part): said with
   * the next report, and at once when there is a reading of the current settings.
   */
  function packaging(streamPath: string, reencoding: boolean): void {
    const entry = watched.get(streamPath);
    if (!entry || entry.reencoding === reencoding) return;
    entry.reencoding = reencoding;
    entry.report();
  }

  function ended(streamPath: string): void {
    const entry = watched.get(streamPath);
    if (!entry) return;
    watched.delete(streamPath);
    entry.broadcast.donePlay(entry.tap);
  }

  /** Copy or re-encode, as this broadcast's keyframes measured so far say: a standby going on air needs no new judging. */
  function verdictOf(streamPath: string): Verdict | undefined {
    const tooFar = watched.get(streamPath)?.tooFar();
    return tooFar === undefined ? undefined : tooFar ? 'reencode' : 'copy';
  }

  return { started, ended, packaging, verdictOf, stopAll: () => [...watched.keys()].forEach(ended) };
}

const round = (value: number) => Math.round(value * 100) / 100;
