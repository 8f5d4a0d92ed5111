/**
 * Show night in a real browser against `npm start`'s program:
 * the admin previews the stream while ffmpeg publishes, sees two viewers,
 * ends one (its overlay says so within seconds and the code works again on
 * a new device), prints a ticket sheet whose printed QR code (read back from
 * the PDF, decoded with jsQR) leads to a playing viewer, and finds all of it in the audit log.
 * Phone-sized screenshots of each new view go to test-artifacts/web/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserStory, noHorizontalScroll, shot, shotsAtBothWidths, signInAsOwner, videoAdvances, watchConsole } from '../support/browser-story';
import { noSeriousAccessibilityFindings } from '../support/axe';
import { readPrintedPdf } from '../support/printed-pdf';

/** How long after "End session" the viewer's overlay must appear (the feed, the next playlist, one refresh). */
const END_BUDGET_MS = 20_000;
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
/** Waits for a condition; generous, because the machine is shared and a browser step may take seconds under load. */
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 250 });

describe('web: show night', () => {
  const story = browserStory();

  it('preview while publishing → two viewers → end one → print tickets → QR to a playing viewer → audit log', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const problems: string[] = [];

    // --- The admin signs in and creates an event with three codes.
    const admin = await story.adminPage();
    let signedIn = false;
    // Before sign-in the session check answers 401; the preview may meet a 404 before the first segment.
    watchConsole(admin, 'admin', problems, () => (signedIn ? [404] : [401, 404]));
    await signInAsOwner(admin, system);
    signedIn = true;
    const title = `Show night ${Date.now().toString(36)}`;
    const event = await admin.evaluate(async (body) => {
      const response = await fetch('/api/admin/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return (await response.json()) as { id: string };
    }, JSON.stringify({ title, startsAt: new Date(Date.now() - 600_000).toISOString(), endsAt: new Date(Date.now() + 7_200_000).toISOString() }));
    await admin.goto(`${api}/admin/#/events/${event.id}`);
    await admin.getByRole('heading', { name: title }).waitFor();
    await admin.getByLabel('How many').fill('3');
    await admin.getByLabel('Label').fill('door sales');
    await admin.getByRole('button', { name: 'Generate codes' }).click();
    await poll(() => admin.locator('tr[data-code]').count()).toBe(3);
    const codes = await admin.locator('tr[data-code]').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.code!));
    const [first, second, third] = codes as [string, string, string];

    // --- Each code has a QR code and a watch link in the list.
    const copyLink = admin.locator(`tr[data-code="${third}"]`).getByRole('button', { name: `Copy link of code ${third}` });
    await copyLink.click();
    expect(await admin.evaluate(() => navigator.clipboard.readText())).toBe(`${api}/?code=${third}`);
    // The confirmation is at the button, not in the page's notices far above it; screen readers hear it too.
    await expect.poll(() => copyLink.textContent()).toBe('Copied');
    expect(await admin.locator('#status').textContent()).not.toMatch(/copied/);
    expect(await admin.locator('#announcer').textContent()).toBe(`Watch link of ${third} copied.`);
    await expect.poll(() => copyLink.textContent()).toBe('Copy link');
    await admin.getByRole('button', { name: `Show QR code and link for code ${third}` }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByRole('img', { name: `QR code of the watch link for ${third}` }).waitFor();
    expect(await dialog.getByRole('textbox', { name: 'Watch link' }).inputValue()).toBe(`${api}/?code=${third}`);
    await admin.setViewportSize(PHONE.viewport);
    await shot(admin, 'show-night-01-ticket-qr-phone');
    await noSeriousAccessibilityFindings(admin, 'ticket QR dialog');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await admin.setViewportSize({ width: 1280, height: 900 });

    // --- ffmpeg publishes with the event's OBS settings; the admin starts the preview: the video advances.
    const details = await system.admin('GET', `/api/admin/events/${event.id}`);
    const ffmpeg = story.publish(`${details.ingest.server.replace(/\/+$/, '')}/${details.ingest.streamKey}`);
    await admin.getByRole('button', { name: 'Start preview' }).click();
    await Promise.race([ffmpeg.exited, videoAdvances(admin, '.preview-video', 90_000)]);
    await poll(() => admin.locator('.preview-panel .preview-state').textContent()).toMatch(/On air/);
    await poll(() => admin.locator('.preview-freshness').textContent()).toMatch(/(Last new segment|No new segment since the preview started) \d+ s ago/);
    await poll(() => admin.locator('.preview-freshness').textContent()).toMatch(/^Last new segment \d+ s ago/);
    await shot(admin, 'show-night-02-preview');
    await noSeriousAccessibilityFindings(admin, 'event page with the preview playing');
    // The preview is not a viewer.
    expect((await system.admin('GET', `/api/admin/events/${event.id}`)).stats.activeViewers).toBe(0);

    // --- Two viewers watch; the console's list shows them by itself.
    const viewers: Page[] = [];
    const ended = { value: false };
    for (const [index, code] of [first, second].entries()) {
      const context = await story.newContext({ viewport: { width: 1024, height: 700 } });
      const viewer = await context.newPage();
      // A playlist may be 404 before it is written; after the end, the media server's 403 and refresh's 401.
      watchConsole(viewer, `viewer ${index + 1}`, problems, () => (index === 0 && ended.value ? [401, 403, 404] : [404]));
      await viewer.goto(`${api}/?code=${code}`);
      await viewer.getByRole('button', { name: 'Watch' }).click();
      await videoAdvances(viewer);
      if (index === 0) await noSeriousAccessibilityFindings(viewer, 'viewer: playing');
      viewers.push(viewer);
    }
    await poll(() => admin.locator('.sessions-count').textContent()).toBe('About 2 devices watching now (estimate).');
    // The count (presence counters) and the list (the live-sessions index) are two reads: one refresh may have
    // counted the second viewer before its session was listed, and the next refresh (every 5 s) lists it.
    await poll(() => admin.locator('tr[data-session-code]').evaluateAll((list) => list.map((row) => (row as HTMLElement).dataset.sessionCode))).toEqual([second, first]);
    expect(await admin.locator(`tr[data-session-code="${first}"]`).textContent()).toMatch(/door sales.*127\.0\.0\.1.*Chrome \d+ on Linux/);
    // The sessions table fits its card at desktop width: "End session" whole, no sideways scroll (and on a phone).
    await shotsAtBothWidths(admin, 'show-night-03-sessions');
    await noSeriousAccessibilityFindings(admin, 'event page with live sessions');

    // --- "End session": viewer 1's overlay says so within seconds; the code works at once on a new device.
    await admin.getByRole('button', { name: `End session of code ${first}` }).click();
    ended.value = true;
    const endedAt = Date.now();
    await viewers[0]!.getByRole('heading', { name: 'Session ended' }).waitFor({ timeout: END_BUDGET_MS });
    console.log(`viewer overlay ${Date.now() - endedAt} ms after "End session"`);
    expect(await viewers[0]!.locator('#overlay-text').textContent()).toMatch(/organiser ended/);
    // One message: the code still works, so the footer does not say that access has ended.
    expect(await viewers[0]!.locator('#access-until').textContent()).toMatch(/works until/);
    await shotsAtBothWidths(viewers[0]!, 'show-night-04-viewer-session-ended');
    await noSeriousAccessibilityFindings(viewers[0]!, 'viewer: session ended');
    await poll(() => admin.locator('.sessions-count').textContent()).toBe('About 1 device watching now (estimate).');
    const phoneContext = await story.newContext(PHONE);
    const newDevice = await phoneContext.newPage();
    watchConsole(newDevice, 'new device', problems, () => [404]);
    await newDevice.goto(`${api}/?code=${first}`);
    await newDevice.getByRole('button', { name: 'Watch' }).click();
    await videoAdvances(newDevice);
    await poll(() => admin.locator('.sessions-count').textContent()).toBe('About 2 devices watching now (estimate).');
    await admin.setViewportSize(PHONE.viewport);
    await shot(admin, 'show-night-05-event-page-phone');
    await noHorizontalScroll(admin);
    await admin.setViewportSize({ width: 1280, height: 900 });

    // --- The ticket sheet: every usable code, with a QR code that the print view renders.
    await admin.getByRole('button', { name: 'Print tickets' }).click();
    await admin.getByRole('heading', { name: 'Print tickets' }).waitFor();
    await poll(() => admin.locator('.ticket').count()).toBe(3);
    await admin.setViewportSize(PHONE.viewport);
    await shot(admin, 'show-night-06-tickets-phone');
    await noHorizontalScroll(admin);
    await admin.setViewportSize({ width: 1280, height: 900 });
    await admin.emulateMedia({ media: 'print' });
    expect(await admin.locator('.site-header').isHidden()).toBe(true);
    expect(await admin.locator('.ticket-controls').isHidden()).toBe(true);
    await shot(admin, 'show-night-07-tickets-print');
    const ticket = admin.locator(`.ticket[data-code="${third}"]`);
    expect(await ticket.locator('.ticket-code').textContent()).toBe(`${third.slice(0, 4)}-${third.slice(4, 8)}-${third.slice(8)}`);
    expect(await ticket.locator('h2').textContent()).toBe(title);
    await admin.emulateMedia({ media: 'screen' });

    // --- Eight tickets fill exactly one A4 and one Letter page when printed; the printed QR code decodes to the link.
    await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 5, label: 'more' });
    await admin.reload();
    await poll(() => admin.locator('.ticket').count()).toBe(8);
    const scratch = await admin.context().newPage();
    let link: string | undefined;
    for (const format of ['A4', 'Letter']) {
      await admin.emulateMedia({ media: 'print' });
      const pdf = await admin.pdf({ format });
      await admin.emulateMedia({ media: 'screen' });
      const pages = await readPrintedPdf(pdf, scratch);
      expect(pages.length, `${format} pages for 8 tickets`).toBe(1);
      link = pages[0]!.qrCodes.find((qr) => qr.data.endsWith(`?code=${third}`))?.data;
      expect(link).toBe(`${api}/?code=${third}`);
    }
    await scratch.close();

    // --- Following the decoded link on a phone: the code is filled in and the video plays.
    const ticketHolder = await (await story.newContext(PHONE)).newPage();
    watchConsole(ticketHolder, 'ticket holder', problems, () => [404]);
    await ticketHolder.goto(link!);
    expect(await ticketHolder.getByLabel('Access code').inputValue()).toBe(third);
    await ticketHolder.getByRole('button', { name: 'Watch' }).click();
    await videoAdvances(ticketHolder);
    await shot(ticketHolder, 'show-night-08-ticket-holder-playing-phone');
    await ticketHolder.getByRole('button', { name: 'Watch on another player' }).click();
    await ticketHolder.getByRole('textbox', { name: 'Playback link' }).waitFor();
    await noSeriousAccessibilityFindings(ticketHolder, 'viewer: watch on another player');

    // --- The audit log has it all: per event and across events, filterable.
    await admin.goto(`${api}/admin/#/events/${event.id}`);
    await admin.getByRole('heading', { name: title }).waitFor();
    const eventLog = admin.locator('.audit-panel');
    await poll(() => eventLog.locator('tr[data-action]').evaluateAll((list) => list.map((row) => (row as HTMLElement).dataset.action))).toEqual([
      'codes.generate',
      'session.end',
      'stream.start',
      'codes.generate',
      'event.create',
    ]);
    // The ingest reported the publish: by the ingest, with the event's title.
    expect(await eventLog.locator('tr[data-action="stream.start"] .audit-actor').textContent()).toBe('ingest');
    await admin.goto(`${api}/admin/#/audit`);
    await admin.getByRole('heading', { name: 'Audit log' }).waitFor();
    await poll(() => admin.locator('tr[data-action="admin.login"]').count()).toBeGreaterThan(0);
    // Every entry names the staff account that acted.
    expect(await admin.locator('tr[data-action="admin.login"] .audit-actor').first().textContent()).toBe('owner');
    expect(await admin.locator('tr[data-action="session.end"] .audit-actor').textContent()).toBe('owner');
    expect(await admin.locator('tr[data-action="session.end"]').textContent()).toContain(first);
    // The event is named by its title, its id on hover.
    const eventCell = admin.locator('tr[data-action="session.end"]').getByRole('link', { name: title });
    expect(await eventCell.getAttribute('title')).toBe(event.id);
    await admin.getByLabel('Show').selectOption('session.end');
    await poll(() => admin.locator('tr[data-action]').count()).toBe(1);
    await shotsAtBothWidths(admin, 'show-night-09-audit');
    await noSeriousAccessibilityFindings(admin, 'audit log filtered');

    expect(problems).toEqual([]);
  }, 240_000);
});
