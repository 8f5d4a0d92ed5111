import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../adapters/telemetry';
import { stepMessage } from '../domain/jobs';
import { runStep, type RunnerDeps } from '../domain/jobs';

export interface JobWorkerDeps extends RunnerDeps {
  /** Hands a received message out again after `seconds` (ChangeMessageVisibility). */
  retryIn(receiptHandle: string, seconds: number): Promise<void>;
}

/**
 * The background-job worker: a Lambda on the jobs queue (SQS event source with
 * partial batch responses). Each record is one job step; a record it reports
 * as failed comes back for another try, and after the last one goes to the
 * dead-letter queue. Locally the same handler runs under local/triggers/sqs-event-source.ts.
 */
export function createJobWorker(deps: JobWorkerDeps) {
  return async function jobWorker(event: SQSEvent, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
    const failed = await Promise.all(event.Records.map(async (record) => ((await deliver(deps, record, context)) ? null : record.messageId)));
    return { batchItemFailures: failed.filter((id): id is string => id !== null).map((itemIdentifier) => ({ itemIdentifier })) };
  };
}

/** True when the message is dealt with (delete it). */
async function deliver(deps: JobWorkerDeps, record: SQSRecord, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<boolean> {
  const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    body = undefined;
  }
  const parsed = stepMessage.safeParse(body);
  if (!parsed.success) {
    // Nothing could ever run it: it goes to the dead-letter queue for someone to look at.
    logger.error('not a job step', { messageId: record.messageId, attempt });
    return false;
  }
  const message = parsed.data;
  try {
    const outcome = await runStep(deps, message, {
      attempt,
      remainingMs: () => context.getRemainingTimeInMillis(),
      retryIn: (seconds) => deps.retryIn(record.receiptHandle, seconds),
    });
    if (outcome === 'ignored') logger.warn('job step of no known job: dropped', { ...message });
    if (outcome === 'retry') logger.warn('job step failed: tried again', { ...message, attempt });
    if (outcome === 'dead') logger.error('job step given up: to the dead-letter queue', { ...message, attempt });
    return outcome === 'done' || outcome === 'ignored';
  } catch (error) {
    // The store or the queue failed around the step: the message comes back after the queue's visibility timeout.
    logger.error('job step could not be handled', { ...message, attempt, error });
    return false;
  }
}
