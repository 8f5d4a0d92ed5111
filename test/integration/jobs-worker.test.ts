/**
 * Background jobs through the shipped handlers on the stand-ins: the admin
 * API (behind the local adapter, on dynalite) starts them on the embedded
 * SQS, and the worker handler runs them behind the local event source, as
 * `npm start` runs it. Faults are injected between the worker and its store:
 * a poison step goes to the dead-letter queue and the job reads failed with
 * the reason; a redrive from there resumes it to an exact end.
 */
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient, sqsClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import type { CodeStore } from '../../functions/domain/codes';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';
import { createJobQueues, type JobQueues } from '../../local/job-queues';
import type { SqsEventSource } from '../../local/triggers/sqs-event-source';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { startTestJobWorker } from '../../harness/test-job-worker';
import { allEventCodes } from '../support/code-pages';
import { call } from '../../harness/http';
import { valueOf } from '../../harness/wait';

let aws: EmbeddedS3;
let queues: JobQueues;
let api: ApiHarness;
let worker: SqsEventSource;
let sqs: SQSClient;
/** Events whose code writes the table refuses, as long as they are listed here. */
const refusing = new Set<string>();

beforeAll(async () => {
  aws = await startEmbeddedS3({ buckets: [] });
  queues = await createJobQueues(aws.endpoint);
  api = await startApi({ JOBS_QUEUE_URL: queues.queueUrl }, { sqsEndpoint: aws.endpoint });
  const connection = api.wiring.aws;
  sqs = sqsClient(connection);
  const stores = dynamoStores(dynamoDocumentClient(connection), api.wiring.config.tableName);
  const codes = new Proxy(stores.codes, {
    get(target, name) {
      if (name === 'createCode') {
        return async (code: Parameters<CodeStore['createCode']>[0]) => {
          if (refusing.has(code.eventId)) throw new Error('injected: the table refused a write');
          return target.createCode(code);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  worker = startTestJobWorker(sqs, queues.queueUrl, { stores: { ...stores, codes } });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  sqs?.destroy();
  await aws?.close();
});

const newEvent = async () => {
  const res = await api.admin('POST', '/api/admin/events', {
    title: 'Box office',
    startsAt: new Date().toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  return res.body as { id: string };
};



const jobOf = async (id: string) => (await api.admin('GET', `/api/admin/jobs/${id}`)).body.job;
const settled = (id: string, status: 'done' | 'failed') => valueOf(`job ${status}`, async () => ((await jobOf(id)).status === status ? jobOf(id) : null));

async function codesOf(eventId: string) {
  const tokens = await allEventCodes<{ id: string; code: string }>(async (path) => (await api.admin('GET', path)).body, eventId);
  const event = (await api.admin('GET', `/api/admin/events/${eventId}`)).body;
  return { listed: tokens.length, unique: new Set(tokens.map((t) => t.code)).size, ids: new Set(tokens.map((t) => t.id)).size, counted: event.stats.tokens };
}

const deadLetters = async () => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queues.deadLetterQueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes!.ApproximateNumberOfMessages) + Number(Attributes!.ApproximateNumberOfMessagesNotVisible);
};

describe('the job routes', () => {
  it('refuse a count out of 1..1,000,000, a long label and an unknown event', async () => {
    const event = await newEvent();
    const start = (json: unknown, eventId = event.id) => api.admin('POST', `/api/admin/events/${eventId}/tokens/jobs`, json);
    for (const count of [0, 1_000_001, 2.5, '100']) {
      expect(await start({ count })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^count: /) } });
    }
    expect(await start({ count: 10, label: 'x'.repeat(201) })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^label: /) } });
    expect(await start({ count: 10 }, 'no-such-event')).toMatchObject({ status: 404, body: { error: 'Event not found' } });
    expect(await api.admin('GET', '/api/admin/jobs/no-such-job')).toMatchObject({ status: 404, body: { error: 'Job not found' } });
    expect(await api.admin('GET', '/api/admin/events/no-such-event/jobs')).toMatchObject({ status: 404, body: { error: 'Event not found' } });
  });

  it('start a job (202), which the worker runs to an exact count; its start and end are audited; it is read with the permission that started it', async () => {
    const event = await newEvent();
    const started = await api.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, { count: 1200, label: 'Presale' });
    expect(started.status, started.text).toBe(202);
    const { job } = started.body;
    expect(Object.keys(job).sort()).toEqual(['createdAt', 'done', 'eventId', 'finishedAt', 'id', 'kind', 'status', 'total']);
    expect(job).toMatchObject({ kind: 'generate-codes', eventId: event.id, status: 'queued', done: 0, total: 1200, finishedAt: null });

    const done = await settled(job.id, 'done');
    expect(done).toMatchObject({ status: 'done', done: 1200, total: 1200, result: { count: 1200, label: 'Presale' } });
    expect(Date.parse(done.finishedAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
    expect(await codesOf(event.id)).toEqual({ listed: 1200, unique: 1200, ids: 1200, counted: 1200 });
    expect((await api.admin('GET', `/api/admin/events/${event.id}/jobs`)).body).toEqual({ jobs: [done] });

    const audit = (await api.admin('GET', `/api/admin/events/${event.id}/audit`)).body.entries as { action: string; actor: string; target: string; details: any }[];
    expect(audit.filter((entry) => entry.action.startsWith('job.'))).toEqual([
      expect.objectContaining({ action: 'job.done', actor: 'owner', target: '1,200 codes', details: expect.objectContaining({ jobId: job.id, status: 'done' }) }),
      expect.objectContaining({ action: 'job.start', actor: 'owner', target: '1,200 codes', details: { jobId: job.id, kind: 'generate-codes', count: 1200, label: 'Presale' } }),
    ]);

    // Read-only may read codes but not start a generation: it may not read the job either.
    const cookies: Record<string, string> = {};
    for (const role of ['read-only', 'box-office']) {
      const username = `jobs-${role}`;
      await api.admin('POST', '/api/admin/accounts', { username, role, password: 'correct horse battery staple' });
      const login = await call('POST', `${api.url}/api/admin/login`, { json: { username, password: 'correct horse battery staple' }, from: '127.0.9.9' });
      cookies[role] = String((login.headers['set-cookie'] as string[])[0]).split(';')[0]!;
    }
    const as = (role: string, path: string) => call('GET', `${api.url}${path}`, { headers: { cookie: cookies[role]! } });
    expect(await as('read-only', `/api/admin/jobs/${job.id}`)).toMatchObject({ status: 403, body: { error: 'Forbidden' } });
    expect((await as('read-only', `/api/admin/events/${event.id}/jobs`)).body).toEqual({ jobs: [] });
    expect((await as('box-office', `/api/admin/jobs/${job.id}`)).body).toEqual({ job: done });
    // Only a failed job is retried; read-only may not retry what it may not read.
    expect(await api.admin('POST', `/api/admin/jobs/${job.id}/retry`, {})).toMatchObject({ status: 409, body: { error: 'Only a failed job can be retried' } });
    expect(await call('POST', `${api.url}/api/admin/jobs/${job.id}/retry`, { json: {}, headers: { cookie: cookies['read-only']! } })).toMatchObject({
      status: 403,
      body: { error: 'Forbidden' },
    });
    expect(await api.admin('POST', '/api/admin/jobs/no-such-job/retry', {})).toMatchObject({ status: 404, body: { error: 'Job not found' } });
  });
});

