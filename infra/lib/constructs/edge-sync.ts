import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as cr from 'aws-cdk-lib/custom-resources';
import type { IDependable } from 'constructs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { TRIGGERS } from '../triggers';
import { AppFunction } from './app-function';
import { addTableStreamSource } from './table-stream-source';

export interface EdgeSyncProps {
  table: dynamodb.ITable;
  secret: secretsmanager.ISecret;
  keyValueStore: cloudfront.IKeyValueStore;
  /** How often the full reconciliation runs (lost stream batches, key rotation, old session entries). */
  reconcileEvery: Duration;
  /** Done when the secret holds the signing keys: the first reconciliation needs them. */
  secretReady: IDependable;
}

/**
 * Keeps the CloudFront KeyValueStore that the media guard reads in step with the
 * table (docs/delivery.md): the table's stream for changes within seconds, and a
 * schedule that rewrites the whole picture.
 */
export class EdgeSync extends Construct {
  readonly fn: lambda.IFunction;

  constructor(scope: Construct, id: string, props: EdgeSyncProps) {
    super(scope, id);

    const { fn } = new AppFunction(this, 'EdgeSync', {
      entry: 'functions/handlers/edge-sync.ts',
      description: 'Stagedoor edge-sync: table changes and signing keys to the CloudFront KeyValueStore',
      environment: {
        TABLE_NAME: props.table.tableName,
        SECRETS_ARN: props.secret.secretArn,
        KVS_ARN: props.keyValueStore.keyValueStoreArn,
      },
      memorySize: 512,
      timeout: Duration.minutes(2),
    });
    this.fn = fn;

    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['cloudfront-keyvaluestore:DescribeKeyValueStore', 'cloudfront-keyvaluestore:ListKeys', 'cloudfront-keyvaluestore:UpdateKeys'],
        resources: [props.keyValueStore.keyValueStoreArn],
      }),
    );
    // The reconciliation reads every item of the access feed index (all its shards) and the events' country
    // rules from the events listing; the signing keys come from the secret.
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${props.table.tableArn}/index/accessFeed`, `${props.table.tableArn}/index/byEvent`] }),
    );
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [props.secret.secretArn] }));

    // Its triggers (infra/lib/triggers.ts), as npm start drives them too.
    const { stream, reconcile } = TRIGGERS['edge-sync'];
    addTableStreamSource(fn, props.table, stream);
    new events.Rule(this, 'Reconcile', {
      description: 'Stagedoor edge-sync full reconciliation',
      schedule: events.Schedule.rate(props.reconcileEvery),
      targets: [new targets.LambdaFunction(fn, { retryAttempts: reconcile.retryAttempts })],
    });
    // The store is empty after the first deploy: without this, every video request would be denied
    // (no signing key at the edge) until the schedule first fires. Asynchronous, so a failure never
    // blocks the deploy; the schedule retries anyway.
    const initialSync = new cr.AwsCustomResource(this, 'InitialSync', {
      onCreate: {
        service: 'Lambda',
        action: 'invoke',
        parameters: {
          FunctionName: fn.functionName,
          InvocationType: 'Event',
          Payload: JSON.stringify({ source: 'stagedoor.deploy', 'detail-type': 'Initial reconciliation' }),
        },
        physicalResourceId: cr.PhysicalResourceId.of('edge-sync-initial-reconciliation'),
      },
      policy: cr.AwsCustomResourcePolicy.fromStatements([
        new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }),
      ]),
      installLatestAwsSdk: false,
    });
    initialSync.node.addDependency(props.secretReady);
    // AwsCustomResource runs in a stack-level singleton function that aws-cdk-lib creates.
    const singleton = Stack.of(this).node.findChild(`AWS${cr.AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`);
    NagSuppressions.addResourceSuppressions(
      singleton,
      [
        { id: 'AwsSolutions-IAM4', reason: 'CDK AwsCustomResource handler: AWSLambdaBasicExecutionRole only grants writing its own logs.' },
        { id: 'AwsSolutions-L1', reason: 'Runtime of the CDK AwsCustomResource handler is chosen by aws-cdk-lib.' },
      ],
      true,
    );
  }
}
