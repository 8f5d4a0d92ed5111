import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { APP_METRICS } from '../../../../functions/adapters/telemetry';
import type { Area } from '../../../../functions/http/route-table';
import { PUBLISHERS_METRIC, type IngestCounter } from '../../../../ingest-container/src/metrics';
import type { MonitoringProps } from './props';
import { appMetric, cloudFrontMetric, healthyIngests, ingestMetric, iteratorAge, MINUTE, scheduledShows, TABLE_OPERATIONS } from './metrics';

const INGEST_COUNTERS: IngestCounter[] = ['SegmentsUploaded', 'UploadRetries', 'RecordingSegmentsDropped', 'BackupOnAir', 'PrimaryOnAir'];

type Labelled = [label: string, fn: lambda.IFunction];

/** The stack's dashboard: one row of graphs per part, then the state of `alarms`. */
export function stagedoorDashboard(scope: Construct, props: MonitoringProps, alarms: cloudwatch.IAlarm[]): cloudwatch.Dashboard {
  const areas = Object.keys(props.apiFunctions) as Area[];
  const api = areas.map((area): Labelled => [`API ${area}`, props.apiFunctions[area]]);
  const lambdas: Labelled[] = [...api, ['edge-sync', props.edgeSync], ['audience recorder', props.audience], ['recording sweep', props.recordingSweep]];

  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    dashboardName: `Stagedoor-${Stack.of(scope).stackName}`,
    defaultInterval: Duration.hours(3),
  });
  dashboard.addWidgets(
    new cloudwatch.TextWidget({
      markdown: '# Stagedoor\nAPI by route group (one function each), Lambda, DynamoDB, CloudFront (us-east-1), the stream consumers and the ingest. Alarms: docs/deploy.md, "Alarms and the dashboard".',
      width: 24,
      height: 2,
    }),
    ...apiGraphs(props.httpApi, api),
    lambdaConcurrencyGraph(lambdas),
    ...tableGraphs(props.table),
    ...cloudFrontGraphs(props.distribution),
    graph('Stream consumers behind the table (iterator age, ms)', [
      iteratorAge(props.edgeSync).with({ label: 'edge-sync' }),
      iteratorAge(props.audience).with({ label: 'audience recorder' }),
    ]),
    ...ingestGraphs(props.ingestTargets),
    graph('Lost counter writes (the viewer estimate only)', [appMetric(APP_METRICS.counterWriteFailed, 'Sum').with({ label: 'counter writes lost' })]),
    new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms, width: 12, height: 6 }),
  );
  return dashboard;
}

const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = [], options: Partial<cloudwatch.GraphWidgetProps> = {}) =>
  new cloudwatch.GraphWidget({ title, left, right, width: 12, height: 6, ...options });

/** One line per function, labelled. */
const perFunction = (metric: (fn: lambda.IFunction) => cloudwatch.IMetric, which: Labelled[]) =>
  which.map(([label, fn]) => (metric(fn) as cloudwatch.Metric).with({ label }));

/** Requests, errors and latency by route group (one function each), against API Gateway's own. */
function apiGraphs(httpApi: apigwv2.HttpApi, api: Labelled[]): cloudwatch.IWidget[] {
  return [
    graph('API requests by route group (per minute)', perFunction((fn) => fn.metricInvocations({ period: MINUTE, statistic: 'Sum' }), api), [
      httpApi.metricCount({ period: MINUTE, statistic: 'Sum', label: 'API Gateway requests' }),
    ]),
    graph('API errors by route group (per minute)', perFunction((fn) => fn.metricErrors({ period: MINUTE, statistic: 'Sum' }), api), [
      httpApi.metricClientError({ period: MINUTE, statistic: 'Sum', label: '4xx' }),
      httpApi.metricServerError({ period: MINUTE, statistic: 'Sum', label: '5xx' }),
    ]),
    graph('API latency by route group (p99, ms)', perFunction((fn) => fn.metricDuration({ period: MINUTE, statistic: 'p99' }), api), [
      httpApi.metricLatency({ period: MINUTE, statistic: 'p99', label: 'API Gateway p99' }),
    ]),
  ];
}

function lambdaConcurrencyGraph(lambdas: Labelled[]): cloudwatch.IWidget {
  return graph('Lambda concurrency (maximum)', [
    ...perFunction((fn) => fn.metric('ConcurrentExecutions', { period: MINUTE, statistic: 'Maximum' }), lambdas),
    new cloudwatch.Metric({ namespace: 'AWS/Lambda', metricName: 'ConcurrentExecutions', statistic: 'Maximum', period: MINUTE, label: 'account' }),
  ]);
}

function tableGraphs(table: dynamodb.ITable): cloudwatch.IWidget[] {
  return [
    graph(
      'DynamoDB consumed units (per minute)',
      [table.metricConsumedReadCapacityUnits({ period: MINUTE, statistic: 'Sum', label: 'read units' })],
      [table.metricConsumedWriteCapacityUnits({ period: MINUTE, statistic: 'Sum', label: 'write units' })],
    ),
    graph('DynamoDB throttled', [
      table.metric('ReadThrottleEvents', { period: MINUTE, statistic: 'Sum', label: 'read throttle events' }),
      table.metric('WriteThrottleEvents', { period: MINUTE, statistic: 'Sum', label: 'write throttle events' }),
      table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: MINUTE, label: 'throttled requests' }),
    ]),
  ];
}

function cloudFrontGraphs(distribution: cloudfront.IDistribution): cloudwatch.IWidget[] {
  const metric = (name: string, statistic: string, label: string) => cloudFrontMetric(distribution, name, statistic).with({ label });
  return [
    graph('CloudFront requests and bytes (per 5 minutes)', [metric('Requests', 'Sum', 'requests')], [metric('BytesDownloaded', 'Sum', 'bytes downloaded')]),
    graph('CloudFront errors (%)', [metric('4xxErrorRate', 'Average', '4xx'), metric('5xxErrorRate', 'Average', '5xx')]),
  ];
}

function ingestGraphs(ingestTargets: elbv2.NetworkTargetGroup): cloudwatch.IWidget[] {
  return [
    graph(
      'Ingest: publishers, healthy tasks, scheduled shows',
      [ingestMetric(PUBLISHERS_METRIC).with({ label: 'publishers on air' }), scheduledShows().with({ label: 'shows scheduled now' })],
      [healthyIngests(ingestTargets).with({ label: 'healthy ingest tasks' })],
    ),
    graph('Ingest: segments (per minute)', INGEST_COUNTERS.map((name) => ingestMetric(name))),
  ];
}
