/**
 * The audience of a show, in real browsers against `npm start`'s program: ffmpeg publishes, five
 * viewers in Chromium play for two minutes, one of them on a network that keeps dropping to a
 * trickle (Chrome's own throttling, through CDP). Their players report how playback went with each
 * heartbeat; the table's stream feeds the audience recorder. Then the audience series counts five
 * viewers, the throttled ticket is listed under "tickets with trouble" (in the console and its CSV),
 * and the charts render: screenshots at 1280 and 390 px go to test-artifacts/web/.
 */
import type { CDPSession, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { noSeriousAccessibilityFindings } from '../support/axe';
import { artifacts } from '../../harness/browser';
import { browserStory, shotsAtBothWidths, signIn, videoAdvances, watchConsole, type BrowserStory } from '../support/browser-story';
import { bitrateClass } from '../../functions/domain/audience';

/** How long the five watch: two heartbeat intervals and more, so every viewer lives through whole minutes. */
const PLAY_MS = 120_000;
/** The throttled viewer's network: this long down to a trickle (its buffer runs dry), then this long normal. */
const TRICKLE_MS = 14_000;
const NORMAL_MS = 10_000;

const poll = <T>(read: () => Promise<T>, timeout = 30_000) => expect.poll(read, { timeout, interval: 1_000 });

/**
 * What the stream really plays (kbps: its live playlist's segments, bytes over seconds) and what its one
 * variant declares (`BANDWIDTH`: the peak segment rounded up), read with a preview token as a player would.
 */
async function streamBitrate(system: BrowserStory['system'], eventId: string): Promise<{ measuredKbps: number; declaredKbps: number }> {
  const preview = await system.admin('POST', `/api/admin/events/${eventId}/preview`);
  const entry = `${preview.playbackBaseUrl.replace(/\/+$/, '')}${preview.streamPath}index.m3u8`;
  const get = (url: string) => fetch(url, { headers: { Authorization: `Bearer ${preview.playbackToken}` } });
  const master = await (await get(entry)).text();
  const declaredKbps = Number(/BANDWIDTH=(\d+)/.exec(master)![1]) / 1000;
  const variant = new URL(master.split('\n').find((line) => line.trim() && !line.startsWith('#'))!.trim(), entry).href;
  const lines = (await (await get(variant)).text()).split('\n');
  let bits = 0;
  let seconds = 0;
  for (const [i, line] of lines.entries()) {
    const extinf = /^#EXTINF:([\d.]+)/.exec(line);
    if (!extinf) continue;
    seconds += Number(extinf[1]);
    bits += (await (await get(new URL(lines[i + 1]!.trim(), variant).href)).arrayBuffer()).byteLength * 8;
  }
  return { measuredKbps: bits / 1000 / seconds, declaredKbps };
}

/** Chrome's network conditions: a trickle of 4 KB/s, or none. */
async function throttle(cdp: CDPSession, on: boolean): Promise<void> {
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: on ? 200 : 0, downloadThroughput: on ? 4 * 1024 : -1, uploadThroughput: -1 });
}

