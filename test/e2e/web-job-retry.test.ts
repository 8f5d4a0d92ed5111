/**
 * A background job that fails, and its Retry in the console, in Chromium. The
 * table refuses the writes of the codes to be revoked (500, what a failing
 * table answers) while the rest of it works, try after try: the revocation by
 * label the console started reads, in plain words, "Stopped: 25 codes could not be revoked because the
 * database was unavailable or too busy. …"
 * with a Retry button. Once the table takes the writes again, Retry makes the
 * bar move on from where the lanes stopped to the exact count, and the event's
 * audit log shows the failure and the retry. Read-only, who may not revoke,
 * sees no bar and no button.
 *
 * `npm start` gives no way between its worker and its table, so this runs the
 * same parts in the test process: the API (the shipped handlers) serving the
 * console's built pages, on the embedded DynamoDB and SQS, and the shipped job
 * worker behind the local event source, its table reached through a proxy
 * (test/support/dynamo-item-writes.ts). The proxy also holds the second lane's
 * commit after the retry, so the bar is seen between its start and its end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient, sqsClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { startApiServer, type ApiServer } from '../../local/api-server';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';
import { createJobQueues } from '../../local/job-queues';
import type { SqsEventSource } from '../../local/triggers/sqs-event-source';
import { buildWeb } from '../../web/build';
import { noSeriousAccessibilityFindings } from '../support/axe';
import { signIn, watchConsole } from '../support/browser-story';
import { artifacts, cspViolations, launchBrowser } from '../../harness/browser';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { dynamoItemWrites, type ItemWrite } from '../support/dynamo-item-writes';
import { startTestJobWorker } from '../../harness/test-job-worker';
import { call } from '../../harness/http';
import { valueOf } from '../../harness/wait';

const poll = <T>(read: () => Promise<T>, timeout = 60_000) => expect.poll(read, { timeout, interval: 250 });

const PRESALE = 1_200;
const GUESTS = 20;
const TOTAL = PRESALE + GUESTS;
const REASON = '25 codes could not be revoked: DynamoDB unavailable: InternalServerError Internal server error';
/** The console's words for it; the stored cause stays in the line's title. */
const SAID = 'Stopped: 25 codes could not be revoked because the database was unavailable or too busy. Retry goes on from where it stopped.';

let webRoot: string;
let aws: EmbeddedS3;
let api: ApiHarness;
let site: ApiServer;
let sqs: SQSClient;
let worker: SqsEventSource;
let browser: Browser;
const table = dynamoItemWrites();

beforeAll(async () => {
  webRoot = await mkdtemp(join(tmpdir(), 'stagedoor-web-'));
  await buildWeb(webRoot);
  aws = await startEmbeddedS3({ buckets: [] });
  const queues = await createJobQueues(aws.endpoint);
  api = await startApi({ JOBS_QUEUE_URL: queues.queueUrl }, { sqsEndpoint: aws.endpoint });
  // The console's pages and the API on one origin, as `npm start` serves them.
  site = await startApiServer({ port: 0, host: '127.0.0.1', webRoot, wiring: api.wiring });
  const connection = api.wiring.aws;
  sqs = sqsClient(connection);
  const workerTable = await table.via(connection.endpoints!.dynamodb!);
  const stores = dynamoStores(dynamoDocumentClient({ ...connection, endpoints: { ...connection.endpoints, dynamodb: workerTable } }), api.wiring.config.tableName);
  worker = startTestJobWorker(sqs, queues.queueUrl, { stores });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  const refused = browser ? [...cspViolations(browser)] : [];
  await browser?.close();
  await worker?.stop();
  await table.close();
  await site?.close();
  await api?.close();
  sqs?.destroy();
  await aws?.close();
  if (webRoot) await rm(webRoot, { recursive: true, force: true });
  expect(refused, 'Content-Security-Policy violations').toEqual([]);
});

const isCode = (write: ItemWrite) => write.pk.startsWith('CODE#');
/** A step's commit: the lane's new position and the job's `done` (functions/adapters/dynamo-job-store.ts `completeStep`). */
const isStepCommit = (write: ItemWrite) => write.pk.startsWith('JOB#') && /\bADD #done\b/.test(write.request.UpdateExpression ?? '');

