/**
 * The stack's triggers: for each function that is not behind API Gateway, what invokes it and how.
 * The CDK constructs create their event source mappings and schedules from this table, and the
 * emulator of `npm start` (local/triggers/) drives the same functions from it: the table's stream
 * with each mapping's filter, batch size, batching window and retries, the jobs queue with the
 * worker's mapping, and the schedules. Plain data: no CDK here, so local mode loads it as is.
 */
import { AUDIENCE_TRIGGERS } from '../../functions/config/audience-config';
import { EDGE_SYNC_TRIGGERS } from '../../functions/config/edge-sync-config';
import { MAILER_TRIGGERS } from '../../functions/config/mailer-config';
import { RECORDING_SWEEP_SECONDS } from '../../functions/config/recording-sweep-config';
import { CHECKOUT_SWEEP_SECONDS } from '../../functions/domain/commerce';
import { JOB_WORKER } from '../../functions/domain/jobs';

/** An event filter pattern (EventBridge syntax) on the record Lambda hands over; see local/triggers/filter.ts. */
export type FilterPattern = { [key: string]: FilterPattern | readonly unknown[] };

/** A DynamoDB stream event source mapping on the table (starting at the latest record, a failing batch bisected). */
export interface TableStreamTrigger {
  source: 'table-stream';
  /** A record is handed over when it matches one of these (the mapping's filter criteria). */
  filters: readonly FilterPattern[];
  batchSize: number;
  /** Waits up to this long for a batch to fill; absent: at once. */
  batchingWindowSeconds?: number;
  /** Retries of a failing batch; then it is dropped, or sent to the function's failure queue. */
  retryAttempts: number;
  onFailure?: 'failure-queue';
}

/** An SQS event source mapping on the jobs queue. */
export interface QueueTrigger {
  source: 'jobs-queue';
  batchSize: number;
  /** Invocations at once (the mapping's maximum concurrency). */
  maxConcurrency: number;
  /** Partial batch responses: only the messages the function lists come back. */
  reportBatchItemFailures: boolean;
}

/** An EventBridge schedule with the function as its target. */
export interface ScheduleTrigger {
  source: 'schedule';
  everySeconds: number;
  /** Retries of a failed delivery (0: the next run is the retry). */
  retryAttempts: number;
}

export type Trigger = TableStreamTrigger | QueueTrigger | ScheduleTrigger;

/** Items whose partition key starts with one of `prefixes`, as Lambda's filter on a stream record reads it. */
const keyPrefixes = (prefixes: readonly string[], newImage?: FilterPattern): FilterPattern => ({
  dynamodb: { Keys: { pk: { S: prefixes.map((prefix) => ({ prefix })) } }, ...(newImage ? { NewImage: newImage } : {}) },
});

export const TRIGGERS = {
  'edge-sync': {
    // No batching window: a revoke should reach the edge within seconds. A dropped batch is made up for by the next reconciliation.
    stream: {
      source: 'table-stream',
      filters: [keyPrefixes(EDGE_SYNC_TRIGGERS.stream.keyPrefixes)],
      batchSize: EDGE_SYNC_TRIGGERS.stream.batchSize,
      retryAttempts: EDGE_SYNC_TRIGGERS.stream.retryAttempts,
    },
    /** Unless the deployment sets `edgeReconcileMinutes`. */
    reconcile: { source: 'schedule', everySeconds: EDGE_SYNC_TRIGGERS.reconcileMinutes * 60, retryAttempts: 2 },
  },
  'audience-recorder': {
    stream: {
      source: 'table-stream',
      filters: [keyPrefixes(AUDIENCE_TRIGGERS.stream.keyPrefixes)],
      batchSize: AUDIENCE_TRIGGERS.stream.batchSize,
      batchingWindowSeconds: AUDIENCE_TRIGGERS.stream.batchingWindowSeconds,
      retryAttempts: AUDIENCE_TRIGGERS.stream.retryAttempts,
    },
  },
  mailer: {
    // Only a write that leaves an order's email owed; a batch still failing goes to the failure queue (its orders keep their email pending).
    stream: {
      source: 'table-stream',
      filters: [keyPrefixes(MAILER_TRIGGERS.stream.keyPrefixes, { emailStatus: { S: [MAILER_TRIGGERS.stream.emailStatus] } })],
      batchSize: MAILER_TRIGGERS.stream.batchSize,
      retryAttempts: MAILER_TRIGGERS.stream.retryAttempts,
      onFailure: 'failure-queue',
    },
  },
  'job-worker': {
    queue: { source: 'jobs-queue', batchSize: JOB_WORKER.batchSize, maxConcurrency: JOB_WORKER.maxConcurrency, reportBatchItemFailures: true },
  },
  'recording-sweep': { schedule: { source: 'schedule', everySeconds: RECORDING_SWEEP_SECONDS, retryAttempts: 0 } },
  'checkout-sweep': { schedule: { source: 'schedule', everySeconds: CHECKOUT_SWEEP_SECONDS, retryAttempts: 0 } },
} as const satisfies Record<string, Record<string, Trigger>>;

export type TriggeredFunction = keyof typeof TRIGGERS;
