import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { JobQueue } from '../functions/domain/jobs';
import type { JobStore } from '../functions/domain/jobs';
import { JOB_MAX_RECEIVES, JOB_WORKER } from '../functions/domain/jobs';
import type { Stores } from '../functions/compose/stores';
import { LIST_LIMITS } from '../functions/domain/config';

export interface JobQueues {
  queueUrl: string;
  deadLetterQueueUrl: string;
}

/**
 * The jobs queue and its dead-letter queue on the embedded SQS, shaped as the
 * CDK app shapes them (infra/lib/constructs/jobs.ts): the same redrive policy.
 * One difference: the visibility timeout is the worker's timeout (`timeoutSeconds`),
 * the least Lambda accepts, rather than AWS's advised six times that, so that the
 * steps of a worker that was killed come back within half a minute.
 */
export async function createJobQueues(endpoint: string, timeoutSeconds: number = JOB_WORKER.timeoutSeconds): Promise<JobQueues> {
  const client = new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    const dead = await client.send(new CreateQueueCommand({ QueueName: 'stagedoor-jobs-dlq', Attributes: { MessageRetentionPeriod: String(14 * 24 * 3600) } }));
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: dead.QueueUrl, AttributeNames: ['QueueArn'] }));
    const queue = await client.send(
      new CreateQueueCommand({
        QueueName: 'stagedoor-jobs',
        Attributes: {
          VisibilityTimeout: String(timeoutSeconds),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount: JOB_MAX_RECEIVES }),
        },
      }),
    );
    return { queueUrl: queue.QueueUrl!, deadLetterQueueUrl: dead.QueueUrl! };
  } finally {
    client.destroy();
  }
}

/**
 * The embedded SQS keeps its messages in memory only. After a restart of
 * `npm start` on kept data, each unfinished lane of a job is queued again at
 * the step its record says it is at (a given-up one into the dead-letter
 * queue, where it was): what SQS would have kept, read back from where the jobs
 * keep their progress. A step queued twice is one the runner handles anyway.
 */
export async function requeueUnfinishedJobs(
  stores: { events: Pick<Stores['events'], 'listEvents'>; jobs: Pick<JobStore, 'listEventJobs'> },
  queues: { steps: JobQueue; deadLetters: JobQueue },
): Promise<void> {
  for (const event of await stores.events.listEvents(LIST_LIMITS.events)) {
    for (const job of await stores.jobs.listEventJobs(event.id, 100)) {
      if (job.status === 'done') continue;
      const lanes = job.lanes.map((lane, index) => ({ lane, message: { jobId: job.id, lane: index, step: lane.step } })).filter(({ lane }) => !lane.finished);
      await queues.steps.send(lanes.filter(({ lane }) => !lane.failed).map(({ message }) => message));
      await queues.deadLetters.send(lanes.filter(({ lane }) => lane.failed).map(({ message }) => message));
    }
  }
}
