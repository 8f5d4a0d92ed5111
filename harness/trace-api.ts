/**
 * The API as the tracer of a leaked copy meets it, in this process: the media bucket on the embedded
 * S3 (which serves the jobs queue too), the API with the watermark secret, and the job worker that runs
 * the trace's job. Used by the trace routes' and the CLI's tests and the trace benchmark.
 */
import { dynamoDocumentClient, sqsClient } from '../functions/adapters/aws-clients';
import { dynamoStores } from '../functions/adapters/dynamo-stores';
import { startEmbeddedS3, type EmbeddedS3 } from '../local/embedded-s3';
import { createJobQueues } from '../local/job-queues';
import { startApi, type ApiHarness } from './api-harness';
import { startTestJobWorker } from './test-job-worker';

export interface TraceApi {
  api: ApiHarness;
  s3: EmbeddedS3;
  close(): Promise<void>;
}

export async function startTraceApi(bucket: string, watermarkSecret: string): Promise<TraceApi> {
  const s3 = await startEmbeddedS3({ buckets: [bucket] });
  const { queueUrl } = await createJobQueues(s3.endpoint);
  const api = await startApi({ MEDIA_BUCKET: bucket, WATERMARK_SECRET: watermarkSecret, JOBS_QUEUE_URL: queueUrl }, { s3Endpoint: s3.endpoint, sqsEndpoint: s3.endpoint });
  const sqs = sqsClient(api.wiring.aws);
  const worker = startTestJobWorker(sqs, queueUrl, { stores: dynamoStores(dynamoDocumentClient(api.wiring.aws), api.wiring.config.tableName) });
  return {
    api,
    s3,
    async close() {
      await worker.stop();
      sqs.destroy();
      await api.close();
      await s3.close();
    },
  };
}
