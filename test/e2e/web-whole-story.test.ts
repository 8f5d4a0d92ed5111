/**
 * The whole story in a real browser against `npm start`'s program:
 * the admin signs in, creates an event, generates codes and copies the OBS
 * settings; ffmpeg publishes to them; a viewer enters a code and the video
 * plays; a second device with the same code is told it is in use; the admin
 * revokes the code and the first viewer's overlay says so within seconds.
 * Screenshots go to test-artifacts/web/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserStory, noHorizontalScroll, shot, watchConsole } from '../support/browser-story';

/** How long after the revoke click the viewer's overlay must appear. */
const REVOCATION_BUDGET_MS = 20_000;

/** `YYYY-MM-DDTHH:mm` in the browser's time zone, for a datetime-local input. */
function localInputValue(page: Page, offsetMs: number): Promise<string> {
  return page.evaluate((offset) => {
    const date = new Date(Date.now() + offset);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
  }, offsetMs);
}

describe('web: the whole story', () => {
  const story = browserStory();

  it('admin → OBS settings → ffmpeg → viewer plays → in use elsewhere → revoked with an overlay', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const problems: string[] = [];

    // --- Admin: sign in (the session check before it answers 401), create an event, generate codes.
    const admin = await story.adminPage();
    let adminSignedIn = false;
    watchConsole(admin, 'admin', problems, () => (adminSignedIn ? [] : [401]));
    await admin.goto(`${api}/admin/`);
    await admin.getByRole('heading', { name: 'Sign in to Stagedoor' }).waitFor();
    await shot(admin, '01-admin-sign-in');
    await admin.getByLabel('Password').fill('not-the-password');
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => admin.locator('#password-error').textContent(), { timeout: 20_000 }).toMatch(/not right/);
    await admin.getByLabel('Password').fill(system.adminPassword);
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await admin.getByRole('heading', { name: 'Events' }).waitFor();
    adminSignedIn = true;
    await shot(admin, '02-admin-dashboard');

    await admin.getByRole('link', { name: 'New event' }).click();
    await admin.getByRole('heading', { name: 'New event' }).waitFor();
    const title = `Whole story ${Date.now().toString(36)}`;
    await admin.getByLabel('Title').fill(title);
    await admin.getByLabel('Description').fill('A test pattern, live from ffmpeg.');
    await admin.getByLabel('Starts').fill(await localInputValue(admin, -5 * 60_000));
    await admin.getByLabel('Ends').fill(await localInputValue(admin, 2 * 3_600_000));
    await shot(admin, '03-admin-new-event');
    await admin.getByRole('button', { name: 'Create event' }).click();
    await admin.getByRole('heading', { name: title }).waitFor();
    const eventId = decodeURIComponent(/#\/events\/([^/]+)$/.exec(admin.url())![1]!);

    await admin.getByLabel('How many').fill('3');
    await admin.getByLabel('Label').fill('whole story');
    await admin.getByRole('button', { name: 'Generate codes' }).click();
    await expect.poll(() => admin.locator('tr[data-code]').count()).toBe(3);
    const codes = await admin.locator('tr[data-code]').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.code!));
    for (const code of codes) expect(code).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{12}$/);

    // --- OBS settings, copied with the console's buttons.
    await admin.getByRole('button', { name: 'Copy Server' }).click();
    const server = await admin.evaluate(() => navigator.clipboard.readText());
    await admin.getByRole('button', { name: 'Copy Stream key' }).click();
    const streamKey = await admin.evaluate(() => navigator.clipboard.readText());
    expect(server).toMatch(/^rtmps?:\/\//);
    // The console must show the ingest this system actually started (its `ready` line).
    if (system.urls.rtmp) expect(server, 'OBS Server shown by the console').toBe(system.urls.rtmp);
    expect(streamKey.length).toBeGreaterThan(8);
    expect(await admin.getByRole('textbox', { name: 'Server', exact: true }).inputValue()).toBe(server);
    await shot(admin, '04-admin-event');

    // --- Viewer 1 types the code as printed on a ticket (lower case, with a dash) before the
    //     stream starts: the page waits ("Starting soon") and polls the event status.
    const [code] = codes as [string, ...string[]];
    const viewerContext = await story.newContext({ viewport: { width: 1280, height: 800 } });
    const viewer = await viewerContext.newPage();
    // Between "live" and the first segment the playlist may answer 404 once; after the revoke, 403.
    let viewerPlaying = false;
    let revoked = false;
    watchConsole(viewer, 'viewer', problems, () => [...(viewerPlaying ? [] : [404]), ...(revoked ? [403] : [])]);
    await viewer.goto(`${api}/`);
    await viewer.getByLabel('Access code').fill(`${code.slice(0, 6).toLowerCase()}-${code.slice(6)}`);
    await viewer.getByRole('button', { name: 'Watch' }).click();
    await viewer.getByRole('heading', { name: title }).waitFor();
    await viewer.getByRole('heading', { name: 'Starting soon' }).waitFor();
    await shot(viewer, '05-viewer-waiting');

    // --- ffmpeg publishes to the copied settings; the event turns live and viewer 1 plays by itself.
    const ffmpeg = story.publish(`${server.replace(/\/+$/, '')}/${streamKey}`);
    await Promise.race([
      ffmpeg.exited,
      viewer.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 1, null, { timeout: 60_000 }),
    ]);
    viewerPlaying = true;
    const before = await viewer.evaluate(() => document.querySelector('video')!.currentTime);
    await viewer.waitForTimeout(2_000);
    const after = await viewer.evaluate(() => document.querySelector('video')!.currentTime);
    expect(after).toBeGreaterThan(before);
    expect(await viewer.locator('#overlay').isHidden()).toBe(true);
    const status = await fetch(`${api}/api/events/${encodeURIComponent(eventId)}/status`).then((r) => r.json());
    expect(status).toMatchObject({ eventId, status: 'live' });
    await shot(viewer, '06-viewer-playing');

    // --- Viewer 2, on a phone, with the same code from a link: in use on another device.
    const phoneContext = await story.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const phone = await phoneContext.newPage();
    watchConsole(phone, 'phone', problems, () => [409]);
    await phone.goto(`${api}/?code=${code}`);
    expect(await phone.getByLabel('Access code').inputValue()).toBe(code);
    await phone.getByRole('button', { name: 'Watch' }).click();
    await expect.poll(() => phone.locator('#code-error').textContent()).toMatch(/in use on another device/);
    await noHorizontalScroll(phone);
    await shot(phone, '07-viewer-in-use-phone');

    // --- The admin revokes the code; viewer 1's video stops and the overlay says why.
    // From the click on, the media server may refuse viewer 1 before the admin page has redrawn.
    revoked = true;
    const revokedAt = Date.now();
    await admin.getByRole('button', { name: `Revoke code ${code}` }).click();
    await expect.poll(() => admin.locator('#status').textContent()).toMatch(/revoked/);
    await viewer
      .getByRole('heading', { name: /^Access (revoked|denied)$/ })
      .waitFor({ timeout: REVOCATION_BUDGET_MS });
    const overlayAfterMs = Date.now() - revokedAt;
    console.log(`viewer overlay ${overlayAfterMs} ms after the revoke`);
    expect(await viewer.evaluate(() => document.querySelector('video')!.paused)).toBe(true);
    await shot(viewer, '08-viewer-revoked');
    await expect.poll(() => admin.locator(`tr[data-code="${code}"]`).textContent()).toMatch(/Revoked/);
    await shot(admin, '09-admin-revoked');

    await admin.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(admin);
    await shot(admin, '10-admin-event-phone');

    // --- A code for a later event: the viewer sees the countdown, with the event's title.
    // (Set up through the API from the signed-in admin page, which holds the session cookie.)
    const adminApi = async <T>(path: string, body: unknown): Promise<T> => {
      const { status, text } = await admin.evaluate(
        async ([url, json]) => {
          const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json });
          return { status: response.status, text: await response.text() };
        },
        [`/api/admin${path}`, JSON.stringify(body)] as const,
      );
      expect(status, `${path}: ${text}`).toBeLessThan(300);
      return JSON.parse(text) as T;
    };
    const later = await adminApi<{ id: string }>('/events', {
      title: 'Next week',
      startsAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      endsAt: new Date(Date.now() + 7 * 86_400_000 + 3_600_000).toISOString(),
    });
    const laterCodes = await adminApi<{ tokens: { code: string }[] }>(`/events/${later.id}/tokens`, { count: 1 });
    const waiting = await phoneContext.newPage();
    watchConsole(waiting, 'countdown', problems, () => []);
    await waiting.goto(`${api}/?code=${laterCodes.tokens[0]!.code}`);
    await waiting.getByRole('button', { name: 'Watch' }).click();
    await waiting.getByRole('heading', { name: 'Next week' }).waitFor();
    await expect.poll(() => waiting.getByRole('timer').getAttribute('aria-label')).toMatch(/^Starts in (6|7) days/);
    await noHorizontalScroll(waiting);
    await shot(waiting, '11-viewer-countdown-phone');
    // No "Stop watching" while nothing plays; "Use another code" releases the code at once: it works again straight away.
    expect(await waiting.getByRole('button', { name: 'Stop watching' }).count()).toBe(0);
    await waiting.getByRole('button', { name: 'Use another code' }).click();
    await waiting.getByRole('heading', { name: 'Watch your event' }).waitFor();
    await waiting.getByRole('button', { name: 'Watch' }).click();
    await waiting.getByRole('heading', { name: 'Next week' }).waitFor();

    expect(problems).toEqual([]);
  }, 180_000);
});
