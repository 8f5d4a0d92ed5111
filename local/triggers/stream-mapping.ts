import type { TableStreamTrigger } from '../../infra/lib/triggers';

/** What a stream mapping does with a batch, from the trigger table (npm start) or the synthesized template (verify:shipped). */
export type StreamMappingSettings = Pick<TableStreamTrigger, 'batchSize' | 'retryAttempts'>;

/** Records in the mapping's batches: in order, `batchSize` at most each. */
export function batchesOf<R>(records: readonly R[], batchSize: number): R[][] {
  const batches: R[][] = [];
  for (let i = 0; i < records.length; i += batchSize) batches.push(records.slice(i, i + batchSize));
  return batches;
}

/**
 * Hands one batch to the function as Lambda's stream mapping does: a failing invocation is retried
 * `retryAttempts` times (waiting `retryDelayMs`, doubled each time), then the batch is dropped, which
 * `onDropped` hears of (without the mapping's bisecting). The one rule of npm start's stream triggers
 * and of verify:shipped's mappings on the template.
 */
export async function handBatch<R>(
  batch: readonly R[],
  settings: StreamMappingSettings,
  invoke: (event: { Records: R[] }) => Promise<unknown>,
  options: { retryDelayMs: number; onDropped: (error: unknown, attempts: number) => void },
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await invoke({ Records: [...batch] });
      return;
    } catch (error) {
      if (attempt >= settings.retryAttempts) return options.onDropped(error, attempt + 1);
      await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs * 2 ** attempt));
    }
  }
}
