/**
 * The console's generation of many codes, in Chromium against `npm start`'s
 * program: more than 500 codes start a background job whose progress bar
 * (done of total, %, time left) follows the job, survives a reload of the
 * page, and gives way to the refreshed code list when the job is done. The
 * 9,000 codes are then walked as a user pages them: 100 a page (server cursor),
 * a label filter, an exact code typed as printed, and ticket sheets of a label
 * 400 at a time. Slow answers (routed late) check the order of what is drawn: the
 * job's notice comes with its new list, and a page turned during a refresh stays;
 * a refused turn leaves the pager where it was.
 * The worker is paused (SIGSTOP) for the screenshots, at 1280 and 390 px.
 */
import { describe, expect, it } from 'vitest';
import { browserStory, noHorizontalScroll, shot, watchConsole } from '../support/browser-story';

const poll = <T>(read: () => Promise<T>, timeout = 60_000) => expect.poll(read, { timeout, interval: 250 });

describe('web: generating codes in the background', () => {
  const story = browserStory();

  it('shows the job’s progress, keeps it across a reload, and pages the codes when it is done', async () => {
    const { system } = story;
    const api = system.urls.api!;
    const page = await story.adminPage();
    const problems: string[] = [];
    let signedIn = false;
    let refusing = false;
    watchConsole(page, 'admin', problems, () => (signedIn ? (refusing ? [503] : []) : [401]));
    await page.goto(`${api}/admin/`);
    await page.getByLabel('Login name').fill('owner');
    await page.getByLabel('Password').fill(system.adminPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    signedIn = true;
    const event = await page.evaluate(async (body) => {
      const response = await fetch('/api/admin/events', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return (await response.json()) as { id: string };
    }, JSON.stringify({ title: 'Arena night', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 7_200_000).toISOString() }));
    await page.goto(`${api}/admin/#/events/${event.id}`);
    await page.getByRole('heading', { name: 'Arena night' }).waitFor();

    await page.getByLabel('How many').fill('9000');
    await page.getByLabel('Label').fill('Presale');
    await page.getByRole('button', { name: 'Generate codes' }).click();
    await poll(() => page.locator('#status').textContent()).toBe('Generating 9,000 codes in the background.');
    const job = page.locator('.job-progress');
    await job.waitFor();
    expect(await job.locator('.job-title').textContent()).toBe('Generating 9,000 codes');
    const bar = page.getByRole('progressbar', { name: 'Generating 9,000 codes' });
    expect(await bar.getAttribute('max')).toBe('9000');

    // Halfway (the worker's first steps done), the worker is paused so that the bar holds still.
    await poll(async () => Number(await bar.evaluate((element) => (element as HTMLProgressElement).value)), 180_000).toBeGreaterThanOrEqual(1000);
    const resume = await system.pauseJobWorker();
    story.atClose(resume);
    // A write the worker had sent may still land: the job holds still once two reads a while apart agree.
    const jobId = (await job.getAttribute('data-job'))!;
    const doneNow = async () => (await system.admin('GET', `/api/admin/jobs/${jobId}`)).job.done as number;
    let done = await doneNow();
    for (let settled = false; !settled; ) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const again = await doneNow();
      settled = again === done;
      done = again;
    }
    expect(done).toBeLessThan(9000);
    await poll(() => bar.evaluate((element) => (element as HTMLProgressElement).value)).toBe(done);
    const figures = job.locator('.job-figures');
    const percent = Math.floor((done / 9000) * 100);
    expect(await figures.textContent()).toMatch(new RegExp(`^${done.toLocaleString('en-US')} of 9,000 \\(${percent} %\\) · (about \\d+ (s|min) left|working out the time left)$`));
    expect(await job.getAttribute('data-status')).toBe('running');
    await shot(page, 'admin-code-job-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(page);
    await shot(page, 'admin-code-job-390');

    // A reload finds the job under way and shows the same bar.
    await page.reload();
    await page.getByRole('heading', { name: 'Arena night' }).waitFor();
    await page.locator(`.job-progress[data-job="${jobId}"]`).waitFor();
    await poll(() => page.getByRole('progressbar', { name: 'Generating 9,000 codes' }).evaluate((element) => (element as HTMLProgressElement).value)).toBe(done);
    expect(await page.locator('.job-progress .job-figures').textContent()).toMatch(/ of 9,000 \(\d+ %\) · /);
    await page.setViewportSize({ width: 1280, height: 900 });

    // The worker carries on: when the job is done the bar goes and the list shows the newest page of codes.
    // The list answers slowly (as on a loaded machine): the notice still comes with the new list, not over the old one.
    await page.route(/\/tokens\?/, async (route) => {
      await new Promise((settle) => setTimeout(settle, 1_500));
      await route.continue();
    });
    resume();
    await poll(() => page.locator('#status').textContent(), 240_000).toBe('9,000 codes generated.');
    expect(await page.locator('.job-progress').count()).toBe(0);
    await page.unroute(/\/tokens\?/);
    const shown = () => page.locator('tr[data-code]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-code')!));
    expect(await shown()).toHaveLength(100);
    expect(await page.locator('tr[data-code] td', { hasText: 'Presale' }).count()).toBe(100);
    const older = page.getByRole('button', { name: 'Older →' });
    const newer = page.getByRole('button', { name: '← Newer' });
    const pageNumber = page.locator('[data-key="codes-page"]');
    // The event's 9,000 codes, 100 a page.
    await poll(() => pageNumber.textContent()).toBe('Page 1 of about 90');
    expect(await newer.isHidden()).toBe(true);

    // Paging: every page another 100 codes, back to the same first page.
    const first = await shown();
    await older.click();
    await poll(() => pageNumber.textContent()).toBe('Page 2 of about 90');
    await poll(async () => (await shown())[0]).not.toBe(first[0]);
    const second = await shown();
    expect(second).toHaveLength(100);
    expect(second.filter((code) => first.includes(code))).toEqual([]);
    await newer.click();
    await poll(() => pageNumber.textContent()).toBe('Page 1 of about 90');
    await poll(shown).toEqual(first);
    // A page turned while the first page is still being read again (after a code is made): the later page
    // stays, the earlier answer is dropped.
    const firstPage = /\/tokens\?(?!.*cursor=)/;
    let slowAnswers = 0;
    await page.route(firstPage, async (route) => {
      await new Promise((settle) => setTimeout(settle, 1_500));
      await route.continue();
      slowAnswers++;
    });
    await page.getByLabel('How many').fill('1');
    await page.getByLabel('Label').fill('Door');
    await page.getByRole('button', { name: 'Generate codes' }).click();
    await poll(() => page.locator('#status').textContent()).toBe('1 code generated.');
    await older.click();
    await poll(() => pageNumber.textContent()).toBe('Page 2 of about 91');
    await poll(shown).toEqual(second);
    await poll(async () => slowAnswers).toBe(1);
    await page.waitForTimeout(500);
    expect(await shown()).toEqual(second);
    expect(await pageNumber.textContent()).toBe('Page 2 of about 91');
    await page.unroute(firstPage);
    await newer.click();
    await poll(async () => (await shown()).slice(1)).toEqual(first.slice(0, 99));
    expect(await page.locator('tr[data-code] td', { hasText: 'Door' }).count()).toBe(1);
    // A turn the API refuses says so and leaves the pager on the page shown: the next press turns it.
    refusing = true;
    await page.route(/\/tokens\?.*cursor=/, (route) => route.fulfill({ status: 503, json: { error: 'unavailable' } }), { times: 1 });
    await older.click();
    await poll(() => page.locator('#alert').textContent()).not.toBe('');
    expect(await pageNumber.textContent()).toBe('Page 1 of about 91');
    await older.click();
    await poll(() => pageNumber.textContent()).toBe('Page 2 of about 91');
    // The new code moved one code of page 1 over.
    await poll(shown).toEqual([first[99], ...second.slice(0, 99)]);
    refusing = false;
    await newer.click();
    await poll(() => pageNumber.textContent()).toBe('Page 1 of about 91');

    // One exact code, typed as printed on a ticket (lower case, dashes): one lookup, one row.
    const wanted = second[42]!;
    await page.getByLabel('Code', { exact: true }).fill(wanted.toLowerCase().replace(/(.{4})(?=.)/g, '$1-'));
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await poll(shown).toEqual([wanted]);
    await page.getByLabel('Code', { exact: true }).fill('');
    // The label is exact: another case matches nothing; the label filter pages as the list does.
    await page.getByLabel('Sale or list').fill('presale');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await poll(() => page.locator('.codes-list .empty').textContent()).toBe('No codes match this filter.');
    await page.getByLabel('Sale or list').fill('Presale');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await poll(shown).toEqual(first);
    expect(await older.isVisible()).toBe(true);

    // Tickets of the label: a sheet of 400, then the next 400, never all 9,000 on one page.
    await page.getByRole('button', { name: 'Print tickets' }).click();
    await page.getByRole('heading', { name: 'Print tickets' }).waitFor();
    const tickets = () => page.locator('.ticket-sheet .ticket').evaluateAll((all) => all.map((ticket) => ticket.getAttribute('data-code')!));
    await poll(async () => (await tickets()).length).toBe(400);
    expect(await page.getByLabel('Tickets for').locator('option').first().textContent()).toBe('The newest 400 usable codes labelled “Presale” (400 codes)');
    const sheet = await tickets();
    expect(sheet).toEqual(expect.arrayContaining(first));
    await page.getByRole('link', { name: 'Next 400 codes labelled “Presale” →' }).click();
    await poll(async () => (await tickets()).filter((code) => sheet.includes(code)).length === 0 && (await tickets()).length).toBe(400);
    expect(problems).toEqual([]);
  }, 480_000);
});
