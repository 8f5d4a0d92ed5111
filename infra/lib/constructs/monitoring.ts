import { Aws, CfnCondition, Duration, Fn, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { APP_METRICS } from '../../../functions/adapters/telemetry';
import type { Area } from '../../../functions/http/route-table';
import { INGEST_METRICS_NAMESPACE, PUBLISHERS_METRIC, type IngestCounter } from '../../../ingest-container/src/metrics';

export interface MonitoringProps {
  /** The API's functions: one per route group (area of functions/http/route-table.ts). */
  apiFunctions: Record<Area, lambda.IFunction>;
  httpApi: apigwv2.HttpApi;
  /** Functions on the table's stream: their iterator age is how far behind they are. */
  edgeSync: lambda.IFunction;
  audience: lambda.IFunction;
  recordingSweep: lambda.IFunction;
  table: dynamodb.ITable;
  distribution: cloudfront.IDistribution;
  ingestTargets: elbv2.NetworkTargetGroup;
}

const MINUTE = Duration.minutes(1);
const FIVE_MINUTES = Duration.minutes(5);
/** Every table operation the stores use (functions/adapters/dynamo-*-store.ts). */
const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
];
const INGEST_COUNTERS: IngestCounter[] = ['SegmentsUploaded', 'UploadRetries', 'RecordingSegmentsDropped'];

/**
 * The stack's alarms besides each function's own (AppFunction: errors, throttles) and its dashboard.
 * Every alarm notifies the alarm topic (alerts.ts); what each means and what to do is in
 * docs/deploy.md, "Alarms and the dashboard".
 */
