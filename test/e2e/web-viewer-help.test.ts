/**
 * The event's page for a buyer who needs help (issue 36), in Chromium on `npm start`: the organiser's
 * contact on the sale page and on the playing page, "Lost your tickets?" (the same answer whether or not
 * the address bought, and the tickets emailed again only to a buyer), and a cancelled show's page, which
 * says so and why instead of a bare code form. Needs the buyers' routes (contactEmail, `POST
 * /api/orders/resend`) and the refunds' (`POST /api/admin/events/:id/cancel`, the sale view's `cancelled`).
 */
import { describe, expect, it } from 'vitest';
import { noSeriousAccessibilityFindings } from '../support/axe';
import { browserStory, shot, watchConsole } from '../support/browser-story';
import { call } from '../../harness/http';
import { deliverOrder } from '../../harness/order-webhook';

describe('web: the event page helps a buyer', () => {
  const story = browserStory();

  it('shows the organiser, resends lost tickets to a buyer only, and says a cancelled show was cancelled', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const inbox = system.urls.mail!;
    const problems: string[] = [];
    const now = Date.now();
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Help desk premiere',
      startsAt: new Date(now + 86_400_000).toISOString(),
      endsAt: new Date(now + 90_000_000).toISOString(),
      contactEmail: 'organiser@example.com',
      sale: { open: true, priceMinor: 1000, currency: 'eur', capacity: null, maxPerOrder: 2 },
    });
    // A shop's order: the buyer's tickets, emailed once.
    const order = { type: 'order.paid', orderId: 'help-1', eventId: event.id, email: 'lost@example.com', quantity: 1, amountMinor: 1000, currency: 'EUR' };
    expect(await deliverOrder(api, system.orderWebhookSecret, order)).toMatchObject({ status: 200 });
    const mailsTo = async (to: string) => ((await call('GET', `${inbox}/messages.json`)).body as { to: string }[]).filter((message) => message.to === to).length;
    await expect.poll(() => mailsTo('lost@example.com'), { timeout: 20_000 }).toBe(1);

    const page = await (await story.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchConsole(page, 'viewer', problems, () => []);
    await page.goto(`${api}/?event=${event.id}`);
    await page.getByRole('heading', { name: 'Help desk premiere' }).waitFor();
    const contact = page.locator('#box-office-contact');
    await contact.getByRole('link', { name: 'organiser@example.com' }).waitFor();
    expect(await contact.getByRole('link').getAttribute('href')).toBe('mailto:organiser@example.com');

    // "Lost your tickets?": a stranger and the buyer read the same; only the buyer gets mail.
    await page.getByText('Lost your tickets?').click();
    const ask = async (email: string) => {
      await page.getByLabel('Email you bought them with').fill(email);
      await page.getByRole('button', { name: 'Send my tickets again' }).click();
      await page.locator('#lost-sent').getByText(/^If that address bought tickets, they are on their way/).waitFor();
      const said = await page.locator('#lost-sent').textContent();
      await page.locator('#lost-sent').evaluate((element) => (element.textContent = ''));
      return said;
    };
    const toStranger = await ask('stranger@example.com');
    const toBuyer = await ask('lost@example.com');
    expect(toBuyer).toBe(toStranger);
    await expect.poll(() => mailsTo('lost@example.com'), { timeout: 20_000 }).toBe(2);
    expect(await mailsTo('stranger@example.com')).toBe(0);
    await shot(page, 'viewer-help-lost-tickets');
    await noSeriousAccessibilityFindings(page, 'viewer: lost tickets');

    // The email's link plays at once (here: the countdown, the show is tomorrow), the organiser named below the video.
    const [token] = (await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1 })).tokens;
    await page.goto(`${api}/?event=${event.id}&code=${token.code}`);
    await page.getByRole('timer').waitFor();
    expect(await page.locator('#event-contact').getByRole('link', { name: 'organiser@example.com' }).isVisible()).toBe(true);
    expect(await page.locator('#box-office').isHidden()).toBe(true);
    await page.getByRole('button', { name: 'Use another code' }).click();

    // The show is cancelled: its sale link says so, and why, with no code form.
    await system.admin('POST', `/api/admin/events/${event.id}/cancel`, { reason: 'The lead singer is ill' });
    await expect.poll(async () => (await call('GET', `${api}/api/events/${event.id}/sale`)).body.cancelled?.reason, { timeout: 20_000 }).toBe('The lead singer is ill');
    await page.reload();
    await page.getByRole('heading', { name: 'This show was cancelled' }).waitFor();
    expect(await page.locator('#cancelled-reason').textContent()).toBe('The lead singer is ill');
    expect(await page.getByRole('heading', { name: 'Watch your event' }).isVisible()).toBe(false);
    expect(await page.getByRole('heading', { name: 'Buy a ticket' }).isVisible()).toBe(false);
    await shot(page, 'viewer-help-cancelled');
    await noSeriousAccessibilityFindings(page, 'viewer: a cancelled show');
    expect(problems).toEqual([]);
  }, 120_000);
});
