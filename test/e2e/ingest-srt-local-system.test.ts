/**
 * An SRT show on `npm start`: the encoder takes `ingest.srt.url` from the API as is, the event goes live,
 * viewers get HLS segments, a stop ends the show (status `recording` within seconds, not after the reconnect
 * window) and the recording replays. A backup over SRT beside an RTMP primary takes over when the primary
 * dies, as an RTMP backup does (the on-air choice does not care which protocol an encoder speaks).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { referencedFiles } from '../../recording/playlist';
import { newShow, showStatus, videoFrames, watchShow, type Show } from '../../harness/show';
import { publish, until } from '../support/ingest';
import { watchFailover } from '../support/failover-watch';
import { publishSrtUrl } from '../support/srt';

describe('an SRT show on the local system', () => {
  let system: LocalSystem;
  let show: Show;
  let srt: { url: string; streamId: string; passphrase: string; latencyMs: number };

  beforeAll(async () => {
    // A reconnect window far longer than "within seconds", so a stop that waited for it would show.
    system = await startLocalSystem({ INGEST_PUBLISH_GRACE: '30s' });
    show = await newShow(system, 'SRT show', 1);
    srt = (await system.admin('GET', `/api/admin/events/${show.eventId}`)).ingest.srt;
  }, 90_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('names the SRT URL in the ready line, and the console URL points at it', () => {
    expect(system.urls.srt).toMatch(/^srt:\/\/127\.0\.0\.1:\d+$/);
    expect(srt.url.startsWith(`${system.urls.srt}?streamid=`)).toBe(true);
  });

  it('refuses a wrong passphrase at the handshake, and gives the lease back at once', async () => {
    const wrong = srt.url.replace(`passphrase=${srt.passphrase}`, 'passphrase=not-the-passphrase-1');
    const started = Date.now();
    const result = await publishSrtUrl(wrong, { seconds: 10 }).done;
    expect(result.code).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(6_000);
    // The token was good, so the handshake took the lease before libsrt checked the key material; the gate's
    // word on the failed handshake releases it, long before the lease (15 s) or our own bound (5 s) would run out.
    const failedAt = Date.now();
    await until(async () => (await showStatus(system, show.eventId)) !== 'live', 100);
    expect(Date.now() - failedAt).toBeLessThan(4_000);
  });

  it('publish, watch, stop → recording within seconds, and the recording replays', async () => {
    const viewer = await watchShow(system, show.codes[0]!);
    const publisher = publishSrtUrl(srt.url, { seconds: 14 });
    await until(async () => (await showStatus(system, show.eventId)) === 'live');
    await until(async () => ((await viewer.playlist()) ?? '').includes('#EXTINF'), 250);
    const { code } = await publisher.done;
    expect(code).toBe(0);
    const stoppedAt = Date.now();
    await until(async () => (await showStatus(system, show.eventId)) !== 'live', 250);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(await showStatus(system, show.eventId)).toBe('recording');
    const recording = (await until(async () => {
      const text = await viewer.playlist();
      return text && /#EXT-X-ENDLIST\s*$/.test(text) ? text : undefined;
    }))!;
    expect(recording).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    const segments = referencedFiles(recording);
    expect(segments.length).toBeGreaterThan(5);
    expect(await videoFrames(viewer.url, viewer.token)).toBeGreaterThan(10 * 25);
  }, 120_000);

  it('a backup over SRT takes over from an RTMP primary within 3 s, its protocol in the encoder report', async () => {
    const backupShow = await newShow(system, 'SRT backup', 1);
    const { ingest } = await system.admin('GET', `/api/admin/events/${backupShow.eventId}`);
    expect(ingest.backup.srt.url.startsWith(`${system.urls.srt}?streamid=`)).toBe(true);
    const viewer = await watchShow(system, backupShow.codes[0]!);
    const primary = publish(backupShow.rtmpUrl);
    await until(async () => (await showStatus(system, backupShow.eventId)) === 'live');
    const backup = publishSrtUrl(ingest.backup.srt.url, { gop: 25 });
    try {
      await until(async () => {
        const { ingest: now } = await system.admin('GET', `/api/admin/events/${backupShow.eventId}`);
        return now.encoders.some((encoder: { role: string; connected: boolean }) => encoder.role === 'backup' && encoder.connected) || undefined;
      }, 250);
      await until(async () => ((await viewer.playlist()) ?? '').includes('#EXTINF'), 250);
      const watch = watchFailover(system, backupShow.eventId, viewer);
      await until(async () => watch.latest() || undefined, 100);
      const before = watch.discontinuities();
      const killedAt = Date.now();
      await primary.kill();
      expect(await watch.waitForSwitch(killedAt, before)).toBeLessThan(3_000);
      await watch.stop();
      expect(watch.refused).toEqual([]);
      expect([...watch.statuses]).toEqual(['live']);
      const { ingest: after } = await system.admin('GET', `/api/admin/events/${backupShow.eventId}`);
      expect(after.encoders).toContainEqual(expect.objectContaining({ role: 'backup', protocol: 'srt', onAir: true }));
    } finally {
      if (primary.running()) await primary.kill();
      await backup.kill();
    }
  }, 120_000);
});