export class Monitoring extends Construct {
  readonly dashboard: cloudwatch.Dashboard;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const areas = Object.keys(props.apiFunctions) as Area[];
    const lambdas: [string, lambda.IFunction][] = [
      ...areas.map((area) => [`API ${area}`, props.apiFunctions[area]] as [string, lambda.IFunction]),
      ['edge-sync', props.edgeSync],
      ['audience recorder', props.audience],
      ['recording sweep', props.recordingSweep],
    ];
    const appMetric = (metricName: string, statistic: string) =>
      new cloudwatch.Metric({ namespace: APP_METRICS.namespace, metricName, dimensionsMap: { ...APP_METRICS.dimensions }, statistic, period: MINUTE });
    const ingestMetric = (metricName: string, statistic = 'Sum') => new cloudwatch.Metric({ namespace: INGEST_METRICS_NAMESPACE, metricName, statistic, period: MINUTE, label: metricName });
    // CloudFront's metrics live in us-east-1, whatever the stack's region.
    const cloudFront = (metricName: string, statistic: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/CloudFront',
        metricName,
        dimensionsMap: { DistributionId: props.distribution.distributionId, Region: 'Global' },
        statistic,
        period: FIVE_MINUTES,
        region: 'us-east-1',
      });
    const iteratorAge = (fn: lambda.IFunction) => fn.metric('IteratorAge', { statistic: 'Maximum', period: MINUTE });

    const scheduledShows = appMetric(APP_METRICS.scheduledShows, 'Maximum');
    const healthyIngests = props.ingestTargets.metrics.healthyHostCount({ statistic: 'Minimum', period: MINUTE });
    this.alarms.push(
      new cloudwatch.MathExpression({
        expression: 'IF(FILL(shows, 0) > 0 AND FILL(healthy, 0) < 1, 1, 0)',
        usingMetrics: { shows: scheduledShows, healthy: healthyIngests },
        period: MINUTE,
        label: 'Scheduled show without a healthy ingest',
      }).createAlarm(this, 'IngestDownDuringShow', {
        alarmDescription: 'Stagedoor: a show is scheduled (from 30 min before its start to its end) and no ingest task is healthy behind the load balancer: OBS cannot connect. See docs/deploy.md, "Alarms".',
        threshold: 1,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      }),
      iteratorAge(props.edgeSync).createAlarm(this, 'EdgeSyncLag', {
        alarmDescription: 'Stagedoor: edge-sync is more than a minute behind the table: revokes and ended sessions reach the edge late. See docs/deploy.md, "Alarms".',
        threshold: 60_000,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      iteratorAge(props.audience).createAlarm(this, 'AudienceLag', {
        alarmDescription: 'Stagedoor: the audience recorder is more than 5 minutes behind the table: the audience charts lag. See docs/deploy.md, "Alarms".',
        threshold: 300_000,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      new cloudwatch.Alarm(this, 'TableThrottles', {
        metric: props.table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: FIVE_MINUTES }),
        alarmDescription: 'Stagedoor: DynamoDB throttled requests to the table (a hot key, or the account\'s limits). See docs/deploy.md, "Alarms".',
        threshold: 10,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      new cloudwatch.MathExpression({
        expression: 'IF(requests >= 50, 100 * errors / requests, 0)',
        usingMetrics: { errors: props.httpApi.metricServerError({ period: FIVE_MINUTES }), requests: props.httpApi.metricCount({ period: FIVE_MINUTES }) },
        period: FIVE_MINUTES,
        label: 'API 5xx (%)',
      }).createAlarm(this, 'Api5xx', {
        alarmDescription: 'Stagedoor: more than 1 % of API requests answered 5xx over 5 minutes (at least 50 requests). See docs/deploy.md, "Alarms".',
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    // An alarm reads its own region's metrics only: the CloudFront one exists where CloudFront's are.
    const cloudFront5xx = cloudFront('5xxErrorRate', 'Average').createAlarm(this, 'CloudFront5xx', {
      alarmDescription: 'Stagedoor: more than 5 % of CloudFront requests answered 5xx for 10 minutes (the origin, S3 or the API, failing). See docs/deploy.md, "Alarms".',
      threshold: 5,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    (cloudFront5xx.node.defaultChild as cloudwatch.CfnAlarm).cfnOptions.condition = new CfnCondition(this, 'InUsEast1', {
      expression: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
    });
    this.alarms.push(cloudFront5xx);

    const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = [], options: Partial<cloudwatch.GraphWidgetProps> = {}) =>
      new cloudwatch.GraphWidget({ title, left, right, width: 12, height: 6, ...options });
    const perFunction = (metric: (fn: lambda.IFunction) => cloudwatch.IMetric, which: [string, lambda.IFunction][]) =>
      which.map(([label, fn]) => (metric(fn) as cloudwatch.Metric).with({ label }));
    const api = lambdas.slice(0, areas.length);

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `Stagedoor-${Stack.of(this).stackName}`,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: '# Stagedoor\nAPI by route group (one function each), Lambda, DynamoDB, CloudFront (us-east-1), the stream consumers and the ingest. Alarms: docs/deploy.md, "Alarms and the dashboard".',
        width: 24,
        height: 2,
      }),
      graph('API requests by route group (per minute)', perFunction((fn) => fn.metricInvocations({ period: MINUTE, statistic: 'Sum' }), api), [
        props.httpApi.metricCount({ period: MINUTE, statistic: 'Sum', label: 'API Gateway requests' }),
      ]),
      graph('API errors by route group (per minute)', perFunction((fn) => fn.metricErrors({ period: MINUTE, statistic: 'Sum' }), api), [
        props.httpApi.metricClientError({ period: MINUTE, statistic: 'Sum', label: '4xx' }),
        props.httpApi.metricServerError({ period: MINUTE, statistic: 'Sum', label: '5xx' }),
      ]),
      graph('API latency by route group (p99, ms)', perFunction((fn) => fn.metricDuration({ period: MINUTE, statistic: 'p99' }), api), [
        props.httpApi.metricLatency({ period: MINUTE, statistic: 'p99', label: 'API Gateway p99' }),
      ]),
      graph('Lambda concurrency (maximum)', [
        ...perFunction((fn) => fn.metric('ConcurrentExecutions', { period: MINUTE, statistic: 'Maximum' }), lambdas),
        new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName: 'ConcurrentExecutions', statistic: 'Maximum', period: MINUTE, label: 'account' }),
      ]),
      graph(
        'DynamoDB consumed units (per minute)',
        [props.table.metricConsumedReadCapacityUnits({ period: MINUTE, statistic: 'Sum', label: 'read units' })],
        [props.table.metricConsumedWriteCapacityUnits({ period: MINUTE, statistic: 'Sum', label: 'write units' })],
      ),
      graph('DynamoDB throttled', [
        props.table.metric('ReadThrottleEvents', { period: MINUTE, statistic: 'Sum', label: 'read throttle events' }),
        props.table.metric('WriteThrottleEvents', { period: MINUTE, statistic: 'Sum', label: 'write throttle events' }),
        props.table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: MINUTE, label: 'throttled requests' }),
      ]),
      graph(
        'CloudFront requests and bytes (per 5 minutes)',
        [cloudFront('Requests', 'Sum').with({ label: 'requests' })],
        [cloudFront('BytesDownloaded', 'Sum').with({ label: 'bytes downloaded' })],
      ),
      graph('CloudFront errors (%)', [cloudFront('4xxErrorRate', 'Average').with({ label: '4xx' }), cloudFront('5xxErrorRate', 'Average').with({ label: '5xx' })]),
      graph('Stream consumers behind the table (iterator age, ms)', [
        iteratorAge(props.edgeSync).with({ label: 'edge-sync' }),
        iteratorAge(props.audience).with({ label: 'audience recorder' }),
      ]),
      graph(
        'Ingest: publishers, healthy tasks, scheduled shows',
        [ingestMetric(PUBLISHERS_METRIC).with({ label: 'publishers on air' }), scheduledShows.with({ label: 'shows scheduled now' })],
        [healthyIngests.with({ label: 'healthy ingest tasks' })],
      ),
      graph('Ingest: segments (per minute)', INGEST_COUNTERS.map((name) => ingestMetric(name))),
      graph('Lost counter writes (the viewer estimate only)', [appMetric(APP_METRICS.counterWriteFailed, 'Sum').with({ label: 'counter writes lost' })]),
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 12, height: 6 }),
    );
  }
}
