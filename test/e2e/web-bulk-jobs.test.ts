/**
 * The console's actions on a whole label and on a large event, in Chromium
 * against `npm start`'s program: "Revoke all with the label" (confirmed) starts
 * a job whose progress bar gives way to the count revoked and the refreshed
 * list; deleting an event of 5,520 codes takes it off the events at once while a
 * bar under the notices, kept across a reload, follows the background deletion
 * until the codes are gone. The worker is paused (SIGSTOP) so the bar is seen
 * before the job ends.
 */
import { describe, expect, it } from 'vitest';
import { browserStory, shot, signInAsOwner, watchConsole } from '../support/browser-story';
import { noSeriousAccessibilityFindings } from '../support/axe';
import { valueOf } from '../../harness/wait';

const poll = <T>(read: () => Promise<T>, timeout = 60_000) => expect.poll(read, { timeout, interval: 250 });

describe('web: revoking a label and deleting a large event in the background', () => {
  const story = browserStory();

  it('revokes every code of a label with its progress, then deletes the event with a bar that outlives it', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Stadium night',
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 7_200_000).toISOString(),
    });
    const { job: generation } = await system.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, { count: 5_500, label: 'Presale' });
    await valueOf('the codes', async () => (await system.admin('GET', `/api/admin/jobs/${generation.id}`)).job.status === 'done', { timeout: 240_000 });
    await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 20, label: 'Guests' });

    const page = await story.adminPage();
    const problems: string[] = [];
    let signedIn = false;
    // A refresh of the event's page (its live sessions every 5 s) sent just before the deletion can be
    // answered after it: 404, which the page drops silently, though Chromium logs it.
    let deleted = false;
    watchConsole(page, 'admin', problems, () => (signedIn ? (deleted ? [404] : []) : [401]));
    await signInAsOwner(page, system);
    signedIn = true;
    await page.goto(`${api}/admin/#/events/${event.id}`);
    await page.getByRole('heading', { name: 'Stadium night' }).waitFor();
    const confirm = async (button: string) => {
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      await dialog.getByRole('button', { name: button }).click();
      await dialog.waitFor({ state: 'detached' });
    };

    // No filter, no "revoke all"; the label filter offers it for the label's every code.
    const revokeAll = page.locator('[data-key="revoke-all"]');
    expect(await revokeAll.isHidden()).toBe(true);
    await page.getByLabel('Sale or list').fill('Presale');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    let resume = await system.pauseJobWorker();
    story.atClose(() => resume());
    await page.getByRole('button', { name: 'Revoke all with the label “Presale”' }).click();
    await confirm('Revoke all with the label “Presale”');
    await poll(() => page.locator('#status').textContent()).toBe('Revoking all with the label “Presale” in the background.');
    // The bar walks the event's 5,520 codes, then says how many were revoked and the list shows them so.
    const revoking = page.getByRole('progressbar', { name: 'Revoking codes: looking through 5,520 codes' });
    await revoking.waitFor();
    expect(await revoking.getAttribute('max')).toBe('5520');
    await noSeriousAccessibilityFindings(page, 'codes with a revocation under way');
    await shot(page, 'admin-revoke-label-1280');
    resume();
    await poll(() => page.locator('#status').textContent(), 240_000).toBe('5,500 codes revoked.');
    expect(await page.locator('.codes-panel .job-progress').count()).toBe(0);
    await poll(() => page.locator('tr[data-code] td', { hasText: 'Revoked' }).count()).toBe(100);
    const { tokens: guests } = await system.admin('GET', `/api/admin/events/${event.id}/tokens?label=Guests`);
    expect(guests.filter((code: { isRevoked: boolean }) => code.isRevoked)).toEqual([]);
    const { tokens: presale } = await system.admin('GET', `/api/admin/events/${event.id}/tokens?label=Presale&status=active&limit=10`);
    expect(presale).toEqual([]);

    // Deleting the event: gone from the events at once, its codes deleted in the background.
    resume = await system.pauseJobWorker();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    deleted = true;
    await confirm('Delete event');
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await poll(() => page.locator('#status').textContent()).toBe('Event “Stadium night” deleted. Its 5,520 codes are being deleted in the background.');
    expect(await page.getByRole('link', { name: 'Stadium night' }).count()).toBe(0);
    const bar = page.getByRole('progressbar', { name: 'Deleting the codes of “Stadium night”' });
    await bar.waitFor();
    expect(await bar.getAttribute('max')).toBe('5520');
    await shot(page, 'admin-event-deletion-1280');
    await noSeriousAccessibilityFindings(page, 'events with a deletion under way');

    // A reload (the job still waits for the paused worker) shows the same bar.
    await page.reload();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await bar.waitFor();
    resume();
    await poll(() => page.locator('#status').textContent(), 240_000).toBe('All codes of “Stadium night” are deleted.');
    expect(await page.locator('#background-jobs .job-progress').count()).toBe(0);
    expect(problems).toEqual([]);
  }, 600_000);
});
