import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { call } from './http';
import type { LocalSystem } from './local-system';

/** An event set up for a show: its OBS stream key, the RTMP URL of the system's ingest, and fresh codes. */
export interface Show {
  eventId: string;
  streamKey: string;
  /** `<ingest server>/<stream key>`: what OBS publishes to. */
  rtmpUrl: string;
  /** None validated yet. */
  codes: string[];
}

/** An admin's event running now (it started an hour ago and ends in an hour) with `codes` codes. */
export async function newShow(system: LocalSystem, title: string, codes = 1): Promise<Show> {
  const now = Date.now();
  const event = await system.admin('POST', '/api/admin/events', {
    title,
    startsAt: new Date(now - 3_600_000).toISOString(),
    endsAt: new Date(now + 3_600_000).toISOString(),
  });
  const { ingest } = await system.admin('GET', `/api/admin/events/${event.id}`);
  const { tokens } = await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: codes });
  return {
    eventId: event.id,
    streamKey: ingest.streamKey,
    rtmpUrl: `${ingest.server}/${ingest.streamKey}`,
    codes: tokens.map((token: { code: string }) => token.code),
  };
}

/** The event's public status (`live`, `recording`, …). */
export async function showStatus(system: LocalSystem, eventId: string): Promise<string> {
  return (await call('GET', `${system.urls.api}/api/events/${eventId}/status`)).body.status;
}

export interface ShowViewer {
  token: string;
  /** The entry playlist on the media server. */
  url: string;
  segmentUrl(uri: string): string;
  /**
   * The media playlist a player reaches from the entry playlist: while live, the one the multivariant `index.m3u8`
   * names; after the show, `index.m3u8` itself (the whole show). Undefined while the media server serves neither.
   */
  playlist(): Promise<string | undefined>;
  /** The entry playlist `index.m3u8` as it is. */
  entry(): Promise<string | undefined>;
  /** Another file of the stream's folder, undefined unless served. */
  get(name: string): Promise<string | undefined>;
}

/** A viewer who validated `code` and reads the show through the media server with its JWT. */
export async function watchShow(system: LocalSystem, code: string): Promise<ShowViewer> {
  const grant = await call('POST', `${system.urls.api}/api/tokens/validate`, { json: { code } });
  if (grant.status !== 200) throw new Error(`validate: ${grant.status} ${grant.text}`);
  const token: string = grant.body.playbackToken;
  const base = `${String(grant.body.playbackBaseUrl).replace(/\/$/, '')}${grant.body.streamPath}`;
  const get = async (name: string) => {
    const answer = await call('GET', `${base}${name}`, { headers: { authorization: `Bearer ${token}` } });
    return answer.status === 200 ? answer.text : undefined;
  };
  return {
    token,
    url: `${base}index.m3u8`,
    segmentUrl: (uri) => `${base}${uri}`,
    async playlist() {
      const entry = await get('index.m3u8');
      const variant = entry?.split('\n').find((line) => line.endsWith('.m3u8'));
      return variant ? get(variant) : entry;
    },
    entry: () => get('index.m3u8'),
    get,
  };
}

/** Seconds of media a playlist lists (0 for none). */
export const mediaSeconds = (playlist: string | undefined) =>
  [...(playlist ?? '').matchAll(/#EXTINF:([\d.]+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);

/** Decodes a URL with ffprobe, as a player would (with the JWT); returns the number of video frames read. */
export async function videoFrames(url: string, token: string): Promise<number> {
  const { stdout } = await promisify(execFile)(
    'ffprobe',
    [
      ...['-v', 'error', '-headers', `Authorization: Bearer ${token}\r\n`],
      ...['-select_streams', 'v', '-count_frames', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', url],
    ],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  return Math.max(...stdout.split('\n').filter(Boolean).map(Number));
}
