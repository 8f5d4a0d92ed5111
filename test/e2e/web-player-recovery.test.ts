/**
 * The viewer page in Chromium against `npm start`'s program, when the stream
 * breaks and when the page is reloaded (issue 34, item 5):
 * - segments whose audio is garbage (Playwright rewrites their AAC payload
 *   on the way to the page) make Chromium's decoder fail with
 *   PIPELINE_ERROR_DECODE; the page must play on by itself, without a reload,
 *   and never claim the running broadcast is "starting". Under hls.js and with
 *   the element's own HLS (no Media Source Extensions).
 * - a reload goes straight back to watching with the code saved on this
 *   device; a revoked code is forgotten, so the next reload asks for a code.
 */
import type { BrowserContext, Page, Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserStory, shot } from '../support/browser-story';
import { newShow, type Show } from '../../harness/show';

/** The ingest's MPEG-TS audio stream (ffmpeg's HLS muxer numbers video 0x100, audio 0x101). */
const AUDIO_PID = 0x101;

/**
 * The segment with the payload of its audio packets replaced by random bytes, PES headers (and so
 * timestamps) kept: hls.js still demuxes it, and the browser's AAC decoder refuses what it gets.
 */
function garbleAudio(segment: Buffer): Buffer {
  const out = Buffer.from(segment);
  for (let at = 0; at + 188 <= out.length; at += 188) {
    const pid = ((out[at + 1]! & 0x1f) << 8) | out[at + 2]!;
    const startsPes = (out[at + 1]! & 0x40) !== 0;
    const adaptation = (out[at + 3]! >> 4) & 3;
    if (pid !== AUDIO_PID || startsPes || adaptation === 2) continue;
    const payload = at + 4 + (adaptation === 3 ? 1 + out[at + 4]! : 0);
    for (let i = payload; i < at + 188; i += 1) out[i] = (Math.random() * 256) | 0;
  }
  return out;
}

/** Garbles the next `count` segments the page fetches once `start()` is called; `garbled()` counts them. */
async function breakSegments(page: Page, count: number) {
  let armed = false;
  let garbled = 0;
  await page.route(/\.ts(\?|$)/, async (route: Route) => {
    const response = await route.fetch();
    if (!armed || garbled >= count || response.status() !== 200) return route.fulfill({ response });
    garbled += 1;
    return route.fulfill({ response, body: garbleAudio(await response.body()) });
  });
  return { start: () => (armed = true), garbled: () => garbled };
}

/** Records the overlay's headings and the video element's errors from the page's start. */
const RECORDER = `
  window.__overlayTitles = [];
  window.__mediaErrors = [];
  document.addEventListener('DOMContentLoaded', () => {
    const title = document.getElementById('overlay-title');
    new MutationObserver(() => window.__overlayTitles.push(title.textContent)).observe(title, { childList: true, characterData: true, subtree: true });
    document.getElementById('video').addEventListener('error', (event) => window.__mediaErrors.push(event.target.error?.code + ': ' + event.target.error?.message));
  });
`;
const WITHOUT_MSE = 'delete window.MediaSource; delete window.ManagedMediaSource; delete window.WebKitMediaSource;';

/**
 * Waits until the video has played on for `seconds` in one run: not paused, its time moving forward
 * with the clock (a jump, back or forward, starts the run over).
 */
async function playsOn(page: Page, seconds: number, timeout: number): Promise<void> {
  await page.evaluate(() => delete (window as unknown as { __run?: unknown }).__run);
  await page.waitForFunction(
    (need) => {
      const video = document.querySelector('video')!;
      const now = performance.now();
      const self = window as unknown as { __run?: { since: number; from: number; last: number } };
      const run = (self.__run ??= { since: now, from: video.currentTime, last: video.currentTime });
      const jumped = video.currentTime < run.last || video.currentTime - run.last > 2;
      if (video.paused || jumped) Object.assign(run, { since: now, from: video.currentTime });
      run.last = video.currentTime;
      return now - run.since >= need * 1000 && video.currentTime - run.from >= need * 0.8;
    },
    seconds,
    { timeout, polling: 250 },
  );
}

