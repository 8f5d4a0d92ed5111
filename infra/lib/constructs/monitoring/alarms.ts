import { Aws, CfnCondition, Fn } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { cloudFrontMetric, FIVE_MINUTES, healthyIngests, ingestMetric, iteratorAge, MINUTE, scheduledShows, TABLE_OPERATIONS } from './metrics';

// One function per alarm family; what each alarm means and what to do is in docs/deploy.md, "Alarms".

/** A show is scheduled and no ingest task is healthy; a backup encoder went on air. */
export function ingestAlarms(scope: Construct, ingestTargets: elbv2.NetworkTargetGroup): cloudwatch.Alarm[] {
  return [
    new cloudwatch.MathExpression({
      expression: 'IF(FILL(shows, 0) > 0 AND FILL(healthy, 0) < 1, 1, 0)',
      usingMetrics: { shows: scheduledShows(), healthy: healthyIngests(ingestTargets) },
      period: MINUTE,
      label: 'Scheduled show without a healthy ingest',
    }).createAlarm(scope, 'IngestDownDuringShow', {
      alarmDescription: 'Stagedoor: a show is scheduled (from 30 min before its start to its end) and no ingest task is healthy behind the load balancer: OBS cannot connect. See docs/deploy.md, "Alarms".',
      threshold: 1,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    }),
    // The show carries on, but on its last encoder: the crew should look at the primary before the backup fails too.
    ingestMetric('BackupOnAir').createAlarm(scope, 'BackupEncoderOnAir', {
      alarmDescription: 'Stagedoor: a backup encoder went on air (the primary dropped, went silent, or an operator switched): the show runs on its last encoder. See docs/deploy.md, "Alarms".',
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
  ];
}

/** The consumers of the table's stream falling behind it. */
export function streamConsumerAlarms(scope: Construct, consumers: { edgeSync: lambda.IFunction; audience: lambda.IFunction }): cloudwatch.Alarm[] {
  return [
    iteratorAge(consumers.edgeSync).createAlarm(scope, 'EdgeSyncLag', {
      alarmDescription: 'Stagedoor: edge-sync is more than a minute behind the table: revokes and ended sessions reach the edge late. See docs/deploy.md, "Alarms".',
      threshold: 60_000,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
    iteratorAge(consumers.audience).createAlarm(scope, 'AudienceLag', {
      alarmDescription: 'Stagedoor: the audience recorder is more than 5 minutes behind the table: the audience charts lag. See docs/deploy.md, "Alarms".',
      threshold: 300_000,
      evaluationPeriods: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
  ];
}

/** DynamoDB throttling requests to the table. */
export function tableAlarms(scope: Construct, table: dynamodb.ITable): cloudwatch.Alarm[] {
  return [
    new cloudwatch.Alarm(scope, 'TableThrottles', {
      metric: table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: FIVE_MINUTES }),
      alarmDescription: 'Stagedoor: DynamoDB throttled requests to the table (a hot key, or the account\'s limits). See docs/deploy.md, "Alarms".',
      threshold: 10,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
  ];
}

/** The API answering 5xx. */
export function apiAlarms(scope: Construct, httpApi: apigwv2.HttpApi): cloudwatch.Alarm[] {
  return [
    new cloudwatch.MathExpression({
      expression: 'IF(requests >= 50, 100 * errors / requests, 0)',
      usingMetrics: { errors: httpApi.metricServerError({ period: FIVE_MINUTES }), requests: httpApi.metricCount({ period: FIVE_MINUTES }) },
      period: FIVE_MINUTES,
      label: 'API 5xx (%)',
    }).createAlarm(scope, 'Api5xx', {
      alarmDescription: 'Stagedoor: more than 1 % of API requests answered 5xx over 5 minutes (at least 50 requests). See docs/deploy.md, "Alarms".',
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }),
  ];
}

/**
 * CloudFront answering 5xx. An alarm reads its own region's metrics only: this one exists only in
 * a stack in us-east-1, where CloudFront's are.
 */
export function cloudFrontAlarms(scope: Construct, distribution: cloudfront.IDistribution): cloudwatch.Alarm[] {
  const cloudFront5xx = cloudFrontMetric(distribution, '5xxErrorRate', 'Average').createAlarm(scope, 'CloudFront5xx', {
    alarmDescription: 'Stagedoor: more than 5 % of CloudFront requests answered 5xx for 10 minutes (the origin, S3 or the API, failing). See docs/deploy.md, "Alarms".',
    threshold: 5,
    evaluationPeriods: 2,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  (cloudFront5xx.node.defaultChild as cloudwatch.CfnAlarm).cfnOptions.condition = new CfnCondition(scope, 'InUsEast1', {
    expression: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
  });
  return [cloudFront5xx];
}
