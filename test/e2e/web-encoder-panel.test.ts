/**
 * The console's encoder panel in Chromium on `npm start`'s program: the
 * backup stream key beside the primary's; with both encoders publishing, the
 * panel says the primary is on air and the backup stands by; "Put the backup
 * on air" switches viewers to the backup (a discontinuity in the live
 * playlist) and the panel says so; the switch is in the audit log.
 */
import { describe, expect, it } from 'vitest';
import { mediaSeconds, newShow, watchShow } from '../../harness/show';
import { publish, until } from '../support/ingest';
import { browserStory, shotsAtBothWidths, signInAsOwner } from '../support/browser-story';
import { noSeriousAccessibilityFindings } from '../support/axe';

describe('web: the encoder panel', () => {
  const story = browserStory();

  it('shows both encoders and puts the backup on air by hand', async () => {
    const { system } = story;
    const show = await newShow(system, 'Encoders');
    const { ingest } = await system.admin('GET', `/api/admin/events/${show.eventId}`);
    const viewer = await watchShow(system, show.codes[0]!);
    const primary = publish(show.rtmpUrl, undefined, { gop: 25 });
    story.atClose(() => primary.kill());
    await until(async () => mediaSeconds(await viewer.playlist()) >= 2, 250);
    const backup = publish(`${ingest.server}/${ingest.backup.streamKey}`, undefined, { gop: 30, rate: 30, size: '480x270' });
    story.atClose(() => backup.kill());
    await until(async () => {
      const { ingest: now } = await system.admin('GET', `/api/admin/events/${show.eventId}`);
      return now.encoders.length === 2 || undefined;
    }, 250);

    const page = await story.adminPage();
    await signInAsOwner(page, system);
    await page.goto(`${system.urls.api}/admin/#/events/${show.eventId}`);
    await page.getByRole('textbox', { name: 'Backup stream key' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Backup stream key' }).inputValue()).toBe(ingest.backup.streamKey);
    await expect.poll(() => page.locator('[data-key="encoder-state-primary"]').textContent(), { timeout: 15_000 }).toBe('On air');
    expect(await page.locator('[data-key="encoder-state-backup"]').textContent()).toBe('Standing by');
    await shotsAtBothWidths(page, 'encoder-panel');
    await noSeriousAccessibilityFindings(page, 'event page with both encoders');

    const before = ((await viewer.playlist()) ?? '').split('#EXT-X-DISCONTINUITY').length;
    await page.getByRole('button', { name: 'Put the backup on air' }).click();
    await until(async () => (((await viewer.playlist()) ?? '').split('#EXT-X-DISCONTINUITY').length > before) || undefined, 250);
    // The page reads the event again every 10 s.
    await expect.poll(() => page.locator('[data-key="encoder-state-backup"]').textContent(), { timeout: 25_000 }).toBe('On air');
    expect(await page.locator('[data-key="encoder-state-primary"]').textContent()).toBe('Standing by');
    await page.getByRole('button', { name: 'Put the primary on air' }).waitFor();
    const { entries } = await system.admin('GET', `/api/admin/events/${show.eventId}/audit?limit=50`);
    expect(entries.map((entry: { action: string }) => entry.action)).toEqual(expect.arrayContaining(['stream.switch', 'stream.failover']));
  }, 120_000);
});
