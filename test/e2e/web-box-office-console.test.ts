/**
 * The organiser's box office in the console (issue 36), in Chromium on `npm start`: two buyers pay through
 * the stand-in of Stripe; the event page shows sold, left, revenue and paid orders with the sale link (copy,
 * QR), the dashboard the event on sale; a buyer's codes are found by their email; one order is refunded from
 * the console after a confirmation naming the amount (its codes refused, the refund email in the inbox, the
 * figures moved); the delete dialog names the codes, live sessions and paid order, and the API's 409 points
 * to "Cancel show"; "Cancel show" with a reason runs its job to the end, and the page says it was cancelled, as
 * does the sale link. Every table fits 1280 px. Then, on the same system, a buyer is found by their email
 * among 100,000 codes generated after their order (the old walk from the newest passed them all first).
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { noSeriousAccessibilityFindings } from '../support/axe';
import { browserStory, shot, signIn, watchConsole } from '../support/browser-story';
import { tablesCutOff } from '../support/table-fit';
import { call } from '../../harness/http';
import type { LocalSystem } from '../../harness/local-system';

const poll = <T>(read: () => Promise<T>, timeout = 30_000) => expect.poll(read, { timeout, interval: 250 });

/** A buyer's checkout paid on the stand-in's page; their codes, as the API issued them. */
async function buy(system: LocalSystem, page: Page, eventId: string, email: string, quantity: number): Promise<void> {
  const answer = await call('POST', `${system.urls.api}/api/checkout`, { json: { eventId, email, quantity } });
  expect(answer.status).toBe(200);
  await page.goto((answer.body as { url: string }).url);
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.waitForURL((url) => url.origin === system.urls.api);
}