describe('web: the audience of a show', () => {
  // 2 s segments, and the publisher's keyframes every 2 s: the ingest copies (no re-encoding) and the four healthy
  // players hold about 4 s of buffer, so a busy machine's hiccup is not a stall; the throttled viewer's 14 s trickle is.
  const story = browserStory({ INGEST_HLS_SEGMENT: '2s' });

  it('five viewers for two minutes, one on a failing network: the series counts five, the throttled ticket is in trouble, the charts render', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const problems: string[] = [];
    const now = Date.now();
    const event = await system.admin('POST', '/api/admin/events', {
      title: `Audience ${now.toString(36)}`,
      startsAt: new Date(now - 600_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
    });
    const { tokens } = await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 5, label: 'audience' });
    const codes = tokens.map((token: { code: string }) => token.code) as string[];
    const details = await system.admin('GET', `/api/admin/events/${event.id}`);
    const ffmpeg = story.publish(`${details.ingest.server.replace(/\/+$/, '')}/${details.ingest.streamKey}`);

    // --- Five viewers; the last one's network will keep failing.
    const viewers: Page[] = [];
    for (const [index, code] of codes.entries()) {
      const context = await story.newContext({ viewport: { width: 640, height: 400 } });
      const viewer = await context.newPage();
      // A playlist may be 404 before the ingest writes it.
      watchConsole(viewer, `viewer ${index + 1}`, problems, () => [404]);
      await viewer.goto(`${api}/?code=${code}`);
      await viewer.getByRole('button', { name: 'Watch' }).click();
      viewers.push(viewer);
    }
    await Promise.race([ffmpeg.exited, Promise.all(viewers.map((viewer) => videoAdvances(viewer, 'video', 90_000)))]);
    const throttled = viewers[4]!;
    const cdp = await throttled.context().newCDPSession(throttled);
    await cdp.send('Network.enable');
    const watchedUntil = Date.now() + PLAY_MS;
    while (Date.now() < watchedUntil) {
      await throttle(cdp, true);
      await new Promise((resolve) => setTimeout(resolve, TRICKLE_MS));
      await throttle(cdp, false);
      await new Promise((resolve) => setTimeout(resolve, NORMAL_MS));
    }
    // The four others are still playing.
    await Promise.all(viewers.slice(0, 4).map((viewer) => videoAdvances(viewer)));

    // --- The series: a complete minute with all five watching (the last minute shows once everyone in it has beaten).
    const report = () => system.admin('GET', `/api/admin/events/${event.id}/audience`);
    await poll(async () => Math.max(0, ...(await report()).series.map((point: { viewers: number }) => point.viewers)), 75_000).toBe(5);
    // The recorder follows the table's stream, and a stall reaches it with the viewer's next heartbeat after it.
    type Point = { viewers: number; stallRatio: number | null };
    await poll(async () => (await report()).series.some((point: Point) => point.viewers > 0 && (point.stallRatio ?? 0) > 0), 75_000).toBe(true);
    const audience = await report();
    expect(audience.totals).toMatchObject({ peakViewers: 5, uniqueCodes: 5 });
    const watched = audience.series.filter((point: { viewers: number }) => point.viewers > 0);
    // The throttled viewer's stalls are in the audience's stall ratio (shared with four who watched well).
    expect(watched.some((point: { stallRatio: number | null }) => (point.stallRatio ?? 0) > 0)).toBe(true);
    expect(watched[0].joins).toBeGreaterThan(0);
    expect(watched.some((point: { startupMsP50: number | null }) => point.startupMsP50 !== null && point.startupMsP50 > 0)).toBe(true);
    // The rendition mix is what the players played (one variant: its class), not the BANDWIDTH the variant declares (its peak).
    const { measuredKbps, declaredKbps } = await streamBitrate(system, event.id);
    expect(bitrateClass(declaredKbps), `declared ${declaredKbps} kbps, measured ${measuredKbps.toFixed(0)} kbps`).not.toBe(bitrateClass(measuredKbps));
    expect(audience.totals.renditions.map((rendition: { kbps: number }) => rendition.kbps)).toEqual([bitrateClass(measuredKbps)]);
    // Every error of the series is in the errors by type, under its name (or `unknown`).
    const errorsInAll = audience.series.reduce((sum: number, point: { errors: number }) => sum + point.errors, 0);
    expect(audience.totals.errorTypes.reduce((sum: number, type: { count: number }) => sum + type.count, 0)).toBe(errorsInAll);

    // --- The throttled ticket, and only it, has trouble; its record says how it went.
    const troubleList = () => system.admin('GET', `/api/admin/events/${event.id}/audience/trouble`);
    await poll(async () => (await troubleList()).tickets.map((ticket: { code: string }) => ticket.code), 75_000).toEqual([codes[4]]);
    const trouble = await troubleList();
    expect(trouble.tickets[0]).toMatchObject({ reason: 'stalls', sessions: 1, devices: [expect.stringMatching(/^Chrome on Linux$/)] });
    expect(trouble.tickets[0].worstStallRatio).toBeGreaterThan(0.05);

    // --- The console: the charts, totals, the trouble filter, the ticket's record, the CSV for refunds.
    const admin = await story.adminPage();
    let signedIn = false;
    watchConsole(admin, 'admin', problems, () => (signedIn ? [] : [401]));
    await admin.goto(`${api}/admin/#/events/${event.id}`);
    await signIn(admin, '', system.adminPassword);
    signedIn = true;
    await admin.getByRole('heading', { name: event.title }).waitFor();
    const panel = admin.locator('.audience-panel');
    await poll(() => panel.locator('canvas').count()).toBeGreaterThanOrEqual(3);
    await poll(() => panel.locator('.stat').first().textContent()).toMatch(/^Peak viewers5 at /);
    expect(await panel.getByRole('img', { name: /^Viewers over time: peak 5 viewers/ }).count()).toBe(1);
    // Times are the reader's own, and say their zone (the axes are labelled with it too).
    expect(await panel.locator('figcaption').first().textContent()).toMatch(/^Viewers · times in \S+/);
    await shotsAtBothWidths(admin, 'audience-01-charts');
    await admin.setViewportSize({ width: 390, height: 900 });
    await panel.screenshot({ path: `${artifacts}audience-01-charts-panel-390.png` });
    await admin.setViewportSize({ width: 1280, height: 900 });

    await admin.getByLabel('Show codes').selectOption('trouble');
    await poll(() => admin.locator('tr[data-trouble-code]').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.troubleCode))).toEqual([codes[4]]);
    const csvLink = admin.getByRole('link', { name: 'Download CSV for refunds' });
    // The link downloads with the console's own session.
    const csv = await admin.evaluate(async (href) => (await fetch(href)).text(), (await csvLink.getAttribute('href'))!);
    expect(csv.split('\r\n')[0]).toBe('code,label,reason,worstStallPercent,stallPercent,watchMinutes,sessions,startFailures,errors,lastError,devices,firstWatchedAt,lastWatchedAt');
    expect(csv.split('\r\n')[1]).toMatch(new RegExp(`^${codes[4]},audience,stalls,`));
    await admin.getByRole('button', { name: `Watching: how code ${codes[4]} watched` }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByRole('heading', { name: `Code ${codes[4]}` }).waitFor();
    expect(await dialog.textContent()).toMatch(/TroubleStalled over 5 %/);
    await shotsAtBothWidths(admin, 'audience-02-ticket-with-trouble');
    await noSeriousAccessibilityFindings(admin, 'a ticket with trouble');
    await dialog.getByRole('button', { name: 'Close' }).click();

    expect(problems).toEqual([]);
  }, 360_000);
});

