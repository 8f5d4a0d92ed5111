import { call } from './http';
import type { LocalSystem } from './local-system';

export interface Viewer {
  eventId: string;
  tokenId: string;
  code: string;
  /** OBS settings of the event: `server` and `streamKey`. */
  ingest: { server: string; streamKey: string };
  playbackToken: string;
  streamPath: string;
  playbackBaseUrl: string;
  /** The event's entry playlist on the media server. */
  manifestUrl: string;
}

/** The usual start of a story: an admin creates an event running now and one code, a viewer validates it. */
export async function viewerOfNewEvent(system: LocalSystem, title: string): Promise<Viewer> {
  const now = Date.now();
  const event = await system.admin('POST', '/api/admin/events', {
    title,
    startsAt: new Date(now - 3_600_000).toISOString(),
    endsAt: new Date(now + 7_200_000).toISOString(),
  });
  const details = await system.admin('GET', `/api/admin/events/${event.id}`);
  const { tokens } = await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1, label: title });
  const grant = await call('POST', `${system.urls.api}/api/tokens/validate`, { json: { code: tokens[0].code } });
  if (grant.status !== 200) throw new Error(`validate: ${grant.status} ${grant.text}`);
  return {
    eventId: event.id,
    tokenId: tokens[0].id,
    code: tokens[0].code,
    ingest: details.ingest,
    playbackToken: grant.body.playbackToken,
    streamPath: grant.body.streamPath,
    playbackBaseUrl: grant.body.playbackBaseUrl,
    manifestUrl: `${system.urls.media}${grant.body.streamPath}index.m3u8`,
  };
}
