/**
 * In Chromium against `npm start`'s program, the viewer's side of a publisher
 * that comes back with other encoder settings (issue 34, item 4): ffmpeg
 * publishes with `-preset veryfast` at 320x240, is killed (a dropped
 * connection), and publishes again inside the reconnect window with
 * `ultrafast` at 480x360, as a restarted OBS with another profile would. The
 * viewer's page plays on through the switch without a reload, an error or an
 * overlay, and shows the new picture size; after a clean stop the recording
 * holds both parts and a seek into the second one lands there, not at 0.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserStory, shot, watchConsole } from '../support/browser-story';
import { call } from '../../harness/http';
import { publish, until, type Run } from '../support/ingest';

/** What the page did, sampled in the page every 200 ms and on the video element's events. */
interface Timeline {
  samples: { at: number; time: number; width: number; overlay: string | null }[];
  /** The element lost its media (a player torn down and started again). */
  emptied: number[];
  mediaErrors: string[];
}

/** Starts recording the page's video: its time, picture width, and any overlay over it. */
async function recordTimeline(page: Page): Promise<void> {
  await page.evaluate(() => {
    const video = document.querySelector('video')!;
    const overlay = document.getElementById('overlay')!;
    const timeline: Timeline = { samples: [], emptied: [], mediaErrors: [] };
    (window as unknown as { timeline: Timeline }).timeline = timeline;
    video.addEventListener('emptied', () => timeline.emptied.push(performance.now()));
    video.addEventListener('error', () => timeline.mediaErrors.push(`${video.error?.code} ${video.error?.message}`));
    setInterval(() => {
      timeline.samples.push({
        at: performance.now(),
        time: video.currentTime,
        width: video.videoWidth,
        overlay: overlay.hidden ? null : (document.getElementById('overlay-title')?.textContent ?? ''),
      });
    }, 200);
  });
}

const timeline = (page: Page) => page.evaluate(() => (window as unknown as { timeline: Timeline }).timeline);
const video = (page: Page) =>
  page.evaluate(() => {
    const element = document.querySelector('video')!;
    return { time: element.currentTime, width: element.videoWidth, height: element.videoHeight, duration: element.duration };
  });

/** The video's time moves on past `from` + `by` seconds. */
async function advancesPast(page: Page, from: number, by = 1, timeout = 30_000): Promise<void> {
  await page.waitForFunction(([start, step]) => document.querySelector('video')!.currentTime > start! + step!, [from, by], { timeout });
}

