import type { AwsClients, AwsConnection } from '../adapters/aws-clients';
import { dynamoStores } from '../adapters/dynamo-stores';
import { s3ExportFiles } from '../adapters/s3-export-files';
import { SqsJobQueue } from '../adapters/sqs-job-queue';
import { logger } from '../adapters/telemetry';
import type { JobWorkerConfig } from '../config/job-worker-config';
import { createJobWorker } from '../triggers/job-worker';
import { paymentProvider } from './payments';

/** The worker's dependencies as `npm start` hands them to its process: its configuration and where its SDK clients connect. */
export interface JobWorkerWiring {
  config: JobWorkerConfig;
  aws: AwsConnection;
}

/** The job worker function (triggers/job-worker.ts) on the jobs queue. */
export function compose(config: JobWorkerConfig, clients: Pick<AwsClients, 'dynamo' | 's3' | 'sqs'>): ReturnType<typeof createJobWorker> {
  logger.setLogLevel(config.logLevel);
  const queue = new SqsJobQueue(clients.sqs, config.jobsQueueUrl);
  return createJobWorker({
    stores: dynamoStores(clients.dynamo, config.tableName),
    queue,
    retryIn: (receiptHandle, seconds) => queue.retryIn(receiptHandle, seconds),
    now: () => new Date(),
    exportFiles: config.exportBucket ? s3ExportFiles(clients.s3, config.exportBucket) : undefined,
    payments: paymentProvider(config),
  });
}
