/**
 * `npm start` as a user runs it: an admin creates an event, OBS-like ffmpeg
 * publishes with the event's server and stream key, the event turns live,
 * and a viewer's playback token plays the HLS from the local S3 through the
 * media server (and over RTMP through the same callback).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../harness/http';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { ffprobe, play, publish, until, type Run } from '../support/ingest';

describe('ingest in the local system', () => {
  let system: LocalSystem;
  let publisher: Run | undefined;
  let eventId: string;

  beforeAll(async () => {
    system = await startLocalSystem();
    const now = Date.now();
    const created = await system.admin('POST', '/api/admin/events', {
      title: 'Ingest test',
      startsAt: new Date(now - 3_600_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
    });
    eventId = created.id;
  }, 90_000);

  afterAll(async () => {
    if (publisher?.running()) await publisher.stop();
    await system?.stop();
  });

  it('prints the RTMP URL in the ready line and shows it to admins as the OBS server', async () => {
    expect(system.urls.rtmp).toMatch(/^rtmp:\/\/127\.0\.0\.1:\d+\/live$/);
    const details = await system.admin('GET', `/api/admin/events/${eventId}`);
    expect(details.ingest.server).toBe(system.urls.rtmp);
  });

  it('denies a publish with a wrong ingest key', async () => {
    const result = await publish(`${system.urls.rtmp}/${eventId}?token=not-the-key`, 2).done;
    expect(result.stderr).toContain('Server error: authentication failed: invalid credentials');
  });

  it('publishes with the stream key, goes live, and plays with a viewer token', async () => {
    const { ingest } = await system.admin('GET', `/api/admin/events/${eventId}`);
    publisher = publish(`${ingest.server}/${ingest.streamKey}`);
    await until(async () => (await call('GET', `${system.urls.api}/api/events/${eventId}/status`)).body.status === 'live');

    const { tokens } = await system.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 1 });
    const validated = await call('POST', `${system.urls.api}/api/tokens/validate`, { json: { code: tokens[0].code } });
    expect(validated.status).toBe(200);
    const { playbackToken, playbackBaseUrl } = validated.body;
    const playlistUrl = `${String(playbackBaseUrl).replace(/\/$/, '')}/streams/${eventId}/index.m3u8`;
    await until(async () => (await call('GET', playlistUrl, { headers: { authorization: `Bearer ${playbackToken}` } })).status === 200, 250);

    const probe = await ffprobe([
      '-v', 'error', '-headers', `Authorization: Bearer ${playbackToken}\r\n`,
      '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', playlistUrl,
    ]);
    expect([...new Set(probe.stdout.split('\n').filter(Boolean))].sort()).toEqual(['aac', 'h264']);
    expect((await play(`${system.urls.rtmp}/${eventId}?token=${playbackToken}`)).code).toBe(0);
    expect(publisher.running()).toBe(true);
  });
});
