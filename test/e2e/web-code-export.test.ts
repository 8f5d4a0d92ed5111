/**
 * The console's export of an event too large for one answer, in Chromium against `npm start`'s
 * program: Export CSV meets the inline export's 413 and starts the export job, whose progress bar
 * survives a reload (the worker paused meanwhile); when the job is done a button downloads the file
 * from the embedded S3 through the job's presigned link: every code of the event once, in the
 * inline export's columns, named after the event and the day.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { LIST_LIMITS } from '../../functions/domain/config';
import { browserStory, signInAsOwner, watchConsole } from '../support/browser-story';
import { allEventCodes } from '../support/code-pages';
import { valueOf } from '../../harness/wait';

const poll = <T>(read: () => Promise<T>, timeout = 60_000) => expect.poll(read, { timeout, interval: 250 });
/** One code past what the inline export answers. */
const CODES = LIST_LIMITS.exportRows + 1;

describe('web: exporting a large event’s codes', () => {
  const story = browserStory();

  it('starts the export job past the inline limit, keeps its bar across a reload, and downloads the whole file', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const event = await system.admin('POST', '/api/admin/events', {
      title: 'Big night',
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 7_200_000).toISOString(),
    });
    const { job: generation } = await system.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, { count: CODES, label: 'Presale' });
    await valueOf('the codes', async () => ((await system.admin('GET', `/api/admin/jobs/${generation.id}`)).job.status === 'done' ? true : null), { timeout: 240_000 });

    const page = await story.adminPage();
    const problems: string[] = [];
    let signedIn = false;
    // The inline export's 413 is the console's cue to start the job.
    watchConsole(page, 'admin', problems, () => (signedIn ? [413] : [401]));
    await signInAsOwner(page, system);
    signedIn = true;
    await page.goto(`${api}/admin/#/events/${event.id}`);
    await page.getByRole('heading', { name: 'Big night' }).waitFor();

    // The worker paused: the job waits where the page can be reloaded under it.
    const resume = await system.pauseJobWorker();
    story.atClose(resume);
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const title = `Exporting ${CODES.toLocaleString('en-US')} codes to CSV`;
    const bar = page.getByRole('progressbar', { name: title });
    await bar.waitFor();
    expect(await bar.getAttribute('max')).toBe(String(CODES));
    const jobId = (await page.locator('.job-progress').getAttribute('data-job'))!;
    expect((await system.admin('GET', `/api/admin/jobs/${jobId}`)).job).toMatchObject({ kind: 'export-codes', total: CODES });

    await page.reload();
    await page.getByRole('heading', { name: 'Big night' }).waitFor();
    await page.locator(`.job-progress[data-job="${jobId}"]`).waitFor();
    expect(await page.locator('.job-progress .job-figures').textContent()).toMatch(new RegExp(`^0 of ${CODES.toLocaleString('en-US')} \\(0 %\\) · `));

    resume();
    const download = page.getByRole('button', { name: /^Download Big-night-codes-\d{4}-\d{2}-\d{2}\.csv$/ });
    await download.waitFor({ timeout: 120_000 });
    await poll(() => bar.evaluate((element) => (element as HTMLProgressElement).value)).toBe(CODES);
    expect(await page.locator('.job-progress .job-figures').textContent()).toBe(`${CODES.toLocaleString('en-US')} of ${CODES.toLocaleString('en-US')} (100 %) · done`);

    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    const day = await page.evaluate(() => new Intl.DateTimeFormat('en-CA').format(new Date()));
    expect(file.suggestedFilename()).toBe(`Big-night-codes-${day}.csv`);
    const lines = (await readFile((await file.path())!, 'utf8')).split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe('code,label,status,createdAt,expiresAt,link');
    const rows = lines.slice(1).map((line) => line.split(','));
    expect(rows).toHaveLength(CODES);
    const codes = await allEventCodes<{ id: string; code: string }>((path) => system.admin('GET', path), event.id);
    expect(new Set(rows.map((row) => row[0]))).toEqual(new Set(codes.map((code) => code.code)));
    expect(rows.every((row) => row[1] === 'Presale' && row[2] === 'unused' && row[5]!.endsWith(`/?code=${row[0]}`))).toBe(true);
    // The page stayed where it was.
    expect(page.url()).toBe(`${api}/admin/#/events/${event.id}`);
    expect(problems).toEqual([]);
  }, 480_000);
});
