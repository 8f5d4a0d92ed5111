import type { Logger } from './log';

/**
 * The ingest's CloudWatch metrics, as embedded metric format (EMF) in its log lines: ECS ships the
 * log to CloudWatch Logs, which turns each such line into data points. The counts of a minute go
 * out in one line (a segment a second per rendition would otherwise be a line each), with the
 * publishers on air at that moment. infra/lib/constructs/monitoring.ts charts them.
 */
export const INGEST_METRICS_NAMESPACE = 'Stagedoor/Ingest';

/** `BackupOnAir`/`PrimaryOnAir`: switches of the encoder on air to that encoder (automatic or by hand); the alarm watches the first. */
export type IngestCounter = 'SegmentsUploaded' | 'UploadRetries' | 'RecordingSegmentsDropped' | 'BackupOnAir' | 'PrimaryOnAir';
const COUNTERS: IngestCounter[] = ['SegmentsUploaded', 'UploadRetries', 'RecordingSegmentsDropped', 'BackupOnAir', 'PrimaryOnAir'];
/** Publishers on air on this process when the line was written (a gauge: Maximum per process, Sum over processes). */
export const PUBLISHERS_METRIC = 'Publishers';

/** How often the counts are written. */
export const METRICS_INTERVAL_MS = 60_000;

export interface IngestMetrics {
  count(counter: IngestCounter, n?: number): void;
  /** Writes the counts so far (and the publishers on air) now. */
  flush(): void;
  /** Flushes once more and stops the timer. */
  stop(): void;
}

export function startIngestMetrics(options: { log: Logger; publishers: () => number; intervalMs?: number }): IngestMetrics {
  const counts = new Map<IngestCounter, number>();
  const flush = () => {
    const values = Object.fromEntries(COUNTERS.map((counter) => [counter, counts.get(counter) ?? 0]));
    counts.clear();
    options.log.info('ingest metrics', {
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          {
            Namespace: INGEST_METRICS_NAMESPACE,
            Dimensions: [[]],
            Metrics: [{ Name: PUBLISHERS_METRIC, Unit: 'Count' }, ...COUNTERS.map((Name) => ({ Name, Unit: 'Count' }))],
          },
        ],
      },
      [PUBLISHERS_METRIC]: options.publishers(),
      ...values,
    });
  };
  const timer = setInterval(flush, options.intervalMs ?? METRICS_INTERVAL_MS);
  timer.unref();
  return {
    count: (counter, n = 1) => void counts.set(counter, (counts.get(counter) ?? 0) + n),
    flush,
    stop() {
      clearInterval(timer);
      flush();
    },
  };
}
