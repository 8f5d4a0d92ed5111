import type { DynamoDBRecord } from 'aws-lambda';
import type { TableStreamTrigger } from '../../infra/lib/triggers';
import { handBatch } from './stream-mapping';
import { passesFilters } from './filter';
import type { TableStream } from '../table-stream';

export interface StreamTrigger {
  /** `Date.now()` when the oldest change not yet handed over was written; null when none waits. */
  oldestPending(): number | null;
  /** No batch starts after this; resolves when the one under way has ended. */
  stop(): Promise<void>;
}

const RETRY_DELAY_MS = 100;

/**
 * A Lambda event source mapping on the table's stream, locally: the records its filters let through
 * (the same filter code verify:shipped runs on the template's mappings), in order, in
 * batches of `batchSize` (after the batching window), one batch at a time, each retried then
 * dropped as the mapping does (local/triggers/stream-mapping.ts, verify:shipped's rule too). `onDropped` hears of a dropped batch with
 * when its oldest change was written.
 */
export function startStreamTrigger(options: {
  stream: TableStream;
  /** The function's trigger in infra/lib/triggers.ts: its filters, batch size, batching window and retries. */
  settings: TableStreamTrigger;
  handler: (event: { Records: DynamoDBRecord[] }) => Promise<unknown>;
  log: (line: string) => void;
  onDropped?: (oldestAt: number) => void;
}): StreamTrigger {
  const { settings, handler, log } = options;
  const windowMs = (settings.batchingWindowSeconds ?? 0) * 1000;
  /** Changes not yet handed over, oldest first, with when they were written; a batch stays here while it is delivered. */
  const pending: { record: DynamoDBRecord; at: number }[] = [];
  let stopped = false;
  let delivering: Promise<void> | null = null;
  let windowTimer: NodeJS.Timeout | undefined;

  async function deliver(): Promise<void> {
    while (pending.length > 0 && !stopped) {
      const batch = pending.slice(0, settings.batchSize);
      await handBatch(
        batch.map(({ record }) => record),
        settings,
        handler,
        {
          retryDelayMs: RETRY_DELAY_MS,
          onDropped: (error, attempts) => {
            log(`stream batch of ${batch.length} dropped after ${attempts} attempts: ${(error as Error).message}`);
            options.onDropped?.(batch[0]!.at);
          },
        },
      );
      pending.splice(0, batch.length);
    }
  }

  /** One delivery at a time, once a batch is full or its window passed; changes that came meanwhile go next. */
  function pump(): void {
    if (delivering || stopped || pending.length === 0) return;
    const waited = Date.now() - pending[0]!.at;
    if (pending.length < settings.batchSize && waited < windowMs) {
      windowTimer ??= setTimeout(() => {
        windowTimer = undefined;
        pump();
      }, windowMs - waited);
      return;
    }
    delivering = deliver().finally(() => {
      delivering = null;
      pump();
    });
  }

  const unsubscribe = options.stream.subscribe((record) => {
    if (!passesFilters(settings.filters, record)) return;
    pending.push({ record, at: Date.now() });
    pump();
  });

  return {
    oldestPending: () => pending[0]?.at ?? null,
    async stop() {
      stopped = true;
      unsubscribe();
      clearTimeout(windowTimer);
      await delivering;
    },
  };
}
