/**
 * The viewer page in a browser without Media Source Extensions (as Safari on
 * iPhones before iOS 17.1): an init script deletes `MediaSource` and
 * `ManagedMediaSource`, so hls.js cannot run and the page hands the session's
 * long-lived `playbackUrl` to the `<video>` element itself. Debian's Chromium
 * answers `canPlayType('application/vnd.apple.mpegurl')` with "maybe" and
 * plays HLS on its own; every media request is checked to carry no header.
 * Also: "watch on another player" with its QR code, `?code=` leaving the
 * address bar, and the revoke overlay. A second context stands in for Safari
 * with ManagedMediaSource (an alias of MediaSource) to exercise the page's
 * AirPlay path: the HLS alternative `<source>` beside hls.js's blob and, when
 * remote playback starts, the switch to the long-lived URL. Chromium has no
 * AirPlay, so the `connecting` event is dispatched by the test; WebKit's own
 * behaviour is not exercised here. Screenshots go to test-artifacts/web/.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../harness/browser';
import { publish, shot, type Publisher } from '../support/browser-story';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { viewerOfNewEvent } from '../../harness/viewer-scenario';

const MMS_STAND_IN = 'window.ManagedMediaSource = window.MediaSource;';
const WITHOUT_MSE = `
  delete window.MediaSource;
  delete window.ManagedMediaSource;
  delete window.WebKitMediaSource;
`;

let system: LocalSystem;
let browser: Browser;
let context: BrowserContext;
let publisher: Publisher | undefined;
let eventId: string;
let codes: { id: string; code: string }[];

/** Media requests the page made: URL and whether any carried an Authorization header. */
const mediaRequests: { url: string; authorization: boolean }[] = [];

beforeAll(async () => {
  system = await startLocalSystem();
  // An event with its stream running and a spare code for the browser.
  const story = await viewerOfNewEvent(system, 'Native playback');
  eventId = story.eventId;
  codes = (await system.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 2, label: 'browser' })).tokens;
  publisher = publish(`${system.urls.rtmp}/${story.ingest.streamKey}`);
  const headers = { authorization: `Bearer ${story.playbackToken}` };
  while ((await fetch(story.manifestUrl, { headers })).status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));

  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(WITHOUT_MSE);
  context.on('request', (request) => {
    if (!request.url().startsWith(system.urls.media!)) return;
    mediaRequests.push({ url: request.url(), authorization: 'authorization' in request.headers() });
  });
}, 120_000);

afterAll(async () => {
  publisher?.child.kill('SIGKILL');
  await context?.close().catch(() => undefined);
  await browser?.close();
  await system?.stop();
});

