import { DeleteMessageBatchCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';

/** The message as Lambda's SQS mapping hands it over: camel-cased, with the queue's ARN and region. */
export function sqsRecordOf(message: Message, queueArn: string): SQSRecord {
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecord['attributes'],
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          stringValue: value.StringValue,
          binaryValue: value.BinaryValue && Buffer.from(value.BinaryValue).toString('base64'),
          stringListValues: [],
          binaryListValues: [],
          dataType: value.DataType ?? 'String',
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? 'us-east-1',
  };
}

/** How one batch went: the messages given back to the queue, and the invocation's error if it failed. */
export interface QueueBatchOutcome {
  returned: number;
  error?: unknown;
}

/**
 * Hands one received batch to the function as Lambda's SQS mapping does, and deletes the messages
 * handled: all of a batch whose invocation succeeded or, with partial batch responses, those the
 * response does not list. A failed invocation's messages come back after their visibility timeout;
 * moving a message received too often to the dead-letter queue is the queue's own redrive policy.
 * The one rule of npm start's worker and of verify:shipped's mapping on the template.
 */
export async function handQueueBatch(options: {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  messages: readonly Message[];
  reportBatchItemFailures: boolean;
  invoke: (event: { Records: SQSRecord[] }) => Promise<SQSBatchResponse | void | undefined>;
}): Promise<QueueBatchOutcome> {
  const records = options.messages.map((message) => sqsRecordOf(message, options.queueArn));
  let failed: Set<string>;
  try {
    const response = await options.invoke({ Records: records });
    failed = new Set(options.reportBatchItemFailures ? (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier) : []);
  } catch (error) {
    return { returned: records.length, error };
  }
  const handled = records.filter((record) => !failed.has(record.messageId));
  if (handled.length > 0) {
    await options.client.send(
      new DeleteMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: handled.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })) }),
    );
  }
  return { returned: records.length - handled.length };
}
