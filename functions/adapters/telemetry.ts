import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** Structured JSON logs (CloudWatch in AWS); the wiring sets the level from its configuration. */
export const logger = new Logger({ serviceName: 'stagedoor' });

/** CloudWatch metrics as embedded metric format (EMF) lines of the function's log. */
const metrics = new Metrics({ namespace: 'Stagedoor', serviceName: 'stagedoor' });

/**
 * A best-effort write that was lost (its caller goes on without it): one warning with what was
 * lost and why, and one data point of `metric`, which an alarm can watch.
 */
export function reportLostWrite(metric: string, message: string, fields: Record<string, unknown>): void {
  logger.warn(message, fields);
  metrics.singleMetric().addMetric(metric, MetricUnit.Count, 1);
}
