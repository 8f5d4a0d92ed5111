/**
 * The admin console's duties beyond the whole story, in a real browser against
 * `npm start`'s program (no stream needed): keyboard sign-in, form errors,
 * edit, codes (generate, filter, bulk revoke, unrevoke, CSV export), stream
 * key, media cache, activate/deactivate, archive and its filter, delete with
 * confirmation (saying what the event holds), sign out; "Signing in…" while the
 * password is checked, a lookup that clears the old rows at once, tables that
 * fit 1280 px. Screenshots go to test-artifacts/web/.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { noSeriousAccessibilityFindings } from '../support/axe';
import type { Page } from 'playwright-core';
import { browserStory, shot, shotsAtBothWidths, watchConsole } from '../support/browser-story';
import { tablesCutOff } from '../support/table-fit';

/** A gate a routed request waits at until the test has seen what it wanted. */
function held() {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe('web: admin console', () => {
  const story = browserStory();

  it('manages an event and its codes from sign-in to sign-out', async () => {
    const { system, browser } = story;
    const api = system.urls.api!;
    // The organiser's zone: Berlin (UTC+1 in winter, +2 in summer).
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, timezoneId: 'Europe/Berlin' });
    const page = await context.newPage();
    const problems: string[] = [];
    let signedIn = false;
    // Before sign-in the session check answers 401; the browser logs that answer.
    // A refresh of the event's page sent just before its deletion can be answered after it: 404, which the
    // page drops silently, though Chromium logs it.
    let deleted = false;
    watchConsole(page, 'admin', problems, () => (signedIn ? (deleted ? [404] : []) : [401]));
    const notice = () => page.locator('#status').textContent();
    const confirm = async (button: string) => {
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      await dialog.getByRole('button', { name: button }).click();
      await dialog.waitFor({ state: 'detached' });
    };

    // Sign in with the keyboard only.
    await page.goto(`${api}/admin/`);
    await page.getByRole('heading', { name: 'Sign in to Stagedoor' }).waitFor();
    await noSeriousAccessibilityFindings(page, 'sign-in');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('username');
    await page.keyboard.type('owner');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('password');
    await page.keyboard.type(system.adminPassword);
    // The password check is held until the button was seen saying so.
    const checking = held();
    await page.route('**/api/admin/login', async (route) => {
      await checking.promise;
      await route.continue();
    });
    await page.keyboard.press('Enter');
    const signingIn = page.getByRole('button', { name: 'Signing in…' });
    await signingIn.waitFor();
    expect(await signingIn.isDisabled()).toBe(true);
    checking.release();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await page.unroute('**/api/admin/login');
    signedIn = true;
    expect(await page.locator('.stats').textContent()).toMatch(/Events0/);
    await noSeriousAccessibilityFindings(page, 'events (empty)');

    // A form error lands on its field, with focus.
    await page.getByRole('link', { name: 'New event' }).click();
    // No "Origin stream URL": nothing would use it.
    await page.getByLabel('Title').waitFor();
    expect(await page.getByLabel('Origin stream URL').count()).toBe(0);
    await noSeriousAccessibilityFindings(page, 'new event form');
    await page.getByRole('button', { name: 'Create event' }).click();
    expect(await page.locator('#title-error').textContent()).toBe('Enter a title.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('title');
    expect(await page.getByLabel('Title').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Title').fill('Console check');
    await page.getByRole('button', { name: 'Create event' }).click();
    await page.getByRole('heading', { name: 'Console check' }).waitFor();
    expect(await notice()).toMatch(/created/);
    // Not sold here: no sales figures, but the event's page to share.
    expect(await page.getByLabel('Viewer and sale link').inputValue()).toMatch(new RegExp(`^${api}/\\?event=[\\w-]+$`));
    expect(await page.getByRole('heading', { name: 'Sales' }).count()).toBe(0);

    // Edit.
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Title').fill('Console check, edited');
    await page.getByLabel('Access window (hours)').fill('72');
    // Forensic watermark: a checkbox with its cost line, off by default, sent as a boolean.
    const watermark = page.getByLabel('Forensic watermark');
    expect(await watermark.isChecked()).toBe(false);
    expect(await page.locator('#watermark-hint').textContent()).toBe(
      "Watermarking encodes the video twice: about twice the ingest's CPU, and twice the stored segments; viewers' bandwidth does not change. A change during a live show applies from the next publish.",
    );
    await watermark.check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Console check, edited' }).waitFor();
    expect(await page.locator('.event-header').textContent()).toMatch(/codes work for 72 h · one device per code · forensic watermark on/);
    const edited = await system.admin('GET', `/api/admin/events/${new URL(page.url()).hash.split('/').pop()}`);
    expect(edited).toMatchObject({ watermark: true, watermarkSince: expect.any(String) });

    // Codes: a count too large is refused before the API; then 5 with a label.
    await page.getByLabel('How many').fill('1000001');
    await page.getByRole('button', { name: 'Generate codes' }).click();
    expect(await page.locator('#code-count-error').textContent()).toMatch(/1 to 1,000,000/);
    await page.getByLabel('How many').fill('5');
    await page.getByLabel('Label').fill('press');
    await page.getByRole('button', { name: 'Generate codes' }).click();
    await expect.poll(() => page.locator('tr[data-code]').count(), { timeout: 20_000 }).toBe(5);
    const codes = await page.locator('tr[data-code]').evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.code!));
    // Row lines run level across every column, the Ticket column's included.
    const cellBottoms = await page.locator('tr[data-code]').first().evaluate((row) => [...row.children].map((cell) => cell.getBoundingClientRect().bottom));
    expect(new Set(cellBottoms).size, `cell bottoms ${cellBottoms.join(', ')}`).toBe(1);
    // On a phone each value is labelled with its column, all labels in the same type (a code's value is monospace, its label not).
    await page.setViewportSize({ width: 390, height: 900 });
    const labelFonts = await page.locator('tr[data-code]').first().evaluate((row) =>
      [...new Set([...row.querySelectorAll('[data-label]')].map((cell) => getComputedStyle(cell, '::before').fontFamily))],
    );
    expect(labelFonts).toHaveLength(1);
    await shotsAtBothWidths(page, 'admin-codes-generated');
    await noSeriousAccessibilityFindings(page, 'event page with codes');

    // Bulk revoke two selected codes, after confirming.
    await page.getByRole('checkbox', { name: `Select code ${codes[0]}` }).check();
    await page.getByRole('checkbox', { name: `Select code ${codes[1]}` }).check();
    await page.getByRole('button', { name: 'Revoke selected (2)' }).click();
    await confirm('Revoke 2 codes');
    await expect.poll(notice).toBe('2 codes revoked.');
    await page.getByLabel('Show codes').selectOption('revoked');
    await expect.poll(() => page.locator('tr[data-code]').count()).toBe(2);
    await page.getByLabel('Show codes').selectOption('active');
    await expect.poll(() => page.locator('tr[data-code]').count()).toBe(3);
    await page.getByLabel('Show codes').selectOption('');
    await page.getByRole('button', { name: `Unrevoke code ${codes[0]}` }).click();
    await expect.poll(notice).toBe(`Code ${codes[0]} restored.`);
    await expect.poll(() => page.getByLabel('Figures', { exact: true }).textContent()).toMatch(/Revoked1/);
    await shot(page, 'admin-codes');
    // At 1280 px every table fits its box: no button cut off, nothing to scroll sideways.
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await tablesCutOff(page)).toEqual([]);

    // A lookup: the old rows go at once and the list says it is looking; the figures above are read with it.
    const lookup = held();
    await page.route(/\/tokens\?.*label=press/, async (route) => {
      await lookup.promise;
      await route.continue();
    });
    await page.getByLabel('Sale or list').fill('press');
    const figuresRead = page.waitForRequest((request) => /\/api\/admin\/events\/[^/?]+$/.test(request.url()));
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText('Looking up codes…').waitFor();
    expect(await page.locator('tr[data-code]').count()).toBe(0);
    await figuresRead;
    lookup.release();
    await expect.poll(() => page.locator('tr[data-code]').count()).toBe(5);
    await page.unroute(/\/tokens\?.*label=press/);
    // A label's share of the codes is not known: its pages are numbered, not counted.
    expect(await page.locator('[data-key="codes-page"]').textContent()).toBe('Page 1');
    await page.getByLabel('Sale or list').fill('');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await expect.poll(() => page.locator('[data-key="codes-page"]').textContent()).toBe('Page 1 of about 1');

    // CSV export: times in the organiser's zone, with its offset; the file named after the event and the day.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = await readFile((await download.path())!, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toBe('code,label,status,createdAt,expiresAt,link');
    expect(lines).toHaveLength(6);
    expect(csv).toContain(codes[1]!);
    const [createdAt, expiresAt] = lines[1]!.split(',').slice(3, 5);
    const berlin = (iso: string) => page.evaluate((at) => -new Date(at).getTimezoneOffset(), iso);
    for (const time of [createdAt!, expiresAt!]) {
      expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0[12]:00$/);
      expect(Number(time.slice(-6, -3)) * 60).toBe(await berlin(time));
    }
    const day = await page.evaluate(() => new Intl.DateTimeFormat('en-CA').format(new Date()));
    expect(download.suggestedFilename()).toBe(`Console-check-edited-codes-${day}.csv`);

    // Stream key: shown on request, replaced after confirming.
    const key = page.getByRole('textbox', { name: 'Stream key', exact: true });
    expect(await key.getAttribute('type')).toBe('password');
    await page.getByRole('button', { name: 'Show Stream key' }).click();
    expect(await key.getAttribute('type')).toBe('text');
    const oldKey = await key.inputValue();
    await page.getByRole('button', { name: 'New stream key' }).click();
    await confirm('New stream key');
    await expect.poll(() => key.inputValue()).not.toBe(oldKey);

    await page.getByRole('button', { name: 'Clear media cache' }).click();
    await confirm('Clear cache');
    await expect.poll(notice).toBe('Media cache cleared.');

    // Deactivate and activate.
    await page.getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => page.locator('.badges').textContent()).toMatch(/Inactive/);
    await page.getByRole('button', { name: 'Activate' }).click();
    await expect.poll(() => page.locator('.badges').textContent()).toMatch(/Active/);

    // Archive: gone from Current, listed under Archived; unarchive.
    await page.getByRole('button', { name: 'Archive' }).click();
    await expect.poll(() => page.locator('.badges').textContent()).toMatch(/Archived/);
    await page.getByRole('link', { name: '← All events' }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    expect(await page.getByRole('link', { name: 'Console check, edited' }).count()).toBe(0);
    await page.getByRole('radio', { name: 'Archived' }).check();
    await page.getByRole('link', { name: 'Console check, edited' }).click();
    await page.getByRole('button', { name: 'Unarchive' }).click();
    await expect.poll(() => page.locator('.badges').textContent()).not.toMatch(/Archived/);

    // Delete: Escape cancels, then confirm.
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Delete');
    await page.getByRole('button', { name: 'Delete' }).click();
    // It says what the event holds before anyone confirms.
    expect(await page.getByRole('dialog').locator('#confirm-message').textContent()).toMatch(/^This event has 5 access codes/);
    deleted = true;
    await confirm('Delete event');
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await expect.poll(notice).toMatch(/deleted/);
    await page.getByRole('radio', { name: 'All' }).check();
    expect(await page.getByRole('link', { name: 'Console check, edited' }).count()).toBe(0);
    await shot(page, 'admin-dashboard-after');
    await noSeriousAccessibilityFindings(page, 'events');

    // Sign out; the API no longer accepts the old page's requests.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Stagedoor' }).waitFor();
    signedIn = false;
    const after = await page.evaluate(() => fetch('/api/admin/events').then((response) => response.status));
    expect(after).toBe(401);

    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
