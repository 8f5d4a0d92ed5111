/**
 * A ticket bought on the site plays: `npm start` without a Stripe key sells through its stand-in of
 * Stripe's API. In Chromium, the organiser puts the event on sale in the console's form; the event's page shows "Buy a ticket" with the price, the buyer's email and
 * quantity go to `POST /api/checkout`, the browser lands on the stand-in's checkout page, "Pay" sends the
 * signed `checkout.session.completed` to the API and returns the buyer to the page ("Your ticket is on
 * its way to …"), whose "Watch now" plays the stream ffmpeg publishes. The ticket email lands in the
 * catcher; the last ticket sold, the page says "Sold out".
 */
import { describe, expect, it } from 'vitest';
import { browserStory, shot, signIn, watchConsole } from '../support/browser-story';
import { call } from '../../harness/http';
import { newShow } from '../../harness/show';

describe('web: buying a ticket with Stripe Checkout, then watching', () => {
  const story = browserStory();

  it('Buy a ticket → checkout → Pay → back on the page → Watch now plays; the email lands; then sold out', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const inbox = system.urls.mail!;
    expect(system.urls.stripe, 'the ready line names the stand-in of Stripe').toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const problems: string[] = [];
    const show = await newShow(system, 'Checkout premiere');
    const ffmpeg = story.publish(show.rtmpUrl);

    // The organiser puts the event on sale in the console's event form: its "On sale" section.
    const admin = await story.adminPage();
    // The console asks for its session before the sign-in: a 401; the unknown currency below: the API's 400.
    watchConsole(admin, 'admin', problems, () => [401, 400]);
    await admin.goto(`${api}/admin/#/events/${show.eventId}/edit`);
    await signIn(admin, '', system.adminPassword);
    await admin.getByRole('heading', { name: 'On sale' }).waitFor();
    await admin.getByLabel('Price per ticket').fill('12.5');
    await admin.getByRole('button', { name: 'Save changes' }).click();
    // Not ticked "On sale now": priced, but off sale.
    await admin.getByText('Changes saved.').waitFor();
    expect((await system.admin('GET', `/api/admin/events/${show.eventId}`)).sale).toEqual({ open: false, priceMinor: 1250, currency: 'eur', capacity: null, maxPerOrder: 10 });
    await admin.goto(`${api}/admin/#/events/${show.eventId}/edit`);
    await admin.getByLabel('On sale now').check();
    // Well-formed, but no currency: the API refuses it, and the form shows that under the field.
    await admin.getByLabel('Currency').fill('XYZ');
    await admin.getByLabel('Tickets to sell').fill('1');
    await admin.getByLabel('Tickets per order').fill('2');
    await admin.getByRole('button', { name: 'Save changes' }).click();
    await admin.getByText('Currency must be an ISO 4217 currency code such as "eur" or "usd"').waitFor();
    await admin.getByLabel('Currency').fill('EUR');
    await shot(admin, 'checkout-console-on-sale');
    await admin.getByRole('button', { name: 'Save changes' }).click();
    await admin.getByText('Changes saved.').waitFor();
    expect((await system.admin('GET', `/api/admin/events/${show.eventId}`)).sale).toEqual({ open: true, priceMinor: 1250, currency: 'eur', capacity: 1, maxPerOrder: 2 });

    const page = await (await story.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })).newPage();
    let playing = false;
    watchConsole(page, 'viewer', problems, () => (playing ? [] : [404]));
    await page.goto(`${api}/?event=${show.eventId}`);
    await page.getByRole('heading', { name: 'Checkout premiere' }).waitFor();
    await page.getByRole('heading', { name: 'Buy a ticket' }).waitFor();
    expect(await page.locator('#price').textContent()).toBe('€12.50');
    await page.getByLabel('Email').fill('sofa@example.com');
    await page.getByLabel('Tickets').selectOption('1');
    await shot(page, 'checkout-buy');
    await page.getByRole('button', { name: 'Buy a ticket' }).click();

    // Stripe's page (the stand-in): the buyer pays.
    await page.waitForURL((url) => url.origin === system.urls.stripe);
    await page.getByText('€12.50').waitFor();
    await page.getByRole('button', { name: 'Pay' }).click();

    // Back on the event's page: the order followed until paid, the session id out of the address.
    await page.waitForURL((url) => url.origin === api && url.searchParams.get('event') === show.eventId);
    await page.getByRole('heading', { name: 'Your ticket is on its way to sofa@example.com' }).waitFor();
    expect(new URL(page.url()).searchParams.has('checkout')).toBe(false);
    const watchNow = page.getByRole('button', { name: 'Watch now' });
    await watchNow.waitFor({ timeout: 20_000 });
    const [code] = await page.locator('#order-codes li').allTextContents();
    expect(code).toMatch(/^[A-Z2-9]{12}$/);
    await shot(page, 'checkout-returned');
    await watchNow.click();
    await Promise.race([ffmpeg.exited, page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 1, null, { timeout: 60_000 })]);
    playing = true;
    const before = await page.evaluate(() => document.querySelector('video')!.currentTime);
    await page.waitForTimeout(2_000);
    expect(await page.evaluate(() => document.querySelector('video')!.currentTime)).toBeGreaterThan(before);
    await shot(page, 'checkout-playing');

    // The ticket email, with the same code.
    const listed = async () => (await call('GET', `${inbox}/messages.json`)).body as { id: string; to: string; subject: string }[];
    await expect.poll(async () => (await listed()).filter((message) => message.to === 'sofa@example.com').length, { timeout: 20_000 }).toBe(1);
    const [mail] = (await listed()).filter((message) => message.to === 'sofa@example.com');
    expect(mail!.subject).toBe('Your ticket for Checkout premiere');
    expect(await fetch(`${inbox}/messages/${mail!.id}.eml`).then((response) => response.text())).toContain(code!);

    // The capacity was one: the next visitor sees "Sold out" (the status is cached 5 s at the edge, not locally).
    const next = await (await story.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchConsole(next, 'next viewer', problems, () => []);
    await next.goto(`${api}/?event=${show.eventId}`);
    await next.getByText('Sold out', { exact: true }).waitFor();
    expect(await next.getByRole('button', { name: 'Buy a ticket' }).isVisible()).toBe(false);
    expect(problems).toEqual([]);
  }, 180_000);
});
