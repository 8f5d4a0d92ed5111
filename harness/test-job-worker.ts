import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsJobQueue } from '../functions/adapters/sqs-job-queue';
import { JOB_WORKER } from '../functions/domain/jobs';
import { createJobWorker, type JobWorkerDeps } from '../functions/triggers/job-worker';
import { startSqsEventSource, type SqsEventSource } from '../local/triggers/sqs-event-source';
import { TRIGGERS } from '../infra/lib/triggers';

/**
 * The job worker's handler behind the local SQS event source, with the shipped settings (batch,
 * concurrency, timeout) and the backoff's pauses shortened to a second at most: the tries and
 * their count are the same.
 */
export function startTestJobWorker(sqs: SQSClient, queueUrl: string, deps: Omit<JobWorkerDeps, 'queue' | 'retryIn' | 'now'>): SqsEventSource {
  const queue = new SqsJobQueue(sqs, queueUrl);
  return startSqsEventSource({
    client: sqs,
    queueUrl,
    handler: createJobWorker({ ...deps, queue, retryIn: (receiptHandle, seconds) => queue.retryIn(receiptHandle, Math.min(seconds, 1)), now: () => new Date() }),
    trigger: TRIGGERS['job-worker'].queue,
    timeoutSeconds: JOB_WORKER.timeoutSeconds,
    onTimeout: () => {
      throw new Error('a job step outran the worker timeout');
    },
  });
}
