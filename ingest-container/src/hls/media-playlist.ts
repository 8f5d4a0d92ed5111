/** One media segment as a playlist names it. */
export interface Segment {
  uri: string;
  /** Seconds, from `#EXTINF`. */
  duration: number;
}

/** A run of segments packaged without a break: one publish. Between runs a playlist says `#EXT-X-DISCONTINUITY`. */
export type SegmentRun = readonly Segment[];

export const isMasterPlaylist = (text: string) => /^#EXT-X-STREAM-INF:/m.test(text);

/** The segments of a media playlist (ffmpeg's, in the work folder), in order. */
export function parseMediaPlaylist(text: string): Segment[] {
  const segments: Segment[] = [];
  let duration: number | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const extinf = /^#EXTINF:([\d.]+)/.exec(line);
    if (extinf) duration = Number(extinf[1]);
    else if (line !== '' && !line.startsWith('#') && duration !== undefined) {
      segments.push({ uri: line, duration });
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
  const all = runs.flatMap((run, index) => run.map((segment, at) => ({ ...segment, breakBefore: index > 0 && at === 0, run: index })));
  let first = 0;
  if (liveWindowSeconds !== undefined) {
    let covered = 0;
    first = all.length;
    while (first > 0 && covered < liveWindowSeconds) covered += all[--first]!.duration;
  }
  const shown = all.slice(first);
  const breaksBefore = first < all.length ? all[first]!.run : 0;
  // Over the whole recording, so it never changes while live (RFC 8216 4.3.3.1).
  const target = Math.max(1, ...all.map((segment) => Math.round(segment.duration)));
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${target}`, `#EXT-X-MEDIA-SEQUENCE:${first}`];
  if (liveWindowSeconds === undefined) lines.push('#EXT-X-PLAYLIST-TYPE:VOD');
  else if (breaksBefore > 0) lines.push(`#EXT-X-DISCONTINUITY-SEQUENCE:${breaksBefore}`);
  lines.push('#EXT-X-INDEPENDENT-SEGMENTS');
  shown.forEach((segment, index) => {
    if (segment.breakBefore && index > 0) lines.push('#EXT-X-DISCONTINUITY');
    lines.push(`#EXTINF:${segment.duration.toFixed(6)},`, segment.uri);
  });
  if (liveWindowSeconds === undefined) lines.push('#EXT-X-ENDLIST');
  return `${lines.join('\n')}\n`;
}
