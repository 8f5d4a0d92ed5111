import { randomUUID } from 'node:crypto';
import { GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { QueueTrigger } from '../../infra/lib/triggers';
import { handQueueBatch } from './queue-mapping';

const TIMED_OUT = new Error('timed out');

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
 * the queue with the trigger's concurrency and hands each batch over as the
 * mapping does (local/triggers/queue-mapping.ts, verify:shipped's rule too), within the
 * function's timeout.
 */
export function startSqsEventSource(options: SqsEventSourceOptions): SqsEventSource {
  const { client, queueUrl } = options;
  const log = (line: string) => process.stderr.write(`job worker: ${line}\n`);
  let stopping = false;
  const arn = client
    .send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))
    .then(({ Attributes }) => Attributes?.QueueArn ?? queueUrl);

  async function invoke(messages: Message[]): Promise<void> {
    const deadline = Date.now() + options.timeoutSeconds * 1000;
    const context = {
      functionName: 'stagedoor-job-worker',
      awsRequestId: randomUUID(),
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    } as Context;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(TIMED_OUT), options.timeoutSeconds * 1000);
    });
    const outcome = await handQueueBatch({
      client,
      queueUrl,
      queueArn: await arn,
      messages,
      reportBatchItemFailures: options.trigger.reportBatchItemFailures,
      invoke: (event) => Promise.race([options.handler(event, context), timedOut]),
    }).finally(() => clearTimeout(timer));
    if (outcome.error === TIMED_OUT) {
      log(`timed out after ${options.timeoutSeconds} s`);
      return options.onTimeout();
    }
    // A function error: the whole batch comes back after its visibility timeout.
    if (outcome.error) log(`invocation failed: ${outcome.error instanceof Error ? outcome.error.stack : outcome.error}`);
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
