import type { DynamoDBRecord } from 'aws-lambda';
import type { TableStream } from './table-stream';

export interface StreamTriggerOptions {
  stream: TableStream;
  /** The records the trigger's filter lets through (in AWS, the event source mapping's filter criteria). */
  accepts(record: DynamoDBRecord): boolean;
  batchSize: number;
  /** Retries of a failed batch before it is dropped. */
  retryAttempts: number;
  handler(records: DynamoDBRecord[]): Promise<unknown>;
  /** A batch of `size` records given up on after `attempts`: `at` is when its oldest record was written. */
  dropped(dropped: { at: number; size: number; attempts: number; error: Error }): void;
}

export interface StreamTrigger {
  /** When the oldest record not yet handled was written; null when none waits. */
  oldestPendingAt(): number | null;
  stop(): Promise<void>;
}

const RETRY_DELAY_MS = 100;

/**
 * A DynamoDB stream event source mapping, locally: the records `accepts` lets through, in order, in
 * batches of at most `batchSize`, one batch at a time; a failed batch is retried with a growing delay,
 * then dropped (no bisecting). Records that come while a batch runs wait for the next.
 */
export function startStreamTrigger(options: StreamTriggerOptions): StreamTrigger {
  const pending: { record: DynamoDBRecord; at: number }[] = [];
  let stopped = false;
  let delivering: Promise<void> | null = null;

  async function deliver(): Promise<void> {
    while (pending.length > 0 && !stopped) {
      const batch = pending.slice(0, options.batchSize);
      for (let attempt = 0; ; attempt++) {
        try {
          await options.handler(batch.map(({ record }) => record));
          break;
        } catch (error) {
          if (attempt >= options.retryAttempts) {
            options.dropped({ at: batch[0]!.at, size: batch.length, attempts: attempt + 1, error: error as Error });
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * 2 ** attempt));
        }
      }
      pending.splice(0, batch.length);
    }
  }

  function pump(): void {
    if (delivering || stopped || pending.length === 0) return;
    delivering = deliver().finally(() => {
      delivering = null;
      pump();
    });
  }

  const unsubscribe = options.stream.subscribe((record) => {
    if (!options.accepts(record)) return;
    pending.push({ record, at: Date.now() });
    pump();
  });

  return {
    oldestPendingAt: () => pending[0]?.at ?? null,
    async stop() {
      stopped = true;
      unsubscribe();
      await delivering;
    },
  };
}
