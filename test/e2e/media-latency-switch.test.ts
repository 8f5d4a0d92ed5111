/**
 * The switch a streamer makes on show night, against `npm start`'s program in
 * Chromium: first OBS at its defaults (keyframes 250 frames apart), then, after
 * a stop, keyframes every second (with OBS's longer first GOP) on the same
 * event. What decides latency is asserted, not measured seconds: the target
 * duration of the live playlist `index.m3u8` names (what Safari, AirPlay and
 * TVs hold three of) and the distance the web player holds back. By default
 * the ingest re-encodes the first publish; with re-encoding off the first is
 * copied (8 s segments), and the second must not stay pinned to them.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserStory } from '../support/browser-story';
import { publish, until, type Run } from '../support/ingest';
import { newShow, showStatus, watchShow, type ShowViewer } from '../../harness/show';

/** OBS with Keyframe Interval 1 s: its first GOP is 2 s (25 fps here). */
const KEYFRAMES_EVERY_SECOND = 'eq(n,0)+gte(n,50)*eq(mod(n,25),0)';

/** The live playlist the multivariant `index.m3u8` names, and its target duration. */
async function nativePath(viewer: ShowViewer): Promise<{ name: string; target: number } | undefined> {
  const entry = (await viewer.entry()) ?? '';
  const name = entry.split('\n').find((line) => line.endsWith('.m3u8'));
  if (!entry.includes('#EXT-X-STREAM-INF') || !name) return undefined;
  const target = /#EXT-X-TARGETDURATION:(\d+)/.exec((await viewer.playlist()) ?? '')?.[1];
  return target ? { name, target: Number(target) } : undefined;
}

/** Seconds the viewer page's player holds behind the live edge, once it plays. */
const holdBack = (page: Page) =>
  until(async () => {
    const seconds = await page.evaluate(() => {
      const video = document.querySelector('video')!;
      return document.getElementById('overlay')!.hidden && video.currentTime > 0 ? video.dataset.liveSyncSeconds : undefined;
    });
    return seconds === undefined ? undefined : Number(seconds);
  }, 250);

interface FirstPublish {
  /** The publisher's keyframes. */
  keyframes: { gop: number };
  /** The target duration of the live playlist then, and the range the player's hold-back is in. */
  target: number;
  holdBack: [number, number];
  /** What the event page says about the encoder then. */
  report: { reencoding: boolean; warning: RegExp };
}

function switchStory(env: Record<string, string>, first: FirstPublish) {
  const story = browserStory(env);
  const publishers: Run[] = [];
  story.atClose(() => Promise.all(publishers.filter((p) => p.running()).map((p) => p.stop())));

  return async () => {
    const show = await newShow(story.system, 'Keyframe switch', 2);
    const viewer = await watchShow(story.system, show.codes[0]!);
    const page = await (await story.newContext({ viewport: { width: 1280, height: 800 } })).newPage();

    const defaults = publish(show.rtmpUrl, undefined, first.keyframes);
    publishers.push(defaults);
    await until(async () => (await showStatus(story.system, show.eventId)) === 'live', 250);
    await page.goto(`${story.system.urls.api}/?code=${show.codes[1]}`);
    await page.getByRole('button', { name: 'Watch' }).click();
    const before = await holdBack(page);
    expect(before).toBeGreaterThanOrEqual(first.holdBack[0]);
    expect(before).toBeLessThanOrEqual(first.holdBack[1]);
    const firstPath = await until(() => nativePath(viewer), 250);
    expect(firstPath.target).toBe(first.target);
    const { ingest } = await until(async () => {
      const details = await story.system.admin('GET', `/api/admin/events/${show.eventId}`);
      return details.ingest.video ? details : undefined;
    }, 500);
    expect(ingest.video.reencoding).toBe(first.report.reencoding);
    expect(ingest.keyframeWarning).toMatch(first.report.warning);

    // The streamer stops, sets the keyframe interval, and starts again.
    await defaults.stop();
    await page.getByText('The broadcast has ended').waitFor({ timeout: 60_000 });
    const fixed = publish(show.rtmpUrl, undefined, { keyframesAt: KEYFRAMES_EVERY_SECOND });
    publishers.push(fixed);
    await until(async () => (await showStatus(story.system, show.eventId)) === 'live', 250);
    // The page follows the event back to live by itself; its player holds two 1 s segments back.
    const after = await holdBack(page);
    expect(after).toBeGreaterThanOrEqual(1.9);
    expect(after).toBeLessThanOrEqual(2.2);
    const native = await until(async () => {
      const path = await nativePath(viewer);
      return path && /#EXTINF/.test((await viewer.playlist()) ?? '') ? path : undefined;
    }, 250);
    expect(native).toEqual({ name: 'index-live1.m3u8', target: 1 });
    return { firstPath, viewer };
  };
}

describe('keyint 250, then keyframes every second, on one event (re-encoding on, the default)', () => {
  const run = switchStory({}, {
    keyframes: { gop: 250 },
    target: 1,
    holdBack: [1.9, 2.2],
    report: { reencoding: true, warning: /^Re-encoding: keyframes every 10 s\./ },
  });
  it('keeps a 1 s target duration and a 2 s hold-back through both publishes', run, 240_000);
});

describe('keyint 250, then keyframes every second, on one event (re-encoding off)', () => {
  const run = switchStory({ INGEST_HLS_REENCODE: 'off' }, {
    keyframes: { gop: 200 },
    target: 8,
    holdBack: [15.9, 16.7],
    report: { reencoding: false, warning: /^Keyframes every 8 s, and this ingest does not re-encode/ },
  });
  it('copies 8 s segments at first; the next publish gets a 1 s playlist, not pinned to 8, and the player follows it', async () => {
    const { firstPath, viewer } = await run();
    expect(firstPath.name).toBe('index-live8.m3u8');
    // Players still on the 8 s playlist were told it ended, and come back through index.m3u8.
    expect(await viewer.get(firstPath.name)).toMatch(/#EXT-X-ENDLIST\s*$/);
  }, 240_000);
});
