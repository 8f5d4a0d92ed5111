/**
 * The console's SRT settings in Chromium against `npm start`: the complete URL, the stream id and the
 * passphrase as fields with Copy, the latency line, and a QR code that reads back as the URL.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { browserStory, noHorizontalScroll, PHONE_WIDTH, signInAsOwner } from '../support/browser-story';

const jsQrPath = createRequire(import.meta.url).resolve('jsqr/dist/jsQR.js');

describe('web: SRT settings', () => {
  const story = browserStory();

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
});
