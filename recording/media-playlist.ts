/** One media segment as a playlist names it. */
export interface Segment {
  uri: string;
  /** Seconds, from `#EXTINF`. */
  duration: number;
}

/** A run of segments packaged without a break (one ffmpeg process). Between runs a playlist says `#EXT-X-DISCONTINUITY`. */
export type SegmentRun = readonly Segment[];

export const isMasterPlaylist = (text: string) => /^#EXT-X-STREAM-INF:/m.test(text);

/**
 * A line of text as a string of its own. V8 keeps a substring as a slice of
 * the string it came from: a segment's URI would hold ffmpeg's whole playlist
 * text in memory, and the recording keeps every segment for the whole show
 * (one playlist of about 12 KB per segment: 130 MB over three hours).
 */
const ownCopy = (line: string) => Buffer.from(line, 'utf8').toString('utf8');

/** The segments of a media playlist (ffmpeg's, in the work folder), in order. */
export function parseMediaPlaylist(text: string): Segment[] {
  const segments: Segment[] = [];
  let duration: number | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const extinf = /^#EXTINF:([\d.]+)/.exec(line);
    if (extinf) duration = Number(extinf[1]);
    else if (line !== '' && !line.startsWith('#') && duration !== undefined) {
      segments.push({ uri: ownCopy(line), duration });
      duration = undefined;
    }
  }
  return segments;
}

/** The `#EXT-X-TARGETDURATION` a segment needs: its duration rounded to whole seconds (RFC 8216 4.3.3.1), at least 1. */
export const targetFor = (seconds: number) => Math.max(1, Math.round(seconds));

/**
 * The target duration of the live playlist while `newest` is the run being
 * written: the ingest's segment length, or what the run's segments need when
 * they are longer (copied video with keyframes far apart). The run's first
 * segment does not count: a publisher's first GOP is often longer than the
 * others (OBS's is), and a first segment that does not fit is left out of the
 * live playlist instead (it stays in the recording).
 */
export function liveTargetDuration(newest: SegmentRun, segmentSeconds: number): number {
  let target = targetFor(segmentSeconds);
  for (let i = 1; i < newest.length; i++) target = Math.max(target, targetFor(newest[i]!.duration));
  return target;
}

const header = (target: number, sequence: number) => ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${target}`, `#EXT-X-MEDIA-SEQUENCE:${sequence}`];
const entry = (segment: Segment) => [`#EXTINF:${segment.duration.toFixed(6)},`, segment.uri];

/**
 * The whole recording as VOD: every segment of every run, a discontinuity
 * between runs, `#EXT-X-PLAYLIST-TYPE:VOD` and `#EXT-X-ENDLIST`. Its target
 * duration is the longest segment's, first segments included.
 */
export function renderVodPlaylist(given: readonly SegmentRun[]): string {
  // A run that never produced a segment leaves no break behind.
  const runs = given.filter((run) => run.length > 0);
  const target = Math.max(1, ...runs.flatMap((run) => run.map((segment) => targetFor(segment.duration))));
  const lines = [...header(target, 0), '#EXT-X-PLAYLIST-TYPE:VOD', '#EXT-X-INDEPENDENT-SEGMENTS'];
  runs.forEach((run, r) => {
    if (r > 0) lines.push('#EXT-X-DISCONTINUITY');
    for (const segment of run) lines.push(...entry(segment));
  });
  lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

export interface LiveWindow {
  runs: readonly SegmentRun[];
  /** The playlist's `#EXT-X-TARGETDURATION`, for as long as it is written: only segments that fit it are listed. */
  target: number;
  /** The newest segments covering at least this many seconds (the DVR window). */
  windowSeconds: number;
  /** The playlist is done (`#EXT-X-ENDLIST`): the show ended, or the live playlist moved to another target duration. */
  ended?: boolean;
}

/**
 * The live playlist of one target duration: the tail of the recording,
 * walking back from the newest segment while segments fit the target, so its
 * target duration never changes (RFC 8216 6.2.1). What is left out:
 * - a run's first segment that does not fit (a long first GOP), skipped;
 * - the newest run from its first later segment that does not fit: the live
 *   playlist has moved to a longer target, and this one ends where it stood;
 * - every run before one with a later segment that does not fit, and before
 *   one that would show nothing.
 * A segment's media sequence number counts the fitting segments before it,
 * its discontinuity sequence the runs before it, so numbers never go back
 * while segments slide out. Undefined when nothing fits.
 */
export function renderLivePlaylist({ runs: given, target, windowSeconds, ended = false }: LiveWindow): string | undefined {
  const runs = given.filter((run) => run.length > 0);
  const fits = (segment: Segment) => targetFor(segment.duration) <= target;
  const shown: { run: number; segment: Segment }[] = [];
  let covered = 0;
  walk: for (let r = runs.length - 1; r >= 0; r--) {
    let run = runs[r]!;
    const blocker = run.findIndex((segment, i) => i > 0 && !fits(segment));
    if (blocker !== -1) {
      if (r < runs.length - 1) break;
      run = run.slice(0, blocker);
    }
    const before = shown.length;
    for (let i = run.length - 1; i >= 0; i--) {
      if (covered >= windowSeconds) break walk;
      if (!fits(run[i]!)) continue;
      shown.unshift({ run: r, segment: run[i]! });
      covered += run[i]!.duration;
    }
    if (shown.length === before && r < runs.length - 1) break;
  }
  if (shown.length === 0) return undefined;
  const first = shown[0]!;
  let sequence = 0;
  for (let r = 0; r <= first.run; r++) {
    for (const segment of runs[r]!) {
      if (segment === first.segment) break;
      if (fits(segment)) sequence++;
    }
  }
  const lines = header(target, sequence);
  if (first.run > 0) lines.push(`#EXT-X-DISCONTINUITY-SEQUENCE:${first.run}`);
  lines.push('#EXT-X-INDEPENDENT-SEGMENTS');
  shown.forEach(({ run, segment }, i) => {
    if (i > 0 && run !== shown[i - 1]!.run) lines.push('#EXT-X-DISCONTINUITY');
    lines.push(...entry(segment));
  });
  if (ended) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}

/** The multivariant playlist of one stream (copied or re-encoded video): its one variant's peak bit rate and URI. */
export function renderSingleVariantPlaylist(uri: string, bandwidth: number): string {
  return ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-INDEPENDENT-SEGMENTS', `#EXT-X-STREAM-INF:BANDWIDTH=${bandwidth}`, uri, ''].join('\n');
}

/** A multivariant playlist with each variant URI replaced (ffmpeg's ladder master, pointed at the live playlists). */
export function renameVariants(master: string, rename: (uri: string) => string): string {
  return master
    .split('\n')
    .map((line) => (line.trim() !== '' && !line.startsWith('#') ? rename(line.trim()) : line))
    .join('\n');
}
