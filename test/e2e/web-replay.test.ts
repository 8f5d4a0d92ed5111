/**
 * In Chromium against `npm start`'s program: a viewer watching live
 * sees the show end (ENDLIST) at an intermission and the second part start,
 * on the same page without a reload, and so does the console's preview; at the
 * intermission the viewer is not counted as watching, and the events list
 * says what is on air. A viewer who arrives after the end plays the recording
 * (labelled as one, with the show's date) from its beginning, can seek in it,
 * and at its end keeps the player with "Watch again".
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserStory, shot, shotsAtBothWidths, signIn, videoAdvances, type BrowserStory } from '../support/browser-story';
import { publish, type Run } from '../support/ingest';
import { noSeriousAccessibilityFindings } from '../support/axe';

const currentTime = (page: Page) => page.evaluate(() => document.querySelector('video')!.currentTime);

async function openWithCode(story: BrowserStory, api: string, code: string): Promise<Page> {
  const page = await (await story.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(`${api}/?code=${code}`);
  await page.getByRole('button', { name: 'Watch' }).click();
  return page;
}

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 60_000, interval: 250 });

/** The video plays: its time moves on and no overlay covers it. */
async function playing(page: Page): Promise<void> {
  await page.waitForFunction(() => document.getElementById('overlay')!.hidden, null, { timeout: 60_000 });
  const before = await currentTime(page);
  await page.waitForFunction((from) => document.querySelector('video')!.currentTime > from + 1, before, { timeout: 30_000 });
}

describe('web: live → ended → live, and the recording after the show', () => {
  const story = browserStory();
  const publishers: Run[] = [];
  story.atClose(async () => {
    for (const publisher of publishers) if (publisher.running()) await publisher.kill();
  });

  it('a live viewer goes through the intermission without a reload; a late viewer plays the recording from the start and seeks', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const now = Date.now();
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Two parts',
      startsAt: new Date(now - 3_600_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
    });
    const { ingest } = await system.admin('GET', `/api/admin/events/${event.id}`);
    const { tokens } = await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 2 });
    const rtmpUrl = `${ingest.server}/${ingest.streamKey}`;

    // The organiser watches the preview on the event page, and the events list in a second tab.
    const admin = await story.adminPage();
    await admin.goto(`${api}/admin/#/events/${event.id}`);
    await signIn(admin, '', system.adminPassword);
    await admin.getByRole('heading', { name: 'Two parts' }).waitFor();
    const list = await admin.context().newPage();
    await list.setViewportSize({ width: 1280, height: 800 });
    await list.goto(`${api}/admin/#/`);
    const onAir = async () => {
      await list.reload();
      return list.locator('tr', { hasText: 'Two parts' }).locator('.event-status').textContent();
    };
    const watching = () => admin.locator('.sessions-count').textContent();

    const live = await openWithCode(story, api, tokens[0].code);
    await live.getByRole('heading', { name: 'Starting soon' }).waitFor();
    await live.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    expect(await onAir()).toBe('Not started');

    // Part 1: the viewer plays it live; the clean stop ends it and the page says so.
    const first = publish(rtmpUrl, 20);
    publishers.push(first);
    await playing(live);
    expect(await live.locator('video').getAttribute('aria-label')).toBe('Live stream of Two parts');
    expect(await live.locator('#recording-note').isHidden()).toBe(true);
    await admin.getByRole('button', { name: 'Start preview' }).click();
    await videoAdvances(admin, '.preview-video');
    await poll(() => admin.locator('.preview-panel .preview-state').textContent()).toMatch(/On air/);
    await poll(onAir).toBe('Live');
    await poll(watching).toBe('About 1 device watching now (estimate).');
    await shot(live, 'replay-01-live');
    expect((await first.done).code).toBe(0);
    await live.getByRole('heading', { name: 'The broadcast has ended' }).waitFor({ timeout: 60_000 });
    // The player stays (its last frame), with a way to watch the recording again.
    expect(await live.evaluate(() => document.querySelector('video')!.readyState)).toBeGreaterThan(0);
    await live.getByRole('button', { name: 'Watch again' }).waitFor();
    await shotsAtBothWidths(live, 'replay-02-intermission');
    await noSeriousAccessibilityFindings(live, 'viewer: broadcast ended');
    await poll(() => admin.locator('.preview-freshness').textContent()).toMatch(/^Recording: the broadcast has ended/);
    // A device on the "ended" screen is not watching anything: not counted, not in the list.
    await poll(watching).toBe('Nobody is watching right now.');
    expect(await admin.locator('tr[data-session-code]').count()).toBe(0);
    await poll(onAir).toBe('Recording');
    await shotsAtBothWidths(admin, 'replay-02-console-intermission');
    await noSeriousAccessibilityFindings(list, 'events list with on-air states');

    // Part 2: the same page picks it up by itself, and so does the console's preview.
    const second = publish(rtmpUrl, 20);
    publishers.push(second);
    await playing(live);
    expect(await live.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await shot(live, 'replay-03-live-again');
    await poll(() => admin.locator('.preview-freshness').textContent()).toMatch(/^Last new segment \d+ s ago/);
    await poll(() => admin.locator('.preview-panel .preview-state').textContent()).toMatch(/On air/);
    await videoAdvances(admin, '.preview-video');
    await poll(watching).toBe('About 1 device watching now (estimate).');
    await shotsAtBothWidths(admin, 'replay-03-console-live-again');
    expect((await second.done).code).toBe(0);
    await live.getByRole('heading', { name: 'The broadcast has ended' }).waitFor({ timeout: 60_000 });

    // After the show: a late viewer starts at the beginning of the recording, which has a finite length to seek in.
    const late = await openWithCode(story, api, tokens[1].code);
    await playing(late);
    expect(await currentTime(late)).toBeLessThan(15);
    // It says it is a recording, of which show and when.
    const recordedOn = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' }).format(new Date(event.startsAt));
    expect(await late.locator('#recording-note').textContent()).toBe(`Recording · ${recordedOn}`);
    expect(await late.locator('video').getAttribute('aria-label')).toBe(`Recording of Two parts, ${recordedOn}`);
    const duration = await late.evaluate(() => document.querySelector('video')!.duration);
    expect(duration).toBeGreaterThan(30);
    expect(Number.isFinite(duration)).toBe(true);
    await late.evaluate((to) => {
      document.querySelector('video')!.currentTime = to;
    }, duration - 8);
    await late.waitForFunction((to) => document.querySelector('video')!.currentTime > to, duration - 7, { timeout: 30_000 });
    await shot(late, 'replay-04-recording-seeked');
    await noSeriousAccessibilityFindings(late, 'viewer: recording playing');

    // At its end the player stays, with "Watch again"; the device no longer counts as watching.
    await late.getByRole('heading', { name: 'End of the recording' }).waitFor({ timeout: 30_000 });
    expect(await late.evaluate(() => document.querySelector('video')!.readyState)).toBeGreaterThan(0);
    await shotsAtBothWidths(late, 'replay-05-recording-end');
    await noSeriousAccessibilityFindings(late, 'viewer: end of the recording');
    await poll(watching).toBe('Nobody is watching right now.');
    await late.getByRole('button', { name: 'Watch again' }).click();
    await playing(late);
    expect(await currentTime(late)).toBeLessThan(15);
    await poll(watching).toBe('About 1 device watching now (estimate).');
  }, 300_000);
});
