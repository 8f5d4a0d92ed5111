/** One media segment as a playlist names it. */
export interface Segment {
  uri: string;
  /** Seconds, from `#EXTINF`. */
  duration: number;
}

/** A run of segments packaged without a break: one publish. Between runs a playlist says `#EXT-X-DISCONTINUITY`. */
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

export interface PlaylistWindow {
  runs: readonly SegmentRun[];
  /** Live: the newest segments covering at least this many seconds (the DVR window). Omitted: the whole recording as VOD. */
  liveWindowSeconds?: number;
}

/**
 * Writes the playlist a viewer fetches. Live: the tail of the recording, its
 * media sequence counting every segment before it and its discontinuity
 * sequence every break before it, so numbers never go back while segments
 * slide out. VOD: everything, `#EXT-X-PLAYLIST-TYPE:VOD` and `#EXT-X-ENDLIST`.
 */
export function renderMediaPlaylist({ runs: given, liveWindowSeconds }: PlaylistWindow): string {
  // A publish that never produced a segment leaves no break behind.
  const runs = given.filter((run) => run.length > 0);
  // Over the whole recording, so it never changes while live (RFC 8216 4.3.3.1).
  let target = 1;
  let total = 0;
  for (const run of runs) {
    total += run.length;
    for (const segment of run) target = Math.max(target, Math.round(segment.duration));
  }
  // The first segment shown: run `fromRun`, index `fromAt`; live walks back from the end only.
  let fromRun = 0;
  let fromAt = 0;
  let shown = total;
  if (liveWindowSeconds !== undefined && runs.length > 0) {
    let covered = 0;
    shown = 0;
    fromRun = runs.length - 1;
    fromAt = runs[fromRun]!.length;
    while (covered < liveWindowSeconds && (fromRun > 0 || fromAt > 0)) {
      if (fromAt === 0) fromAt = runs[--fromRun]!.length;
      covered += runs[fromRun]![--fromAt]!.duration;
      shown++;
    }
  }
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${target}`, `#EXT-X-MEDIA-SEQUENCE:${total - shown}`];
  if (liveWindowSeconds === undefined) lines.push('#EXT-X-PLAYLIST-TYPE:VOD');
  else if (fromRun > 0) lines.push(`#EXT-X-DISCONTINUITY-SEQUENCE:${fromRun}`);
  lines.push('#EXT-X-INDEPENDENT-SEGMENTS');
  for (let r = fromRun; r < runs.length; r++) {
    const run = runs[r]!;
    for (let at = r === fromRun ? fromAt : 0; at < run.length; at++) {
      if (at === 0 && r > fromRun) lines.push('#EXT-X-DISCONTINUITY');
      lines.push(`#EXTINF:${run[at]!.duration.toFixed(6)},`, run[at]!.uri);
    }
  }
  if (liveWindowSeconds === undefined) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}
