import { randomUUID } from 'node:crypto';
import { DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueTrigger } from '../infra/lib/triggers';

const TIMED_OUT = Symbol('timed out');

export interface SqsEventSourceOptions {
  client: SQSClient;
  queueUrl: string;
  handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
  /** The worker's trigger in infra/lib/triggers.ts: its batch size, the batches handled at once, partial batch responses. */
  trigger: QueueTrigger;
  timeoutSeconds: number;
  /** An invocation outran the timeout: Lambda stops such an instance, and so must the caller. */
  onTimeout: () => void;
}

export interface SqsEventSource {
  /** Stops receiving, and waits for the batches under way. */
  stop(): Promise<void>;
}

/**
 * What Lambda's SQS event source mapping does, for the local worker: long-polls
 * the queue, hands each batch to the handler as an SQS event of Lambda's
 * shape, deletes the records the handler did not report as failed (partial
 * batch responses) and leaves the others to come back after their visibility
 * timeout (or sooner, if the handler changed it). Moving a message that was
 * received too often to the dead-letter queue is the queue's own redrive
 * policy, in the stand-in as in AWS.
 */
export function startSqsEventSource(options: SqsEventSourceOptions): SqsEventSource {
  const { client, queueUrl } = options;
  const log = (line: string) => process.stderr.write(`job worker: ${line}\n`);
  let stopping = false;
  const arn = client
    .send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))
    .then(({ Attributes }) => Attributes?.QueueArn ?? queueUrl);

  async function invoke(messages: Message[]): Promise<void> {
    const eventSourceARN = await arn;
    const records: SQSRecord[] = messages.map((message) => ({
      messageId: message.MessageId!,
      receiptHandle: message.ReceiptHandle!,
      body: message.Body ?? '',
      attributes: message.Attributes as unknown as SQSRecord['attributes'],
      messageAttributes: {},
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN,
      awsRegion: eventSourceARN.split(':')[3] ?? 'us-east-1',
    }));
    const deadline = Date.now() + options.timeoutSeconds * 1000;
    const context = {
      functionName: 'stagedoor-job-worker',
      awsRequestId: randomUUID(),
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    } as Context;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), options.timeoutSeconds * 1000);
    });
    let failed: Set<string>;
    try {
      const response = await Promise.race([options.handler({ Records: records }, context), timedOut]);
      if (response === TIMED_OUT) {
        log(`timed out after ${options.timeoutSeconds} s`);
        return options.onTimeout();
      }
      failed = new Set(options.trigger.reportBatchItemFailures ? (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier) : []);
    } catch (error) {
      // A function error: the whole batch comes back after its visibility timeout.
      log(`invocation failed: ${error instanceof Error ? error.stack : error}`);
      return;
    } finally {
      clearTimeout(timer);
    }
    const succeeded = records.filter((record) => !failed.has(record.messageId));
    if (succeeded.length === 0) return;
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: succeeded.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
      }),
    );
  }

  async function poll(): Promise<void> {
    while (!stopping) {
      try {
        const { Messages } = await client.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: options.trigger.batchSize, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }),
        );
        if (Messages?.length) await invoke(Messages);
      } catch (error) {
        if (stopping) return;
        log(`receiving failed: ${error}`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  const pollers = Array.from({ length: options.trigger.maxConcurrency }, () => poll());
  return {
    async stop() {
      stopping = true;
      await Promise.all(pollers);
    },
  };
}
