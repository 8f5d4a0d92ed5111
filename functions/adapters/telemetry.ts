import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { LRUCache } from 'lru-cache';
import type { DroppedReport } from '../domain/playback-quality';
import type { DroppedReports } from '../domain/access';

/** Structured JSON logs (CloudWatch in AWS); the wiring sets the level from its configuration. */
export const logger = new Logger({ serviceName: 'stagedoor' });

/**
 * The functions' own CloudWatch metrics, as the dashboard and alarms read them (infra/lib/constructs/monitoring/metrics.ts):
 * Powertools adds the service as a dimension to each.
 */
export const APP_METRICS = { namespace: 'Stagedoor', dimensions: { service: 'stagedoor' }, counterWriteFailed: 'CounterWriteFailed', scheduledShows: 'ScheduledShows', qualityReportDropped: 'QualityReportDropped' } as const;

/** CloudWatch metrics as embedded metric format (EMF) lines of the function's log. */
const metrics = new Metrics({ namespace: APP_METRICS.namespace, serviceName: APP_METRICS.dimensions.service });

/** The shows scheduled now (stream-lease.ts), once a minute from the recording sweep. */
export function reportScheduledShows(count: number): void {
  metrics.singleMetric().addMetric(APP_METRICS.scheduledShows, MetricUnit.Count, count);
}

/**
 * A best-effort write that was lost (its caller goes on without it): one warning with what was
 * lost and why, and one data point of `metric`, which an alarm can watch.
 */
export function reportLostWrite(metric: string, message: string, fields: Record<string, unknown>): void {
  logger.warn(message, fields);
  metrics.singleMetric().addMetric(metric, MetricUnit.Count, 1);
}

/**
 * The heartbeats' dropped quality reports: each one a data point of `QualityReportDropped`, and a
 * warning for the first of each session this instance sees (a player that sends a bad field sends
 * it every 30 s; one line tells the story). The sessions already told are bounded.
 */
export function droppedReportsTelemetry(): DroppedReports {
  const told = new LRUCache<string, true>({ max: 10_000 });
  return {
    dropped(sessionId: string, report: DroppedReport) {
      metrics.singleMetric().addMetric(APP_METRICS.qualityReportDropped, MetricUnit.Count, 1);
      if (told.has(sessionId)) return;
      told.set(sessionId, true);
      logger.warn('heartbeat quality report dropped', { session_id: sessionId, field: report.field, problem: report.problem });
    },
  };
}