describe('web: the box office in the console', () => {
  const story = browserStory();

  it('sales at a glance, find a buyer, refund an order, delete refused with paid orders, cancel the show', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const inbox = system.urls.mail!;
    const now = Date.now();
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Box office night',
      startsAt: new Date(now + 86_400_000).toISOString(),
      endsAt: new Date(now + 90_000_000).toISOString(),
      sale: { open: true, priceMinor: 1500, currency: 'eur', capacity: 10, maxPerOrder: 5 },
    });
    const buyer = await (await story.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await buy(system, buyer, event.id, 'ana@example.com', 2);
    await buy(system, buyer, event.id, 'ben@example.com', 1);
    await poll(async () => (await system.admin('GET', `/api/admin/events/${event.id}`)).sales?.orders).toBe(2);

    const problems: string[] = [];
    const admin = await story.adminPage();
    // Before sign-in: 401; the delete refused for paid orders: 409.
    watchConsole(admin, 'admin', problems, () => [401, 409]);
    await admin.goto(`${api}/admin/`);
    await signIn(admin, '', system.adminPassword);
    await admin.getByRole('heading', { name: 'Events' }).waitFor();
    // The dashboard: the event on sale with its sales.
    const row = admin.locator(`tr[data-sales="${event.id}"]`);
    await row.waitFor();
    expect(await row.locator('[data-key="sales-sold"]').textContent()).toBe('3');
    expect(await row.locator('[data-key="sales-left"]').textContent()).toBe('7');
    await noSeriousAccessibilityFindings(admin, 'dashboard with events on sale');

    await admin.getByRole('link', { name: 'Box office night' }).first().click();
    await admin.getByRole('heading', { name: 'Box office night' }).waitFor();
    const figure = (key: string) => admin.locator(`[data-key="sales-${key}"] dd`).textContent();
    expect([await figure('sold'), await figure('left'), await figure('revenue'), await figure('orders')]).toEqual(['3', '7', '€45.00', '2']);
    expect(await admin.getByLabel('Viewer and sale link').inputValue()).toBe(`${api}/?event=${event.id}`);
    // Before "Copy" reads "Copied" for a moment (its name says "Copy viewer link").
    await poll(() => admin.locator('tr[data-order]').count()).toBe(2);
    await noSeriousAccessibilityFindings(admin, 'event page with sales and orders');
    await admin.getByRole('button', { name: 'Copy viewer link' }).click();
    expect(await admin.evaluate(() => navigator.clipboard.readText())).toBe(`${api}/?event=${event.id}`);
    await admin.getByRole('button', { name: 'QR code', exact: true }).click();
    await admin.getByRole('img', { name: 'QR code of the viewer link' }).waitFor();
    await poll(() => admin.locator('tr[data-order]').count()).toBe(2);
    expect(await tablesCutOff(admin)).toEqual([]);
    await shot(admin, 'box-office-event');

    // A buyer's codes by their email.
    await admin.getByLabel('Buyer email').fill('ana@example.com');
    await admin.getByRole('button', { name: 'Find', exact: true }).click();
    await poll(() => admin.locator('tr[data-code]').count()).toBe(2);

    // Refund Ana's order: the confirmation names the amount.
    const anaOrder = admin.locator('tr[data-order]', { hasText: 'ana@example.com' });
    await anaOrder.getByRole('button', { name: /^Refund order/ }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Refund €30.00' }).click();
    await poll(() => anaOrder.textContent()).toMatch(/Refunded/);
    await poll(() => figure('sold')).toBe('1');
    expect([await figure('left'), await figure('revenue'), await figure('refunded'), await figure('orders')]).toEqual(['9', '€15.00', '€30.00', '1']);
    const anaCodes = await admin.locator('tr[data-code]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-code')!));
    for (const code of anaCodes) expect((await call('POST', `${api}/api/tokens/validate`, { json: { code } })).status).toBe(403);
    const mails = async (to: string) => ((await call('GET', `${inbox}/messages.json`)).body as { to: string; subject: string }[]).filter((mail) => mail.to === to);
    await poll(async () => (await mails('ana@example.com')).length).toBe(2);
    expect(await tablesCutOff(admin)).toEqual([]);

    // Delete: the dialog says what the event holds; the API refuses it while an order is paid.
    await admin.getByRole('button', { name: 'Delete' }).click();
    expect(await dialog.locator('#confirm-message').textContent()).toMatch(/^This event has 3 access codes, 0 live sessions and 1 paid order\..*Cancel show/);
    await dialog.getByRole('button', { name: 'Delete event' }).click();
    await poll(() => admin.locator('#alert').textContent()).toMatch(new RegExp(`cancel it first \\(POST /api/admin/events/${event.id}/cancel\\)`));

    // Cancel the show: a reason is asked for, the job runs to its end, and the page says it.
    await admin.getByRole('button', { name: 'Cancel show' }).click();
    await dialog.getByRole('button', { name: 'Cancel show' }).click();
    expect(await dialog.locator('#cancel-reason-error').textContent()).toMatch(/Say why/);
    await noSeriousAccessibilityFindings(admin, 'cancel show dialog');
    await dialog.getByLabel('Reason').fill('The singer is ill');
    await dialog.getByRole('button', { name: 'Cancel show' }).click();
    await poll(() => admin.locator('[data-key="cancelled"]').textContent()).toMatch(/: The singer is ill$/);
    expect(await admin.locator('.badges').textContent()).toMatch(/Cancelled/);
    await poll(() => admin.locator('#status').textContent(), 60_000).toBe('Show cancelled: every buyer is told.');
    // Every buyer is told (the shop's and Stripe's alike): Ben's cancellation email.
    await poll(async () => (await mails('ben@example.com')).map((mail) => mail.subject)).toContain('Cancelled: Box office night');
    // The job refunded Ben's order: the list says so, with no Refund left to press.
    const benOrder = admin.locator('tr[data-order]', { hasText: 'ben@example.com' });
    await poll(() => benOrder.textContent()).toMatch(/Refunded/);
    expect(await benOrder.getByRole('button', { name: /^Refund order/ }).count()).toBe(0);
    expect(await admin.getByRole('button', { name: 'Cancel show' }).count()).toBe(0);
    await shot(admin, 'box-office-cancelled');
    // The sale link tells the buyer, instead of a code form.
    await buyer.goto(`${api}/?event=${event.id}`);
    await buyer.getByRole('heading', { name: 'This show was cancelled' }).waitFor();
    expect(await buyer.getByText('The singer is ill').count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }, 180_000);

  it('finds a buyer by email among 100,000 codes: their codes, the only rows shown', async () => {
    const { system } = story;
    const crowd = await system.admin('POST', '/api/admin/events', {
      title: 'Arena night',
      startsAt: new Date(Date.now() + 86_400_000).toISOString(),
      endsAt: new Date(Date.now() + 90_000_000).toISOString(),
      sale: { open: true, priceMinor: 2000, currency: 'eur', capacity: null, maxPerOrder: 5 },
    });
    const buyer = await (await story.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await buy(system, buyer, crowd.id, 'zoe@example.com', 2);
    // The buyer's codes are the event's oldest: a walk from the newest would pass 100,000 others first.
    const { job } = await system.admin('POST', `/api/admin/events/${crowd.id}/tokens/jobs`, { count: 100_000, label: 'Arena' });
    await untilJobEnds(system, job.id);
    const [order] = (await system.admin('GET', `/api/admin/events/${crowd.id}/orders`)).orders as { email: string; codes: string[] }[];
    expect(order!.email).toBe('zoe@example.com');

    const problems: string[] = [];
    const admin = await story.adminPage();
    watchConsole(admin, 'admin', problems, () => [401]);
    await admin.goto(`${system.urls.api}/admin/#/events/${crowd.id}`);
    await signIn(admin, '', system.adminPassword);
    await admin.getByRole('heading', { name: 'Arena night' }).waitFor();
    await poll(() => admin.locator('tr[data-code]').count()).toBeGreaterThan(0);
    await admin.getByLabel('Buyer email').fill('zoe@example.com');
    await admin.getByRole('button', { name: 'Find', exact: true }).click();
    await poll(async () => (await admin.locator('tr[data-code]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-code')))).sort()).toEqual([...order!.codes].sort());
    expect(problems).toEqual([]);
  }, 900_000);
});

/**
 * Waits for a job to end `done`, as the console follows it; a job that makes no progress for a minute is stuck
 * (a slow machine only makes it longer).
 */
async function untilJobEnds(system: LocalSystem, jobId: string): Promise<void> {
  let last = -1;
  for (let progressedAt = Date.now(); Date.now() - progressedAt < 60_000; ) {
    const { job } = await system.admin('GET', `/api/admin/jobs/${jobId}`);
    if (job.status === 'done') return;
    if (job.status === 'failed') throw new Error(`job ${jobId} failed: ${job.error}`);
    if (job.done !== last) [last, progressedAt] = [job.done, Date.now()];
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`job ${jobId} made no progress for a minute at ${last}`);
}
