/**
 * In Chromium against `npm start`'s program: the viewer's LIVE badge and its
 * "Back to live" after pausing or seeking behind the edge; the event page's
 * encoder report (keyframe warning, a refused publish) and OBS output
 * settings. Screenshots of these views at 390 px and 1280 px go to
 * test-artifacts/web/.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { browserStory, noHorizontalScroll, shot } from '../support/browser-story';
import { publish, until, type Run } from '../support/ingest';

describe('web: live edge and encoder report', () => {
  const story = browserStory();
  let publisher: Run | undefined;
  story.atClose(async () => {
    if (publisher?.running()) await publisher.stop();
  });
  let eventId: string;
  let code: string;

  beforeAll(async () => {
    const now = Date.now();
    const event = await story.system.admin('POST', '/api/admin/events', {
      title: 'Live edge',
      startsAt: new Date(now - 600_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
    });
    eventId = event.id;
    code = (await story.system.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 1 })).tokens[0].code;
    const { ingest } = await story.system.admin('GET', `/api/admin/events/${eventId}`);
    await publish(`${ingest.server}/${eventId}?token=not-the-key`, 1).done;
    // 2 s keyframes against 1 s segments: plays, with a warning on the event page.
    publisher = publish(`${ingest.server}/${ingest.streamKey}`, undefined, { gop: 50 });
    await until(async () => ((await story.system.admin('GET', `/api/admin/events/${eventId}`)).ingest.video ? true : undefined), 500);
  }, 120_000);

  const newPage = async (width: number, height: number) => {
    const context = await story.newContext({ viewport: { width, height }, ...(width < 600 ? { isMobile: true, hasTouch: true } : {}) });
    return context.newPage();
  };

  it('shows LIVE at the edge and Back to live after pausing or seeking back', async () => {
    const viewer = await newPage(1280, 800);
    await viewer.goto(`${story.system.urls.api}/?code=${code}`);
    await viewer.getByRole('button', { name: 'Watch' }).click();
    const badge = viewer.locator('#live-state');
    await badge.and(viewer.locator('[data-state="live"]')).waitFor({ timeout: 60_000 });
    expect(await badge.textContent()).toBe('LIVE');
    expect(await badge.isDisabled()).toBe(true);
    await shot(viewer, 'live-01-viewer-live-1280');

    await viewer.evaluate(() => document.querySelector('video')!.pause());
    const back = viewer.getByRole('button', { name: 'Back to live' });
    await back.waitFor();
    await back.click();
    await badge.and(viewer.locator('[data-state="live"]')).waitFor();
    expect(await viewer.evaluate(() => document.querySelector('video')!.paused)).toBe(false);

    // Playing on, sought back as far as the playlist allows (6 segments of 2 s).
    await until(() => viewer.evaluate(() => {
      const video = document.querySelector('video')!;
      return video.seekable.length > 0 && video.currentTime - video.seekable.start(0) > 7 ? true : undefined;
    }), 250);
    const sought = await viewer.evaluate(() => {
      const video = document.querySelector('video')!;
      const from = video.currentTime;
      video.currentTime = video.seekable.start(0);
      return { from, to: video.currentTime, end: video.seekable.end(0) };
    });
    await back.waitFor({ timeout: 15_000 }).catch((error) => {
      throw new Error(`no Back to live after seeking ${JSON.stringify(sought)}: ${error}`);
    });
    await shot(viewer, 'live-02-viewer-behind-1280');
    await back.click();
    await badge.and(viewer.locator('[data-state="live"]')).waitFor();
    // The viewer's times name their time zone.
    expect(await viewer.locator('#event-when').textContent()).toMatch(/(UTC|GMT)/);
    await viewer.getByRole('button', { name: 'Stop watching' }).click();
  }, 120_000);

  it('the phone viewer shows the badge without sideways scrolling', async () => {
    const phone = await newPage(390, 844);
    await phone.goto(`${story.system.urls.api}/?code=${code}`);
    await phone.getByRole('button', { name: 'Watch' }).click();
    await phone.locator('#live-state[data-state="live"]').waitFor({ timeout: 60_000 });
    await noHorizontalScroll(phone);
    await shot(phone, 'live-03-viewer-live-390');
    await phone.getByRole('button', { name: 'Stop watching' }).click();
  }, 120_000);

  it('the event page shows the keyframe warning, the refused publish and the OBS output settings, at 1280 and 390 px', async () => {
    const admin = await newPage(1280, 900);
    await admin.goto(`${story.system.urls.api}/admin/`);
    await admin.getByLabel('Password').fill(story.system.adminPassword);
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await admin.getByRole('heading', { name: 'Events' }).waitFor();
    await admin.goto(`${story.system.urls.api}/admin/#/events/${eventId}`);
    await admin.getByRole('heading', { name: 'Encoders', exact: true }).waitFor();
    expect(await admin.locator('[data-key="keyframe-warning"]').textContent()).toMatch(/^Re-encoding: keyframes every 2 s\. .* viewers stay about 3 s behind live/);
    expect(await admin.locator('table.refusals').textContent()).toContain('Wrong key');
    expect(await admin.locator('.obs-output').textContent()).toContain('Keyframe Interval 1 s');
    await shot(admin, 'live-04-admin-event-1280');

    await admin.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(admin);
    // Codes as cards: the Status and the Revoke button are on screen, labelled.
    const row = admin.locator(`tr[data-code="${code}"]`);
    const revoke = admin.getByRole('button', { name: `Revoke code ${code}` });
    expect((await revoke.boundingBox())!.x + (await revoke.boundingBox())!.width).toBeLessThanOrEqual(390);
    expect(await row.locator('td[data-label="Status"]').isVisible()).toBe(true);
    await shot(admin, 'live-05-admin-event-390');
    await admin.goto(`${story.system.urls.api}/admin/#/`);
    await admin.getByRole('heading', { name: 'Events' }).waitFor();
    await admin.locator('td[data-label="State"]').first().waitFor();
    await noHorizontalScroll(admin);
    await shot(admin, 'live-06-admin-dashboard-390');
  }, 120_000);
});
