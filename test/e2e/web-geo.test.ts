/**
 * An event's country rule on `npm start` in Chromium. There is no CloudFront locally: the API and the
 * media server read CloudFront-Viewer-Country as sent, so each browser context stands in a country by
 * adding the header to its requests (a route, below the page: the page's CORS requests stay as they are).
 * A viewer in an allowed country plays; the very playback URL it was handed is 403 from a refused
 * country, and a viewer there reads why at code entry.
 */
import type { BrowserContext } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserStory, shotsAtBothWidths } from '../support/browser-story';
import { noSeriousAccessibilityFindings } from '../support/axe';
import { publish, until, type Run } from '../support/ingest';

describe('web: countries per event', () => {
  const story = browserStory();
  let publisher: Run | undefined;
  story.atClose(async () => {
    if (publisher?.running()) await publisher.stop();
  });
  let codes: string[];
  let eventId: string;

  beforeAll(async () => {
    const now = Date.now();
    const event = await story.system.admin('POST', '/api/admin/events', {
      title: 'Only in France and Belgium',
      startsAt: new Date(now - 600_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
      geo: { allow: ['FR', 'BE'] },
    });
    eventId = event.id;
    codes = (await story.system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 2 })).tokens.map((t: { code: string }) => t.code);
    const { ingest } = await story.system.admin('GET', `/api/admin/events/${event.id}`);
    publisher = publish(`${ingest.server}/${ingest.streamKey}`);
    await until(async () => ((await story.system.admin('GET', `/api/admin/events/${event.id}`)).ingest.video ? true : undefined), 500);
  }, 120_000);

  /** A browser in `country`: every request to the API and the media server carries the header CloudFront would add. */
  async function viewerIn(country: string): Promise<BrowserContext> {
    const context = await story.newContext({ viewport: { width: 1280, height: 800 } });
    const hosts = [story.system.urls.api!, story.system.urls.media!].map((url) => new URL(url).host);
    await context.route(
      (url) => hosts.includes(url.host),
      (route) => route.continue({ headers: { ...route.request().headers(), 'cloudfront-viewer-country': country } }),
    );
    return context;
  }

  it('plays in an allowed country; the same playback URL from a refused country is 403, and a viewer there is told why', async () => {
    const france = await (await viewerIn('FR')).newPage();
    const validated = france.waitForResponse((response) => response.url().endsWith('/api/tokens/validate'));
    await france.goto(`${story.system.urls.api}/?code=${codes[0]}`);
    await france.getByRole('button', { name: 'Watch' }).click();
    const { playbackUrl } = (await (await validated).json()) as { playbackUrl: string };
    await france.locator('#live-state[data-state="live"]').waitFor({ timeout: 60_000 });
    await until(() => france.evaluate(() => (document.querySelector('video')!.currentTime > 1 ? true : undefined)), 250);

    // The URL the French viewer plays, opened in Germany: refused at the edge despite its valid credential.
    const germany = await (await viewerIn('DE')).newPage();
    const refused = await germany.goto(playbackUrl);
    expect(refused!.status()).toBe(403);
    expect(await refused!.json()).toEqual({ error: 'Access denied' });
    const fromFrance = await (await viewerIn('FR')).newPage();
    expect((await fromFrance.goto(playbackUrl))!.status()).toBe(200);

    await germany.goto(`${story.system.urls.api}/?code=${codes[1]}`);
    await germany.getByRole('button', { name: 'Watch' }).click();
    await expect.poll(() => germany.locator('#code-error').textContent(), { timeout: 15_000 }).toBe('This event is not available in your country.');

    expect(await france.evaluate(() => document.querySelector('video')!.paused)).toBe(false);
    await france.getByRole('button', { name: 'Stop watching' }).click();
  }, 150_000);

  it('the console\'s event form picks countries by search, and the event page says the rule', async () => {
    const admin = await story.adminPage();
    await admin.goto(`${story.system.urls.api}/admin/`);
    await admin.getByLabel('Password').fill(story.system.adminPassword);
    await admin.getByRole('button', { name: 'Sign in' }).click();
    await admin.getByRole('heading', { name: 'Events' }).waitFor();
    await admin.goto(`${story.system.urls.api}/admin/#/events/${eventId}`);
    await admin.locator('[data-key="geo"]').waitFor();
    expect(await admin.locator('[data-key="geo"]').textContent()).toBe('Countries: Only in Belgium, France');

    await admin.getByRole('link', { name: 'Edit' }).click();
    await admin.getByLabel('Search countries').waitFor();
    expect(await admin.locator('.geo-chosen li').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.code))).toEqual(['BE', 'FR']);
    await admin.getByLabel('Everywhere except the countries below').check();
    await admin.getByRole('button', { name: 'Remove Belgium' }).click();
    await admin.getByRole('button', { name: 'Remove France' }).click();
    await admin.getByLabel('Search countries').fill('russ');
    await admin.getByRole('button', { name: 'Russia (RU)' }).waitFor();
    await noSeriousAccessibilityFindings(admin, 'event form: country picker');
    await shotsAtBothWidths(admin, 'geo-01-country-picker');
    // Enter takes the first match, and does not send the form.
    await admin.getByLabel('Search countries').press('Enter');
    await admin.locator('.geo-chosen li[data-code="RU"]').waitFor();
    await admin.getByRole('button', { name: 'Save changes' }).click();
    await admin.locator('[data-key="geo"]').waitFor();
    await expect.poll(() => admin.locator('[data-key="geo"]').textContent()).toBe('Countries: Everywhere except Russia');
    expect((await story.system.admin('GET', `/api/admin/events/${eventId}`)).geo).toEqual({ deny: ['RU'] });

    // A list with no country is refused on the form, before the API.
    await admin.getByRole('link', { name: 'Edit' }).click();
    await admin.getByRole('button', { name: 'Remove Russia' }).click();
    await admin.getByRole('button', { name: 'Save changes' }).click();
    expect(await admin.locator('#geo-error').textContent()).toBe('Choose at least one country, or Anywhere.');
  }, 90_000);
});
