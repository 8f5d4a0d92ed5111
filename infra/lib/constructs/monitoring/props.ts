import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Area } from '../../../../functions/http/route-table';

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