describe('web: the player recovers from a broken stream, and a reload keeps the code', () => {
  const story = browserStory();
  let show: Show;

  beforeAll(async () => {
    show = await newShow(story.system, 'Broken stream', 2);
    story.publish(show.rtmpUrl);
  }, 60_000);

  async function watching(context: BrowserContext, code: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${story.system.urls.api}/?code=${code}`);
    await page.getByRole('button', { name: 'Watch' }).click();
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 1, null, { timeout: 60_000 });
    return page;
  }

  /**
   * Garbles `broken` segments once `code` plays, and waits for the page to play on. `reported`: the element's error
   * for them (`MediaError.code: message`). Returns the overlay's headings from then on, and how often the entry
   * playlist was loaded since (fresh loads of the source).
   */
  async function recoversFromDecodeErrors(context: BrowserContext, code: string, name: string, reported: RegExp, broken = 3) {
    await context.addInitScript(RECORDER);
    const page = await watching(context, code);
    const breaker = await breakSegments(page, broken);
    let entryLoads = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith('/index.m3u8')) entryLoads += 1;
    });
    // From here on the page plays: what the overlay said while it started is not this story's.
    await page.evaluate(() => {
      const recorded = window as unknown as { __sameDocument: boolean; __overlayTitles: string[]; __mediaErrors: string[] };
      recorded.__sameDocument = true;
      recorded.__overlayTitles = [];
      recorded.__mediaErrors = [];
    });
    breaker.start();
    // The browser's decoder refuses the garbled audio.
    await page.waitForFunction(() => (window as unknown as { __mediaErrors: string[] }).__mediaErrors.length > 0, null, { timeout: 60_000 });
    const errors = await page.evaluate(() => (window as unknown as { __mediaErrors: string[] }).__mediaErrors);
    expect(errors[0]).toMatch(reported);
    // Once every garbled segment went out, frames move again, for a while, on the same document: no reload.
    await expect.poll(() => breaker.garbled(), { timeout: 120_000 }).toBe(broken);
    await playsOn(page, 6, 90_000);
    await shot(page, `recovery-${name}`);
    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    const titles = await page.evaluate(() => (window as unknown as { __overlayTitles: string[] }).__overlayTitles);
    // The broadcast was running all along: the viewer is never told it is starting.
    expect(titles.filter((title) => /Starting|Waiting for the stream/.test(title))).toEqual([]);
    expect(await page.locator('#overlay').isHidden()).toBe(true);
    await page.getByRole('button', { name: 'Stop watching' }).click();
    return { titles, entryLoads };
  }

  it('hls.js: plays on after segments the decoder refuses', async () => {
    const context = await story.newContext({ viewport: { width: 1280, height: 800 } });
    await recoversFromDecodeErrors(context, show.codes[0]!, 'hls', /^3: .*PIPELINE_ERROR_DECODE/);
  }, 180_000);

  it('hls.js: a stream broken for longer than its own recovery takes is loaded afresh, and the page says what is going on', async () => {
    const context = await story.newContext({ viewport: { width: 1280, height: 800 } });
    const [token] = (await story.system.admin('POST', `/api/admin/events/${show.eventId}/tokens`, { count: 1 })).tokens;
    const { titles, entryLoads } = await recoversFromDecodeErrors(context, token.code, 'hls-long', /^3: .*PIPELINE_ERROR_DECODE/, 10);
    expect(titles).toContain('Playback problem');
    expect(entryLoads).toBeGreaterThan(0);
  }, 240_000);

  it('the element’s own HLS (no Media Source Extensions): loads the source again after a segment it cannot read', async () => {
    const context = await story.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(WITHOUT_MSE);
    // Chromium's own HLS demuxer refuses the segment before decoding, as "not supported" (4), after playing for a while.
    await recoversFromDecodeErrors(context, show.codes[1]!, 'native', /^4: .*DEMUXER_ERROR_COULD_NOT_PARSE/);
  }, 180_000);

  it('a reload plays again without asking for the code; a revoked code is forgotten', async () => {
    const context = await story.newContext({ viewport: { width: 1280, height: 800 } });
    const [token] = (await story.system.admin('POST', `/api/admin/events/${show.eventId}/tokens`, { count: 1 })).tokens;
    const code: string = token.code;
    const page = await watching(context, code);
    const saved = await page.evaluate(() => Object.entries(localStorage).filter(([key]) => key.startsWith('stagedoor.code.')));
    expect(saved).toHaveLength(1);
    expect(JSON.parse(saved[0]![1])).toMatchObject({ eventId: show.eventId, code });
    expect(Date.parse(JSON.parse(saved[0]![1]).expiresAt)).toBeGreaterThan(Date.now());

    // The page of before released its session on unload; the reload claims a new one with the saved code.
    await page.reload();
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 1, null, { timeout: 60_000 });
    expect(await page.locator('#entry').isHidden()).toBe(true);
    await playsOn(page, 2, 30_000);
    await shot(page, 'recovery-reloaded');

    // Revoked while watching: playback stops, and the code is no longer kept.
    await story.system.admin('PATCH', `/api/admin/tokens/${token.id}/revoke`);
    await page.getByRole('heading', { name: 'Access revoked' }).waitFor({ timeout: 60_000 });
    expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('stagedoor.code.')))).toEqual([]);
    await page.reload();
    await page.getByRole('heading', { name: 'Watch your event' }).waitFor();
    expect(await page.getByLabel('Access code').inputValue()).toBe('');
    expect(await page.locator('#event').isHidden()).toBe(true);
  }, 180_000);

  it('a code revoked while the page was closed is refused at the reload, said so, and forgotten', async () => {
    const context = await story.newContext({ viewport: { width: 1280, height: 800 } });
    const [code] = (await story.system.admin('POST', `/api/admin/events/${show.eventId}/tokens`, { count: 1 })).tokens;
    const page = await watching(context, code.code);
    await page.close();
    await story.system.admin('PATCH', `/api/admin/tokens/${code.id}/revoke`);
    const again = await context.newPage();
    await again.goto(story.system.urls.api!);
    await expect.poll(() => again.locator('#code-error').textContent(), { timeout: 30_000 }).toMatch(/has been revoked/);
    expect(await again.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('stagedoor.code.')))).toEqual([]);
  }, 120_000);
});
