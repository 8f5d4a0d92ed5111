/**
 * Against `npm start`'s program with real ffmpeg: a show with a
 * dropped connection, a resume, a clean stop, an intermission and a second
 * part is watchable after the end as one VOD playlist, through the media
 * server; a clean stop ends `live` long before the reconnect window would, a
 * drop keeps `live` through the window; and the recording is still served
 * after a restart with the same DATA_DIR.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { referencedFiles } from '../../recording/playlist';
import { mediaSeconds, newShow, showStatus, videoFrames, watchShow, type Show } from '../../harness/show';
import { publish, tempDir, until } from '../support/ingest';

const RECONNECT_WINDOW_S = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the whole show', () => {
  let system: LocalSystem;
  let dataDir: string;
  let show: Show;
  let onAirSeconds = 0;
  let recordedSegments: string[] = [];

  beforeAll(async () => {
    dataDir = await tempDir('whole-show');
    system = await startLocalSystem({ DATA_DIR: dataDir, INGEST_PUBLISH_GRACE: `${RECONNECT_WINDOW_S}s` });
    show = await newShow(system, 'Whole show', 2);
  }, 90_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('drop + resume, clean stop, intermission, second part: one VOD recording after the end', async () => {
    const viewer = await watchShow(system, show.codes[0]!);

    // Part 1: 16 s, then the connection drops (SIGKILL: no FCUnpublish/deleteStream).
    const first = publish(show.rtmpUrl);
    await until(async () => (await showStatus(system, show.eventId)) === 'live');
    await sleep(16_000);
    onAirSeconds += 16;
    await first.kill();
    expect(await showStatus(system, show.eventId)).toBe('live');
    const during = await viewer.playlist();
    expect(during).toBeDefined();
    expect(during).not.toContain('#EXT-X-ENDLIST');

    // The same client comes back within the window and goes on for 16 s, then stops cleanly.
    expect((await publish(show.rtmpUrl, 16).done).code).toBe(0);
    onAirSeconds += 16;
    const stoppedAt = Date.now();
    await until(async () => (await showStatus(system, show.eventId)) !== 'live');
    // A clean stop does not wait for the reconnect window.
    expect(Date.now() - stoppedAt).toBeLessThan(RECONNECT_WINDOW_S * 1000);
    expect(await showStatus(system, show.eventId)).toBe('recording');
    const intermission = (await viewer.playlist())!;
    expect(intermission).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    expect(intermission).toMatch(/#EXT-X-ENDLIST\s*$/);
    expect(intermission).not.toContain('#EXT-X-DISCONTINUITY');

    // Intermission, then the second part: live again, and the playlist with it.
    await sleep(4_000);
    const second = publish(show.rtmpUrl, 12);
    await until(async () => (await showStatus(system, show.eventId)) === 'live');
    // The status turns live when the ingest takes the lease; the live playlists follow as soon as it has reopened
    // the show's recording (before it admits the publish), well within the publish.
    const backLive = await until(async () => {
      const text = await viewer.playlist();
      return text?.includes('#EXTINF') && !text.includes('#EXT-X-ENDLIST') ? text : undefined;
    });
    expect(backLive).not.toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    expect(second.running()).toBe(true);
    expect((await second.done).code).toBe(0);
    onAirSeconds += 12;
    await until(async () => (await showStatus(system, show.eventId)) !== 'live');

    const recording = (await until(async () => {
      const text = await viewer.playlist();
      return text && /#EXT-X-ENDLIST/.test(text) && text.includes('#EXT-X-DISCONTINUITY') ? text : undefined;
    }))!;
    expect(recording).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    expect(recording.match(/#EXT-X-DISCONTINUITY\n/g)).toHaveLength(1);
    expect(mediaSeconds(recording)).toBeGreaterThanOrEqual(0.9 * onAirSeconds);
    recordedSegments = referencedFiles(recording);
    expect(new Set(recordedSegments).size).toBe(recordedSegments.length);

    // The first segment plays, and the whole recording decodes end to end through the media server.
    expect(await videoFrames(viewer.segmentUrl(recordedSegments[0]!), viewer.token)).toBeGreaterThan(0);
    const frames = await videoFrames(viewer.url, viewer.token);
    expect(frames).toBeGreaterThanOrEqual(0.9 * onAirSeconds * 25);
  }, 180_000);

  it('a dropped connection stays live through the reconnect window, then ends', async () => {
    const dropped = await newShow(system, 'Dropped');
    const publisher = publish(dropped.rtmpUrl);
    await until(async () => (await showStatus(system, dropped.eventId)) === 'live');
    const viewer = await watchShow(system, dropped.codes[0]!);
    await until(async () => ((await viewer.playlist()) ?? '').includes('#EXTINF'));
    await publisher.kill();
    const droppedAt = Date.now();
    expect(await showStatus(system, dropped.eventId)).toBe('live');
    await until(async () => (await showStatus(system, dropped.eventId)) !== 'live', 250);
    // Never before the window is over (a lower bound holds however slow the machine is).
    expect(Date.now() - droppedAt).toBeGreaterThanOrEqual(RECONNECT_WINDOW_S * 1000 - 1_000);
    expect((await viewer.playlist()) ?? '').toMatch(/#EXT-X-ENDLIST\s*$/);
  }, 120_000);

  it('a restart with the same DATA_DIR still serves the whole recording to a valid code', async () => {
    expect(recordedSegments.length).toBeGreaterThan(0);
    await system.stop();
    system = await startLocalSystem({ DATA_DIR: dataDir, INGEST_PUBLISH_GRACE: `${RECONNECT_WINDOW_S}s` });
    expect(await showStatus(system, show.eventId)).toBe('recording');
    const viewer = await watchShow(system, show.codes[1]!);
    const playlist = (await viewer.playlist())!;
    expect(referencedFiles(playlist)).toEqual(recordedSegments);
    expect(await videoFrames(viewer.url, viewer.token)).toBeGreaterThanOrEqual(0.9 * onAirSeconds * 25);
  }, 120_000);
});
