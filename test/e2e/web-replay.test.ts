/**
 * In Chromium against `npm start`'s program: a viewer watching live
 * sees the show end (ENDLIST) at an intermission and the second part start,
 * on the same page without a reload; a viewer who arrives after the end plays
 * the recording from its beginning and can seek in it.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserStory, shot, type BrowserStory } from '../support/browser-story';
import { publish, type Run } from '../support/ingest';

const currentTime = (page: Page) => page.evaluate(() => document.querySelector('video')!.currentTime);

async function openWithCode(story: BrowserStory, api: string, code: string): Promise<Page> {
  const page = await (await story.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  await page.goto(`${api}/?code=${code}`);
  await page.getByRole('button', { name: 'Watch' }).click();
  return page;
}

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

    const live = await openWithCode(story, api, tokens[0].code);
    await live.getByRole('heading', { name: 'Starting soon' }).waitFor();
    await live.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));

    // Part 1: the viewer plays it live; the clean stop ends it and the page says so.
    const first = publish(rtmpUrl, 20);
    publishers.push(first);
    await playing(live);
    await shot(live, 'replay-01-live');
    expect((await first.done).code).toBe(0);
    await live.getByRole('heading', { name: 'The broadcast has ended' }).waitFor({ timeout: 60_000 });
    await shot(live, 'replay-02-intermission');

    // Part 2: the same page picks it up by itself.
    const second = publish(rtmpUrl, 20);
    publishers.push(second);
    await playing(live);
    expect(await live.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await shot(live, 'replay-03-live-again');
    expect((await second.done).code).toBe(0);
    await live.getByRole('heading', { name: 'The broadcast has ended' }).waitFor({ timeout: 60_000 });

    // After the show: a late viewer starts at the beginning of the recording, which has a finite length to seek in.
    const late = await openWithCode(story, api, tokens[1].code);
    await playing(late);
    expect(await currentTime(late)).toBeLessThan(15);
    const duration = await late.evaluate(() => document.querySelector('video')!.duration);
    expect(duration).toBeGreaterThan(30);
    expect(Number.isFinite(duration)).toBe(true);
    await late.evaluate((to) => {
      document.querySelector('video')!.currentTime = to;
    }, duration - 8);
    await late.waitForFunction((to) => document.querySelector('video')!.currentTime > to, duration - 7, { timeout: 30_000 });
    await shot(late, 'replay-04-recording-seeked');
  }, 240_000);
});
