import { Duration } from 'aws-cdk-lib';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { APP_METRICS } from '../../../../functions/adapters/telemetry';
import { INGEST_METRICS_NAMESPACE } from '../../../../ingest-container/src/metrics';

export const MINUTE = Duration.minutes(1);
export const FIVE_MINUTES = Duration.minutes(5);

/** Every table operation the stores use (functions/adapters/dynamo-*-store.ts). */
export const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
];

/** A metric the API functions publish (functions/adapters/telemetry.ts), per minute. */
export const appMetric = (metricName: string, statistic: string) =>
  new cloudwatch.Metric({ namespace: APP_METRICS.namespace, metricName, dimensionsMap: { ...APP_METRICS.dimensions }, statistic, period: MINUTE });

/** A metric the ingest tasks publish (ingest-container/src/metrics.ts), per minute. */
export const ingestMetric = (metricName: string, statistic = 'Sum') =>
  new cloudwatch.Metric({ namespace: INGEST_METRICS_NAMESPACE, metricName, statistic, period: MINUTE, label: metricName });

/** A metric of the distribution. CloudFront's metrics live in us-east-1, whatever the stack's region. */
export const cloudFrontMetric = (distribution: cloudfront.IDistribution, metricName: string, statistic: string) =>
  new cloudwatch.Metric({
    namespace: 'AWS/CloudFront',
    metricName,
    dimensionsMap: { DistributionId: distribution.distributionId, Region: 'Global' },
    statistic,
    period: FIVE_MINUTES,
    region: 'us-east-1',
  });

/** How far behind the table's stream a consumer is. */
export const iteratorAge = (fn: lambda.IFunction) => fn.metric('IteratorAge', { statistic: 'Maximum', period: MINUTE });

/** Shows between 30 minutes before their start and their end (the API publishes it). */
export const scheduledShows = () => appMetric(APP_METRICS.scheduledShows, 'Maximum');

/** Ingest tasks the load balancer finds healthy: OBS can connect when at least one is. */
export const healthyIngests = (targets: elbv2.NetworkTargetGroup) => targets.metrics.healthyHostCount({ statistic: 'Minimum', period: MINUTE });
