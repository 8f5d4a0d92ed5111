import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { JobQueue, StepMessage } from '../domain/jobs';

/** SQS takes at most 10 messages per batch. */
const BATCH = 10;

/** The job queue on SQS: one message per step, its body the step as JSON. */
export class SqsJobQueue implements JobQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(messages: StepMessage[]): Promise<void> {
    for (let i = 0; i < messages.length; i += BATCH) {
      const batch = messages.slice(i, i + BATCH);
      const { Failed } = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map((message, index) => ({ Id: String(index), MessageBody: JSON.stringify(message) })),
        }),
      );
      const failed = Failed?.[0];
      if (failed) throw new Error(`the queue refused ${Failed!.length} of ${batch.length} job steps: ${failed.Code} ${failed.Message ?? ''}`.trim());
    }
  }

  /** Hands a received message out again after `seconds`. */
  async retryIn(receiptHandle: string, seconds: number): Promise<void> {
    await this.client.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }));
  }
}