describe('a poison step', () => {
  it('goes to the dead-letter queue after its tries, the job reads failed with the reason, and a redrive resumes it to an exact end', async () => {
    const event = await newEvent();
    refusing.add(event.id);
    const { job } = (await api.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, { count: 2500 })).body;
    const failed = await settled(job.id, 'failed');
    // Every code of each lane's first slice failed, try after try: the job says so in plain words.
    expect(failed).toMatchObject({ status: 'failed', done: 0, error: '25 codes could not be generated: injected: the table refused a write' });
    // Each of the 3 lanes' first step, once its give-up delivery is over.
    await valueOf('three dead letters', async () => (await deadLetters()) === 3);
    expect(await codesOf(event.id)).toEqual({ listed: 0, unique: 0, ids: 0, counted: 0 });

    // The fault is fixed; the operator redrives the dead-letter queue (what `start-message-move-task` does).
    refusing.delete(event.id);
    for (;;) {
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.deadLetterQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      if (!Messages?.length) break;
      for (const message of Messages) {
        await sqs.send(new SendMessageCommand({ QueueUrl: queues.queueUrl, MessageBody: message.Body! }));
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queues.deadLetterQueueUrl, ReceiptHandle: message.ReceiptHandle! }));
      }
    }
    const done = await settled(job.id, 'done');
    expect(done).toMatchObject({ done: 2500, total: 2500 });
    expect(done.error).toBeUndefined();
    expect(await codesOf(event.id)).toEqual({ listed: 2500, unique: 2500, ids: 2500, counted: 2500 });
    const ends = async (action: string) => (await api.admin('GET', `/api/admin/events/${event.id}/audit?action=${action}`)).body.entries as { details: any }[];
    expect((await ends('job.done')).map((entry) => entry.details.status)).toEqual(['done']);
    expect((await ends('job.failed')).map((entry) => entry.details.error)).toEqual(['25 codes could not be generated: injected: the table refused a write']);
  }, 120_000);

  it('is retried through the API once the fault is fixed (202, audited): the job goes on from where its lanes stopped to an exact end', async () => {
    const event = await newEvent();
    refusing.add(event.id);
    const { job } = (await api.admin('POST', `/api/admin/events/${event.id}/tokens/jobs`, { count: 1500 })).body;
    const failed = await settled(job.id, 'failed');
    expect(failed).toMatchObject({ done: 0, error: '25 codes could not be generated: injected: the table refused a write' });

    refusing.delete(event.id);
    const retried = await api.admin('POST', `/api/admin/jobs/${job.id}/retry`, {});
    expect(retried.status, retried.text).toBe(202);
    expect(retried.body.job).toMatchObject({ id: job.id, status: 'running', finishedAt: null });
    expect(retried.body.job.error).toBeUndefined();
    expect(await api.admin('POST', `/api/admin/jobs/${job.id}/retry`, {})).toMatchObject({ status: 409 });
    expect(await settled(job.id, 'done')).toMatchObject({ done: 1500, total: 1500 });
    expect(await codesOf(event.id)).toEqual({ listed: 1500, unique: 1500, ids: 1500, counted: 1500 });
    const audit = (await api.admin('GET', `/api/admin/events/${event.id}/audit?action=job.retry`)).body.entries;
    expect(audit).toEqual([
      expect.objectContaining({
        actor: 'owner',
        target: '1,500 codes',
        details: { jobId: job.id, kind: 'generate-codes', done: 0, total: 1500, error: '25 codes could not be generated: injected: the table refused a write' },
      }),
    ]);
  }, 120_000);
});
