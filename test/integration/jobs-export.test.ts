/**
 * Export jobs on the stand-ins: the API (embedded DynamoDB), the jobs queue and the export bucket
 * on the embedded S3/SQS, the worker under the local SQS event source. A worker that dies after
 * writing a part (before its step is recorded) runs the step again: the file has every code once,
 * the inline export's bytes exactly, and the job's presigned link downloads it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient, s3Client, sqsClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { s3ExportFiles } from '../../functions/adapters/s3-export-files';
import type { ExportFiles } from '../../functions/domain/jobs';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';
import { createJobQueues, type JobQueues } from '../../local/job-queues';
import type { SqsEventSource } from '../../local/triggers/sqs-event-source';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { startTestJobWorker } from '../../harness/test-job-worker';
import { valueOf } from '../../harness/wait';

const BUCKET = 'stagedoor-exports';
let aws: EmbeddedS3;
let queues: JobQueues;
let api: ApiHarness;
let worker: SqsEventSource;
/** Parts written so far, by upload and part: the first write of each is followed by the worker dying. */
const written = new Map<string, number>();

beforeAll(async () => {
  aws = await startEmbeddedS3({ buckets: [BUCKET] });
  queues = await createJobQueues(aws.endpoint);
  api = await startApi({ JOBS_QUEUE_URL: queues.queueUrl, EXPORT_BUCKET: BUCKET }, { sqsEndpoint: aws.endpoint, s3Endpoint: aws.endpoint });
  const connection = api.wiring.aws;
  const sqs = sqsClient(connection);
  const files = s3ExportFiles(s3Client(connection), BUCKET);
  const dying: ExportFiles = {
    ...files,
    async writePart(args) {
      const tag = await files.writePart(args);
      const key = `${args.uploadId}#${args.part}`;
      written.set(key, (written.get(key) ?? 0) + 1);
      if (written.get(key) === 1) throw new Error('injected: the worker died after writing the part');
      return tag;
    },
  };
  worker = startTestJobWorker(sqs, queues.queueUrl, {
    stores: dynamoStores(dynamoDocumentClient(connection), api.wiring.config.tableName),
    exportFiles: dying,
  });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  await aws?.close();
});

describe('an export job on the stand-ins', () => {
  it('writes the inline export’s CSV though the worker dies after its part, and links to it for 15 minutes', async () => {
    const event = (
      await api.admin('POST', '/api/admin/events', { title: 'Arena, night 1', startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() })
    ).body as { id: string };
    for (let i = 0; i < 4; i++) await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 500, label: i ? 'door' : '=SUM(A1)' });

    const started = await api.admin('POST', `/api/admin/events/${event.id}/tokens/export?tz=Europe/Berlin`);
    expect(started).toMatchObject({ status: 202, body: { job: { kind: 'export-codes', status: 'queued', total: 2000 } } });
    const jobId = started.body.job.id as string;
    const done = await valueOf('the export to end', async () => {
      const { job } = (await api.admin('GET', `/api/admin/jobs/${jobId}`)).body;
      return job.status === 'done' || job.status === 'failed' ? job : null;
    });
    expect(done.error).toBeUndefined();
    expect(done).toMatchObject({ status: "done", done: 2000, total: 2000, result: { rows: 2000, fileName: expect.stringMatching(/^Arena-night-1-codes-\d{4}-\d\d-\d\d\.csv$/) } });
    expect([...written.values()].every((times) => times === 2)).toBe(true);

    const url = new URL(done.result.downloadUrl);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    const download = await fetch(url);
    expect(download.status).toBe(200);
    const csv = await download.text();
    const inline = await api.admin('GET', `/api/admin/events/${event.id}/tokens/export?tz=Europe/Berlin`);
    expect(csv).toBe(inline.text);
    expect(Buffer.byteLength(csv)).toBe(done.result.bytes);
    expect(new Set(csv.split('\r\n').slice(1, -1).map((line) => line.split(',')[0])).size).toBe(2000);
  }, 120_000);
});
