/**
 * The background-job worker of `npm start`, in a process of its own so that it
 * can die and be started again as a Lambda instance does
 * (local/job-worker-process.ts keeps one running): the shipped handler
 * (functions/handlers/job-worker.ts) behind a local event source with the
 * Lambda's settings. Killing it mid-step is what a crash or a timeout in AWS is.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { JOB_WORKER } from '../functions/domain/job-worker-settings';
import { handler } from '../functions/handlers/job-worker';
import { startSqsEventSource } from './sqs-event-source';

const queueUrl = process.env.JOBS_QUEUE_URL;
if (!queueUrl) throw new Error('JOBS_QUEUE_URL is required');

startSqsEventSource({
  client: new SQSClient({}),
  queueUrl,
  handler,
  batchSize: JOB_WORKER.batchSize,
  maxConcurrency: JOB_WORKER.maxConcurrency,
  timeoutSeconds: JOB_WORKER.timeoutSeconds,
  // Lambda stops an instance whose invocation timed out; its other batches come back with their visibility timeout.
  onTimeout: () => process.exit(1),
});
// Gone with the `npm start` that runs it, however that ended.
process.on('disconnect', () => process.exit(0));
