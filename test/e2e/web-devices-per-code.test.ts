/**
 * Devices per code in a real browser against `npm start`'s program: with `devicesPerCode` 2, two
 * devices (two browser contexts) play one code while ffmpeg publishes, a third is refused, the
 * console shows both devices and "2 of 2 devices" on the code's row, and a revoke stops both at
 * the edge: each device's next HLS request after the revoke is 403, within 3 s.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserStory, shot, signInAsOwner, videoAdvances, watchConsole } from '../support/browser-story';

/** The budget from a revoke to the edge refusing every device of the code. */
const REVOKE_BUDGET_MS = 3_000;
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 250 });

/** Every HLS answer the page got, with when it came. */
function mediaAnswers(page: Page): { status: number; at: number }[] {
  const answers: { status: number; at: number }[] = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/streams/')) answers.push({ status: response.status(), at: Date.now() });
  });
  return answers;
}

describe('web: devices per code', () => {
  const story = browserStory();

  it('two devices play one code with N = 2, a third is refused, the console shows both, a revoke stops both at the edge', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const problems: string[] = [];
    const event = await system.admin('POST', '/api/admin/events', {
      title: `Two screens ${Date.now().toString(36)}`,
      startsAt: new Date(Date.now() - 600_000).toISOString(),
      endsAt: new Date(Date.now() + 7_200_000).toISOString(),
      devicesPerCode: 2,
    });
    const [token] = (await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1, label: 'family' })).tokens as { id: string; code: string }[];
    const details = await system.admin('GET', `/api/admin/events/${event.id}`);
    story.publish(`${details.ingest.server.replace(/\/+$/, '')}/${details.ingest.streamKey}`);

    // --- Two devices play the one code.
    let revoked = false;
    const devices: { page: Page; answers: { status: number; at: number }[] }[] = [];
    for (const name of ['laptop', 'television']) {
      const page = await (await story.newContext({ viewport: { width: 1024, height: 700 } })).newPage();
      // A playlist may be 404 before it is written; after the revoke, the edge's 403 and refresh's 403.
      watchConsole(page, name, problems, () => (revoked ? [403, 404] : [404]));
      const answers = mediaAnswers(page);
      await page.goto(`${api}/?code=${token!.code}`);
      await page.getByRole('button', { name: 'Watch' }).click();
      await videoAdvances(page);
      devices.push({ page, answers });
    }

    // --- A third device is refused with the spec's 409, in the page's words.
    const third = await (await story.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })).newPage();
    watchConsole(third, 'phone', problems, () => [409]);
    await third.goto(`${api}/?code=${token!.code}`);
    await third.getByRole('button', { name: 'Watch' }).click();
    await poll(() => third.locator('#code-error').textContent()).toMatch(/in use on another device/);
    await shot(third, 'devices-01-third-device-refused');

    // --- The console lists each device of the code, and the code's row says how many of its slots are in use.
    const admin = await story.adminPage();
    await signInAsOwner(admin, system);
    await admin.goto(`${api}/admin/#/events/${event.id}`);
    await poll(() => admin.locator(`tr[data-session-code="${token!.code}"]`).count()).toBe(2);
    expect(await admin.locator(`tr[data-session-code="${token!.code}"] .device-slot`).allTextContents()).toEqual(expect.arrayContaining([' · device 1', ' · device 2']));
    await poll(() => admin.locator(`tr[data-code="${token!.code}"] .devices-in-use`).textContent()).toBe('2 of 2 devices');
    await shot(admin, 'devices-02-console-two-devices');

    // --- A revoke: each device's next HLS request after it is refused at the edge, within the budget.
    revoked = true;
    const revokedAt = Date.now();
    await system.admin('PATCH', `/api/admin/tokens/${token!.id}/revoke`);
    for (const [index, device] of devices.entries()) {
      await poll(async () => device.answers.some((answer) => answer.at >= revokedAt && answer.status === 403)).toBe(true);
      const first403 = device.answers.find((answer) => answer.at >= revokedAt && answer.status === 403)!;
      console.log(`device ${index + 1}: first HLS 403 ${first403.at - revokedAt} ms after the revoke`);
      expect(first403.at - revokedAt).toBeLessThanOrEqual(REVOKE_BUDGET_MS);
    }
    expect(problems).toEqual([]);
  });
});