/** Seconds of each part of a VOD playlist, the parts split at `#EXT-X-DISCONTINUITY`. */
function partSeconds(playlist: string): number[] {
  return playlist.split('#EXT-X-DISCONTINUITY').map((part) => [...part.matchAll(/#EXTINF:([\d.]+)/g)].reduce((sum, m) => sum + Number(m[1]), 0));
}

describe('web: a reconnect with other encoder settings', () => {
  // A reconnect window longer than the test: only the publisher's clean stop can end the show in time.
  const story = browserStory({ INGEST_PUBLISH_GRACE: '10m' });
  const publishers: Run[] = [];
  story.atClose(async () => {
    for (const publisher of publishers) if (publisher.running()) await publisher.kill();
  });
  const problems: string[] = [];
  /** Each heartbeat's playback report (`qoe`): the player's errors, fatal ones named. */
  const qualityReports: { page: string; qoe: { errors?: { count: number; lastFatal?: string } } }[] = [];
  /** The last VOD playlist (`#EXT-X-ENDLIST`) each page fetched as `index.m3u8`. */
  const vods = new Map<string, string>();
  let eventId: string;
  let replayCode: string;

  async function viewerPage(name: string, code: string): Promise<Page> {
    const page = await (await story.newContext({ viewport: { width: 960, height: 640 } })).newPage();
    // A playlist may be 404 in the moment between the publish and the ingest's first write.
    watchConsole(page, name, problems, () => [404]);
    page.on('request', (request) => {
      if (!request.url().endsWith('/heartbeat')) return;
      const qoe = request.postDataJSON()?.qoe;
      if (qoe) qualityReports.push({ page: name, qoe });
    });
    page.on('response', async (response) => {
      if (!new URL(response.url()).pathname.endsWith('/index.m3u8') || !response.ok()) return;
      const text = await response.text().catch(() => '');
      if (text.includes('#EXT-X-ENDLIST')) vods.set(name, text);
    });
    await page.goto(`${story.system.urls.api}/?code=${code}`);
    await page.getByRole('button', { name: 'Watch' }).click();
    return page;
  }

  const status = async () => (await call('GET', `${story.system.urls.api}/api/events/${eventId}/status`)).body.status as string;

  it('the live viewer plays on through the switch, without a reload or an error, and shows the new picture size', async () => {
    const { system } = story;
    const now = Date.now();
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Other settings',
      startsAt: new Date(now - 600_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
    });
    eventId = event.id;
    const { tokens } = await system.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 2 });
    replayCode = tokens[1].code;
    const { ingest } = await system.admin('GET', `/api/admin/events/${eventId}`);
    const rtmpUrl = `${ingest.server.replace(/\/+$/, '')}/${ingest.streamKey}`;

    // Keyframes every second in both: the ingest copies both parts, so the viewer gets the encoders' own SPS/PPS.
    const first = publish(rtmpUrl, undefined, { preset: 'veryfast', size: '320x240', gop: 25 });
    publishers.push(first);
    await until(async () => ((await status()) === 'live' ? true : undefined), 250);

    const viewer = await viewerPage('live viewer', tokens[0].code);
    // Playing is the overlay gone with time on the clock: hls.js seeks to its live start (time > 0) before the first
    // frame moves, and until then the page rightly says "Starting…".
    await viewer.waitForFunction(() => document.getElementById('overlay')!.hidden && document.querySelector('video')!.currentTime > 0, null, {
      timeout: 60_000,
    });
    await recordTimeline(viewer);
    await advancesPast(viewer, 0, 4);
    expect((await video(viewer)).width).toBe(320);
    await shot(viewer, 'reconnect-01-first-settings');

    // The encoder dies; the viewer plays what it has and runs dry at the live edge, as it does while OBS reconnects.
    await first.kill();
    await viewer.evaluate(() => new Promise((resolve) => document.querySelector('video')!.addEventListener('waiting', resolve, { once: true })));
    const dryAt = (await video(viewer)).time;
    expect(await status()).toBe('live');

    const second = publish(rtmpUrl, undefined, { preset: 'ultrafast', size: '480x360', gop: 25 });
    publishers.push(second);
    await viewer.waitForFunction(() => document.querySelector('video')!.videoWidth === 480, null, { timeout: 60_000 });
    const switchedAt = (await video(viewer)).time;
    await advancesPast(viewer, switchedAt, 5);
    expect(await video(viewer)).toMatchObject({ width: 480, height: 360 });
    await shot(viewer, 'reconnect-02-second-settings');

    // A clean stop: ffmpeg interrupted (SIGINT, as `q` or Ctrl-C) closes the stream (FCUnpublish, deleteStream) and
    // exits 255; the show ends at once and the live viewer plays to its end.
    expect((await second.stop()).code).toBe(255);
    await until(async () => ((await status()) === 'recording' ? true : undefined), 250);
    await viewer.getByRole('heading', { name: 'The broadcast has ended' }).waitFor({ timeout: 60_000 });

    // From the first frame to the end: the same player all along (no emptied element), time only moving on,
    // no overlay over the video until "The broadcast has ended", no media error.
    const seen = await timeline(viewer);
    const ended = seen.samples.findIndex((sample) => sample.overlay === 'The broadcast has ended');
    const live = seen.samples.slice(0, ended);
    const summary = JSON.stringify({ dryAt, switchedAt, ...seen, samples: live.filter((_, index) => index % 5 === 0) });
    expect(seen.emptied, summary).toEqual([]);
    expect(seen.mediaErrors, summary).toEqual([]);
    expect(live.filter((sample) => sample.overlay !== null).map((sample) => sample.overlay), summary).toEqual([]);
    const backwards = live.filter((sample, index) => index > 0 && sample.time < live[index - 1]!.time - 0.05);
    expect(backwards, summary).toEqual([]);
    // The new picture came after the old one, once: 320 up to the switch, 480 from it on.
    const widths = live.map((sample) => sample.width).filter((width, index, all) => index === 0 || width !== all[index - 1]);
    expect(widths, summary).toEqual([320, 480]);
    // How long the picture stood still around the reconnect, for the report.
    const frozen = live.reduce(
      (run, sample, index) => {
        const still = index > 0 && sample.time === live[index - 1]!.time ? run.current + (sample.at - live[index - 1]!.at) : 0;
        return { current: still, longest: Math.max(run.longest, still) };
      },
      { current: 0, longest: 0 },
    );
    console.log(`reconnect: ran dry at ${dryAt.toFixed(1)} s, 480 px from ${switchedAt.toFixed(1)} s, longest freeze ${(frozen.longest / 1000).toFixed(1)} s`);
  }, 240_000);

  it('the recording holds both parts, and a seek into the second lands there, not at 0', async () => {
    const replay = await viewerPage('replay viewer', replayCode);
    await replay.waitForFunction(() => document.getElementById('overlay')!.hidden && document.querySelector('video')!.currentTime > 0.5, null, { timeout: 60_000 });
    await recordTimeline(replay);
    expect(await replay.locator('#recording-note').isVisible()).toBe(true);
    expect((await video(replay)).width).toBe(320);

    // The whole show: the first part (at least the 4 s played live) and the second (at least the 5 s after the switch).
    const playlist = await until(() => vods.get('replay viewer'));
    const parts = partSeconds(playlist);
    expect(parts, playlist).toHaveLength(2);
    expect(parts[0]).toBeGreaterThan(4);
    expect(parts[1]).toBeGreaterThan(5);
    const { duration } = await video(replay);
    expect(Number.isFinite(duration)).toBe(true);
    expect(Math.abs(duration - (parts[0]! + parts[1]!)), `duration ${duration}, parts ${parts}`).toBeLessThan(1);

    // Into the middle of the second part: the video shows it at the new size and plays on from there.
    const middle = parts[0]! + parts[1]! / 2;
    await replay.evaluate((to) => void (document.querySelector('video')!.currentTime = to), middle);
    await advancesPast(replay, middle, 1);
    expect(await video(replay)).toMatchObject({ width: 480, height: 360 });
    await shot(replay, 'reconnect-03-replay-second-part');

    // Near the end, as the seek to 100 s: it stays there and plays to the end of the recording.
    const nearEnd = duration - 3;
    const seekedAt = (await timeline(replay)).samples.length;
    await replay.evaluate((to) => void (document.querySelector('video')!.currentTime = to), nearEnd);
    await advancesPast(replay, nearEnd, 1);
    expect((await timeline(replay)).emptied).toEqual([]);
    await replay.getByRole('heading', { name: 'End of the recording' }).waitFor({ timeout: 30_000 });
    const afterSeek = (await timeline(replay)).samples.slice(seekedAt + 2).filter((sample) => sample.overlay === null);
    expect(afterSeek.filter((sample) => sample.time < nearEnd - 1), JSON.stringify(afterSeek)).toEqual([]);

    expect(problems).toEqual([]);
    expect(qualityReports.filter((report) => report.qoe.errors?.lastFatal), JSON.stringify(qualityReports)).toEqual([]);
  }, 120_000);
});
