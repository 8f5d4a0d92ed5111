import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { Area } from '../../../functions/http/route-table';
import { apiAlarms, cloudFrontAlarms, ingestAlarms, streamConsumerAlarms, tableAlarms } from './monitoring/alarms';
import { stagedoorDashboard } from './monitoring/dashboard';
import type { MonitoringProps } from './monitoring/props';


/**
 * The stack's alarms besides each function's own (AppFunction: errors, throttles) and its dashboard.
 * Every alarm notifies the alarm topic (alerts.ts); what each means and what to do is in
 * docs/deploy.md, "Alarms and the dashboard".
 */
export type { MonitoringProps } from './monitoring/props';

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