describe('viewer page without Media Source Extensions', () => {
  it('plays the long-lived playbackUrl natively, offers it for another player, and shows the revoke overlay', async () => {
    const page = await context.newPage();
    const code = codes[0]!;
    await page.goto(`${system.urls.api}/?code=${code.code}`);

    // The code came from the link: it fills the field and leaves the address bar (and the history entry).
    expect(await page.getByLabel('Access code').inputValue()).toBe(code.code);
    expect(page.url()).toBe(`${system.urls.api}/`);
    expect(await page.evaluate(() => ({ mse: 'MediaSource' in window, mms: 'ManagedMediaSource' in window }))).toEqual({
      mse: false,
      mms: false,
    });

    await page.getByRole('button', { name: 'Watch' }).click();
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 1, null, { timeout: 60_000 });
    const before = await page.evaluate(() => document.querySelector('video')!.currentTime);
    await page.waitForFunction((t) => document.querySelector('video')!.currentTime > t + 1, before, { timeout: 30_000 });
    expect(await page.locator('#overlay').isHidden()).toBe(true);

    // The element itself plays the long-lived URL; every media request went out without a header.
    const source = await page.evaluate(() => document.querySelector('video')!.currentSrc);
    expect(source).toMatch(new RegExp(`^${system.urls.media}/streams/${eventId}/~[^/]+/index\\.m3u8$`));
    expect(mediaRequests.length).toBeGreaterThan(2);
    expect(mediaRequests.filter((request) => request.authorization)).toEqual([]);
    expect(mediaRequests.every((request) => request.url.includes('/~'))).toBe(true);
    expect(mediaRequests.some((request) => request.url.endsWith('.ts'))).toBe(true);
    await shot(page, 'native-01-playing');

    // "Watch on another player": the same URL as text and as a QR code, with what ending the session does.
    await page.getByRole('button', { name: 'Watch on another player' }).click();
    await expect.poll(() => page.getByLabel('Playback link', { exact: true }).inputValue()).toBe(source);
    expect(await page.locator('#other-player-qr svg path').getAttribute('d')).toMatch(/^M\d/);
    expect((await page.locator('#other-player').textContent())!.replace(/\s+/g, ' ')).toMatch(/closing this page or using your code on another device stops it/);
    await shot(page, 'native-02-other-player');

    // The admin revokes the code: the page learns it (a failing video or the heartbeat) and says why.
    await system.admin('PATCH', `/api/admin/tokens/${code.id}/revoke`);
    await expect.poll(async () => (await fetch(source)).status).toBe(403);
    await page.getByRole('heading', { name: 'Access revoked' }).waitFor({ timeout: 45_000 });
    expect(await page.locator('#other-player-toggle').isHidden()).toBe(true);
    expect(await page.locator('#other-player').isHidden()).toBe(true);
    await shot(page, 'native-03-revoked');
  }, 150_000);

  it('under ManagedMediaSource offers AirPlay an HLS source and switches to the long-lived URL when remote playback starts', async () => {
    const safariLike = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await safariLike.addInitScript(MMS_STAND_IN);
    const requests: { url: string; authorization: boolean }[] = [];
    safariLike.on('request', (request) => {
      if (request.url().startsWith(system.urls.media!)) requests.push({ url: request.url(), authorization: 'authorization' in request.headers() });
    });
    try {
      const page = await safariLike.newPage();
      await page.goto(`${system.urls.api}/?code=${codes[1]!.code}`);
      await page.getByRole('button', { name: 'Watch' }).click();
      await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 1, null, { timeout: 60_000 });

      // hls.js plays with the Bearer header through its blob <source>; the HLS alternative follows it.
      const element = await page.evaluate(() => {
        const video = document.querySelector('video')!;
        return {
          src: video.getAttribute('src'),
          disableRemotePlayback: video.disableRemotePlayback,
          sources: [...video.querySelectorAll('source')].map((source) => ({ type: source.type, src: source.src })),
        };
      });
      expect(element.src).toBeNull();
      expect(element.disableRemotePlayback).toBe(false);
      expect(element.sources).toHaveLength(2);
      expect(element.sources[0]!.src).toMatch(/^blob:/);
      expect(element.sources[1]!.type).toBe('application/vnd.apple.mpegurl');
      expect(element.sources[1]!.src).toMatch(new RegExp(`^${system.urls.media}/streams/${eventId}/~[^/]+/index\\.m3u8$`));
      expect(requests.length).toBeGreaterThan(2);
      expect(requests.every((request) => request.authorization && !request.url.includes('/~'))).toBe(true);

      // AirPlay starts: the element now plays the long-lived URL itself, header-less.
      await page.evaluate(() => document.querySelector('video')!.remote.dispatchEvent(new Event('connecting')));
      await page.waitForFunction(() => document.querySelector('video')!.getAttribute('src')?.includes('/~'), null, { timeout: 30_000 });
      // Counted from the switch on: hls.js may still finish a Bearer request it began while the long-lived URL was being fetched.
      const before = requests.length;
      const switched = await page.evaluate(() => document.querySelector('video')!.currentTime);
      await page.waitForFunction((t) => document.querySelector('video')!.currentTime > t + 1, switched, { timeout: 60_000 });
      const source = await page.evaluate(() => document.querySelector('video')!.getAttribute('src')!);
      expect(source).not.toBe(element.sources[1]!.src);
      expect(await page.evaluate(() => document.querySelectorAll('video source').length)).toBe(0);
      const after = requests.slice(before);
      expect(after.length).toBeGreaterThan(0);
      expect(after.every((request) => !request.authorization && request.url.includes('/~'))).toBe(true);
      await shot(page, 'native-04-after-airplay-switch');
    } finally {
      await safariLike.close();
    }
  }, 150_000);
});
