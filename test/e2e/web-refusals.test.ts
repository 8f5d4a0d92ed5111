/**
 * The viewer page in Chromium against `npm start`'s program words each
 * refusal from the API's `reason`, not from the `error` text: at code entry
 * a revoked code and a deactivated event (both 403) get their own message,
 * and a viewer waiting for the show learns from the heartbeat's 403 that the
 * event was deactivated, not that the code was revoked (the spec's text for both).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../harness/browser';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { shotsAtBothWidths } from '../support/browser-story';
import { noSeriousAccessibilityFindings } from '../support/axe';

describe('web: the viewer words refusals by their reason', () => {
  let system: LocalSystem;
  let browser: Browser;

  beforeAll(async () => {
    system = await startLocalSystem();
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  async function eventWithCodes(count: number) {
    const now = Date.now();
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Refusals',
      startsAt: new Date(now + 3_600_000).toISOString(),
      endsAt: new Date(now + 7_200_000).toISOString(),
    });
    const { tokens } = await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count });
    return { eventId: event.id as string, tokens: tokens as { id: string; code: string }[] };
  }

  async function enter(code: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(system.urls.api!);
    await page.getByLabel('Access code').fill(code);
    await page.getByRole('button', { name: 'Watch' }).click();
    return page;
  }

  it('tells a revoked code from an event that is not available at code entry', async () => {
    const { eventId, tokens } = await eventWithCodes(2);
    await system.admin('PATCH', `/api/admin/tokens/${tokens[0]!.id}/revoke`);
    const revoked = await enter(tokens[0]!.code);
    await expect.poll(() => revoked.locator('#code-error').textContent(), { timeout: 15_000 }).toMatch(/has been revoked/);
    await noSeriousAccessibilityFindings(revoked, 'viewer: code entry with a refusal');
    await shotsAtBothWidths(revoked, 'refusals-revoked');

    await system.admin('PATCH', `/api/admin/events/${eventId}/deactivate`);
    const inactive = await enter(tokens[1]!.code);
    await expect.poll(() => inactive.locator('#code-error').textContent(), { timeout: 15_000 }).toMatch(/not available right now/);
  }, 60_000);

  it('says the event became unavailable, not that the code was revoked, when it is deactivated during the wait', async () => {
    const { eventId, tokens } = await eventWithCodes(1);
    const page = await enter(tokens[0]!.code);
    await page.getByRole('heading', { name: 'Starts in' }).waitFor({ timeout: 15_000 });
    await noSeriousAccessibilityFindings(page, 'viewer: countdown');
    await system.admin('PATCH', `/api/admin/events/${eventId}/deactivate`);
    // The next heartbeat (every 30 s) is refused with 403 and reason `event-inactive`.
    await page.getByRole('heading', { name: 'Event unavailable' }).waitFor({ timeout: 60_000 });
    expect(await page.locator('#overlay').textContent()).toMatch(/made this event unavailable/);
    await noSeriousAccessibilityFindings(page, 'viewer: access ended');
    await shotsAtBothWidths(page, 'refusals-event-unavailable');
  }, 90_000);
});