/** Each state the job's progress element was drawn in, from now on (the element itself leaves the page when the job is done). */
async function recordDraws(page: Page, jobId: string): Promise<() => Promise<{ status: string; value: number; max: number; figures: string }[]>> {
  await page.evaluate((id) => {
    const element = document.querySelector<HTMLElement>(`.job-progress[data-job="${id}"]`)!;
    const draws: unknown[] = [];
    (window as unknown as { __draws: unknown[] }).__draws = draws;
    const bar = element.querySelector('progress')!;
    const snapshot = () => ({ status: element.dataset.status, value: bar.value, max: bar.max, figures: element.querySelector('.job-figures')!.textContent });
    new MutationObserver(() => draws.push(snapshot())).observe(element, { attributes: true, childList: true, characterData: true, subtree: true });
  }, jobId);
  return () => page.evaluate(() => (window as unknown as { __draws: never[] }).__draws);
}

describe('web: a failed background job and its Retry', () => {
  it('shows why the job stopped, and Retry takes the bar on to the exact count once the table takes the writes again', async () => {
    const event = (
      await api.admin('POST', '/api/admin/events', { title: 'Harbour night', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 7_200_000).toISOString() })
    ).body as { id: string };
    // The guests' codes first: the newest codes, walked first by each lane, are the presale's.
    expect((await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: GUESTS, label: 'Guests' })).status).toBe(201);
    const generation = (await api.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, { count: PRESALE, label: 'Presale' })).body.job;
    await valueOf('the presale codes', async () => (await api.admin('GET', `/api/admin/jobs/${generation.id}`)).body.job.status === 'done', { timeout: 120_000 });

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const problems: string[] = [];
    let signedIn = false;
    watchConsole(page, 'admin', problems, () => (signedIn ? [] : [401]));
    await page.goto(`${site.url}/admin/`);
    await signIn(page, 'owner', api.adminPassword);
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    signedIn = true;
    await page.goto(`${site.url}/admin/#/events/${event.id}`);
    await page.getByRole('heading', { name: 'Harbour night' }).waitFor();

    // The table refuses every write of a code from now on, to the worker only: try after try, the same codes fail.
    table.refuse(isCode);
    await page.getByLabel('Sale or list').fill('Presale');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByRole('button', { name: 'Revoke all with the label “Presale”' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Revoke all with the label “Presale”' }).click();
    await dialog.waitFor({ state: 'detached' });
    const progress = page.locator('.codes-panel .job-progress');
    const bar = progress.getByRole('progressbar', { name: `Revoking codes: looking through ${TOTAL.toLocaleString('en-US')} codes` });
    await bar.waitFor();

    // After its tries the job stops, and says why in plain words, with a Retry button.
    await poll(() => progress.getAttribute('data-status')).toBe('failed');
    expect(await progress.getByRole('alert').textContent()).toBe(SAID);
    expect(await progress.locator('.job-figures').textContent()).toBe(`0 of ${TOTAL.toLocaleString('en-US')} (0 %) · stopped`);
    const retry = progress.getByRole('button', { name: 'Retry' });
    await retry.waitFor();
    expect(table.refused).toBeGreaterThan(0);
    const jobId = (await progress.getAttribute('data-job'))!;
    expect((await api.admin('GET', `/api/admin/jobs/${jobId}`)).body.job).toMatchObject({ kind: 'revoke-codes', status: 'failed', done: 0, error: REASON });
    await noSeriousAccessibilityFindings(page, 'codes with a failed job');
    await progress.screenshot({ path: `${artifacts}admin-job-failed-1280.png` });

    // A reload shows the failed job again, with its reason and its Retry.
    await page.reload();
    await page.getByRole('heading', { name: 'Harbour night' }).waitFor();
    await retry.waitFor();
    expect([await progress.getByRole('alert').textContent(), await progress.getByRole('alert').getAttribute('title')]).toEqual([SAID, REASON]);

    // The table takes the writes again. The first lane's commit after the retry goes through, the next is held:
    // the bar is seen moving before the job is done.
    table.release();
    let commits = 0;
    table.hold((write) => isStepCommit(write) && ++commits > 1);
    const draws = await recordDraws(page, jobId);
    await retry.click();
    await poll(async () => Number(await bar.getAttribute('value'))).toBeGreaterThan(0);
    await valueOf('the second lane’s commit, held', () => table.held > 0);
    const midway = Number(await bar.getAttribute('value'));
    expect(midway).toBeLessThan(TOTAL);
    expect(await progress.getAttribute('data-status')).toBe('running');
    expect(await progress.locator('.job-failure').textContent()).toBe('');
    expect(await retry.isHidden()).toBe(true);
    table.release();

    // Done: the bar's last draw is the whole walk, the notice counts exactly the presale's codes, the guests' stay.
    await poll(() => page.locator('#status').textContent()).toBe(`${PRESALE.toLocaleString('en-US')} codes revoked.`);
    expect(await progress.count()).toBe(0);
    const drawn = await draws();
    expect(drawn.at(-1)).toEqual({ status: 'done', value: TOTAL, max: TOTAL, figures: `${TOTAL.toLocaleString('en-US')} of ${TOTAL.toLocaleString('en-US')} (100 %) · done` });
    const values = drawn.map((draw) => draw.value);
    expect(values).toContain(midway);
    expect(values, 'the bar never goes back').toEqual([...values].sort((a, b) => a - b));
    const job = (await api.admin('GET', `/api/admin/jobs/${jobId}`)).body.job;
    expect(job).toMatchObject({ status: 'done', done: TOTAL, total: TOTAL, result: { revoked: PRESALE, label: 'Presale' } });
    const guests = (await api.admin('GET', `/api/admin/events/${event.id}/tokens?label=Guests`)).body.tokens as { isRevoked: boolean }[];
    expect(guests.filter((code) => code.isRevoked)).toEqual([]);

    // The event's audit log, reloaded, names the failure and the retry.
    await page.reload();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const revocationLog = () =>
      page.locator('.audit-panel tbody tr').evaluateAll((rows) =>
        rows
          .map((row) => ({ action: row.getAttribute('data-action'), words: row.children[2]!.textContent, target: row.querySelector('.audit-target')!.textContent }))
          .filter((entry) => entry.target === 'codes labelled "Presale"')
          .map(({ action, words }) => `${action}: ${words}`),
      );
    // Newest first.
    await poll(revocationLog).toEqual([
      'job.done: Background job done',
      'job.retry: Failed background job retried',
      'job.failed: Background job failed',
      'job.start: Background job started',
    ]);
    expect(problems).toEqual([]);
  }, 300_000);

  it('shows read-only, who may not revoke codes, no failed job and no Retry', async () => {
    const event = (
      await api.admin('POST', '/api/admin/events', { title: 'Quay night', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 7_200_000).toISOString() })
    ).body as { id: string };
    expect((await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 30, label: 'Presale' })).status).toBe(201);
    table.refuse(isCode);
    const { job } = (await api.admin('POST', `/api/admin/events/${event.id}/tokens/revoke`, { label: 'Presale' })).body;
    await valueOf('the job failed', async () => (await api.admin('GET', `/api/admin/jobs/${job.id}`)).body.job.status === 'failed');
    table.release();

    const password = 'correct horse battery staple';
    expect((await api.admin('POST', '/api/admin/accounts', { username: 'usher', role: 'read-only', password })).status).toBe(201);
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const problems: string[] = [];
    watchConsole(page, 'read-only', problems, () => [401]);
    await page.goto(`${site.url}/admin/#/events/${event.id}`);
    await signIn(page, 'usher', password);
    await page.getByRole('heading', { name: 'Quay night' }).waitFor();
    // The codes are there to read; the job is not, nor its Retry (the route refuses read-only too).
    await poll(() => page.locator('tr[data-code]').count()).toBe(30);
    expect(await page.locator('.job-progress').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    const login = await call('POST', `${site.url}/api/admin/login`, { json: { username: 'usher', password }, from: '127.0.9.9' });
    const cookie = String((login.headers['set-cookie'] as string[])[0]).split(';')[0]!;
    expect(await call('POST', `${site.url}/api/admin/jobs/${job.id}/retry`, { json: {}, headers: { cookie } })).toMatchObject({ status: 403, body: { error: 'Forbidden' } });
    expect(problems).toEqual([]);
  }, 120_000);
});
