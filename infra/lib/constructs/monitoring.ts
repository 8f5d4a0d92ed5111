import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { Area } from '../../../functions/http/route-table';
import { apiAlarms, cloudFrontAlarms, ingestAlarms, streamConsumerAlarms, tableAlarms } from './monitoring/alarms';
import { stagedoorDashboard } from './monitoring/dashboard';

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
    this.alarms.push(
      ...ingestAlarms(this, props.ingestTargets),
      ...streamConsumerAlarms(this, props),
      ...tableAlarms(this, props.table),
      ...apiAlarms(this, props.httpApi),
      ...cloudFrontAlarms(this, props.distribution),
    );
    this.dashboard = stagedoorDashboard(this, props, this.alarms);
  }
}
