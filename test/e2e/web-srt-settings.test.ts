/**
 * SRT in Chromium against `npm start`. The console's SRT settings: the complete URL, the stream id and the
 * passphrase as fields with Copy, the latency line, and a QR code that reads back as the URL. The viewer
 * page plays a show an encoder sends over SRT with that URL, and keeps playing when the SRT encoder dies
 * and the backup (over RTMP) takes over.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { browserStory, noHorizontalScroll, PHONE_WIDTH, signInAsOwner } from '../support/browser-story';
import { newShow, watchShow } from '../../harness/show';
import { watchFailover } from '../support/failover-watch';
import { publish, until, type Run } from '../support/ingest';
import { publishSrtUrl } from '../support/srt';
import { DEFAULT_FAILOVER_SILENCE_MS } from '../../ingest-container/src/publications';

const jsQrPath = createRequire(import.meta.url).resolve('jsqr/dist/jsQR.js');

describe('web: SRT settings', () => {
  const story = browserStory();
  const runs: Run[] = [];
  story.atClose(async () => {
    for (const run of runs) if (run.running()) await run.kill();
  });

  it('shows the SRT URL, stream id and passphrase with Copy, and a QR code of the URL', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const admin = await story.adminPage();
    await signInAsOwner(admin, system);
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'SRT settings',
      startsAt: new Date(Date.now() - 600_000).toISOString(),
      endsAt: new Date(Date.now() + 7_200_000).toISOString(),
    });
    const { srt } = (await system.admin('GET', `/api/admin/events/${event.id}`)).ingest;
    await admin.goto(`${api}/admin/#/events/${event.id}`);
    await admin.getByRole('heading', { name: 'SRT', exact: true }).waitFor();

    expect(await admin.getByLabel('SRT URL', { exact: true }).inputValue()).toBe(srt.url);
    expect(await admin.getByLabel('Stream id', { exact: true }).inputValue()).toBe(srt.streamId);
    expect(await admin.getByLabel('Passphrase', { exact: true }).inputValue()).toBe(srt.passphrase);
    // Secrets are hidden until asked for, as the RTMP stream key.
    expect(await admin.getByLabel('Passphrase', { exact: true }).getAttribute('type')).toBe('password');
    await admin.getByRole('button', { name: 'Copy SRT URL' }).click();
    expect(await admin.evaluate(() => navigator.clipboard.readText())).toBe(srt.url);
    await admin.getByRole('button', { name: 'Copy Stream id' }).click();
    expect(await admin.evaluate(() => navigator.clipboard.readText())).toBe(srt.streamId);
    expect(await admin.locator('[data-key="srt-latency"]').textContent()).toContain('200 ms');

    await admin.getByText('QR code of the SRT URL (phone encoders)').click();
    const png = await admin.getByRole('img', { name: 'QR code of the SRT URL' }).screenshot();
    const reader = await (await story.newContext()).newPage();
    await reader.addScriptTag({ path: jsQrPath });
    const decoded = await reader.evaluate(async (base64) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d')!;
      context.drawImage(image, 0, 0);
      const data = context.getImageData(0, 0, canvas.width, canvas.height);
      const jsQR = (window as unknown as { jsQR: (d: Uint8ClampedArray, w: number, h: number) => { data: string } | null }).jsQR;
      return jsQR(data.data, canvas.width, canvas.height)?.data;
    }, png.toString('base64'));
    expect(decoded).toBe(srt.url);
    // The long URL and the QR code fit a phone's width.
    await admin.setViewportSize({ width: PHONE_WIDTH, height: 844 });
    await noHorizontalScroll(admin);
  }, 120_000);

  it('the viewer page plays a show sent over SRT, and keeps playing when the SRT encoder dies and the backup takes over', async () => {
    const { system } = story;
    const show = await newShow(system, 'SRT on the viewer page', 2);
    const { ingest } = await system.admin('GET', `/api/admin/events/${show.eventId}`);
    const primary = publishSrtUrl(ingest.srt.url);
    runs.push(primary);
    const page = await (await story.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${system.urls.api}/?code=${show.codes[0]}`);
    await page.getByRole('button', { name: 'Watch' }).click();
    await page.locator('#live-state[data-state="live"]').waitFor({ timeout: 60_000 });
    const playedTo = () => page.evaluate(() => document.querySelector('video')!.currentTime);
    await until(async () => ((await playedTo()) > 2 ? true : undefined), 250);

    runs.push(publish(`${ingest.server}/${ingest.backup.streamKey}`, undefined, { gop: 25 }));
    await until(async () => {
      const { ingest: now } = await system.admin('GET', `/api/admin/events/${show.eventId}`);
      return now.encoders.some((encoder: { role: string; connected: boolean }) => encoder.role === 'backup' && encoder.connected) || undefined;
    }, 250);
    const watch = watchFailover(system, show.eventId, await watchShow(system, show.codes[1]!));
    await until(async () => watch.latest() || undefined, 100);
    const before = watch.discontinuities();
    const killedAt = Date.now();
    await primary.kill();
    // A dead SRT caller sends no close (UDP): its end is its silence, noticed after the failover's idle
    // timeout; from there viewers see the backup within 3 s, as after an RTMP encoder's closed connection.
    const toBackup = await watch.waitForSwitch(killedAt, before);
    expect(toBackup - DEFAULT_FAILOVER_SILENCE_MS).toBeLessThan(3_000);
    process.stdout.write(`SRT primary killed → backup in the live playlist: ${toBackup} ms (silence timeout ${DEFAULT_FAILOVER_SILENCE_MS} ms)\n`);
    const atSwitch = await playedTo();
    await until(async () => ((await playedTo()) > atSwitch + 4 ? true : undefined), 250);
    await watch.stop();
    expect(watch.refused).toEqual([]);
    expect(await page.evaluate(() => document.querySelector('video')!.paused)).toBe(false);
    await page.getByRole('button', { name: 'Stop watching' }).click();
  }, 150_000);
});
