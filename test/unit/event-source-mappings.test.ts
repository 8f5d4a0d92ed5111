/**
 * The event source mappings' rules, shared by npm start's emulator and verify:shipped: a stream batch
 * retried then dropped, and a queue batch deleted as far as the function handled it.
 */
import { DeleteMessageBatchCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { handQueueBatch } from '../../local/triggers/queue-mapping';
import { batchesOf, handBatch } from '../../local/triggers/stream-mapping';

describe('the stream mapping', () => {
  it('hands records over in order, in batches of its size', () => {
    expect(batchesOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(batchesOf([], 2)).toEqual([]);
  });

  it('retries a failing batch as often as the mapping says, then drops it once', async () => {
    const calls: number[][] = [];
    const dropped: number[] = [];
    await handBatch([7, 8], { batchSize: 2, retryAttempts: 2 }, async (event) => {
      calls.push(event.Records);
      throw new Error('the function failed');
    }, { retryDelayMs: 0, onDropped: (_, attempts) => dropped.push(attempts) });
    expect(calls).toEqual([[7, 8], [7, 8], [7, 8]]);
    expect(dropped).toEqual([3]);
  });

  it('stops retrying once the function takes the batch', async () => {
    let failures = 1;
    const dropped: unknown[] = [];
    await handBatch(['a'], { batchSize: 1, retryAttempts: 5 }, async () => {
      if (failures-- > 0) throw new Error('once');
    }, { retryDelayMs: 0, onDropped: (error) => dropped.push(error) });
    expect(failures).toBe(-1);
    expect(dropped).toEqual([]);
  });
});

describe('the queue mapping', () => {
  const messages: Message[] = ['m1', 'm2', 'm3'].map((id) => ({ MessageId: id, ReceiptHandle: `r-${id}`, Body: `{"step":"${id}"}`, Attributes: { ApproximateReceiveCount: '1' } }));
  const queueArn = 'arn:aws:sqs:eu-west-1:000000000000:jobs';

  /** An SQS client that keeps the receipts it is asked to delete. */
  function deletingClient() {
    const deleted: string[] = [];
    const client = {
      send: async (command: unknown) => {
        expect(command).toBeInstanceOf(DeleteMessageBatchCommand);
        deleted.push(...(command as DeleteMessageBatchCommand).input.Entries!.map((entry) => entry.ReceiptHandle!));
        return {};
      },
    } as unknown as SQSClient;
    return { client, deleted };
  }

  it('deletes what the function handled and gives back what its partial response lists', async () => {
    const { client, deleted } = deletingClient();
    const outcome = await handQueueBatch({
      client,
      queueUrl: 'http://queue',
      queueArn,
      messages,
      reportBatchItemFailures: true,
      invoke: async (event) => {
        expect(event.Records.map((record) => [record.messageId, record.eventSourceARN, record.awsRegion])).toEqual([
          ['m1', queueArn, 'eu-west-1'],
          ['m2', queueArn, 'eu-west-1'],
          ['m3', queueArn, 'eu-west-1'],
        ]);
        return { batchItemFailures: [{ itemIdentifier: 'm2' }] };
      },
    });
    expect(outcome).toEqual({ returned: 1 });
    expect(deleted).toEqual(['r-m1', 'r-m3']);
  });

  it('gives the whole batch back when the invocation fails, and says why', async () => {
    const { client, deleted } = deletingClient();
    const failure = new Error('the function failed');
    const outcome = await handQueueBatch({ client, queueUrl: 'http://queue', queueArn, messages, reportBatchItemFailures: true, invoke: async () => Promise.reject(failure) });
    expect(outcome).toEqual({ returned: 3, error: failure });
    expect(deleted).toEqual([]);
  });

  it('ignores a partial response where the mapping does not report item failures', async () => {
    const { client, deleted } = deletingClient();
    const outcome = await handQueueBatch({ client, queueUrl: 'http://queue', queueArn, messages, reportBatchItemFailures: false, invoke: async () => ({ batchItemFailures: [{ itemIdentifier: 'm2' }] }) });
    expect(outcome).toEqual({ returned: 0 });
    expect(deleted).toEqual(['r-m1', 'r-m2', 'r-m3']);
  });
});
