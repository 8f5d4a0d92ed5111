import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { AppFunction } from './app-function';
import { TRIGGERS } from '../triggers';

export interface CheckoutSweepProps {
  table: dynamodb.ITable;
  /** The shared secret: the public area's App reads it. */
  secret: secretsmanager.ISecret;
  /** Stripe's key: the sweep asks Stripe how each stale checkout ended. */
  commerceSecret: secretsmanager.ISecret;
}

/**
 * What the checkout sweep writes, as the public area's order webhooks would for the same checkouts: orders,
 * their codes and payments, checkouts found or released, and the audit entries of what it settled.
 */
const CREATES = ['AUDIT#*', 'CHECKOUT#*', 'CODE#*', 'ORDER#*', 'PAYMENT#*'];

/**
 * The checkout sweep (functions/handlers/checkout-sweep.ts): every five minutes, the checkouts Stripe's
 * webhook left held are settled as the webhook would have settled them. Its own function on its own
 * schedule, with the public area's table access and secrets, and its own error alarm (a run with
 * failures fails).
 */
export class CheckoutSweep extends Construct {
  readonly fn: lambda.IFunction;

  constructor(scope: Construct, id: string, props: CheckoutSweepProps) {
    super(scope, id);
    const { schedule } = TRIGGERS['checkout-sweep'];

    const { fn } = new AppFunction(this, 'CheckoutSweep', {
      entry: 'functions/handlers/checkout-sweep.ts',
      description: "Stagedoor checkout sweep: checkouts Stripe's webhook left held",
      environment: { TABLE_NAME: props.table.tableName, SECRETS_ARN: props.secret.secretArn, COMMERCE_SECRETS_ARN: props.commerceSecret.secretArn },
      timeout: Duration.seconds(60),
    });
    this.fn = fn;

    // The held checkouts' listing (byEvent), an order's codes (byTokenId, codesByEvent), the orders waiting for a count of their
    // event's sales figures (accessFeed's `SALES-STEPS#` shards), and the conditional updates of each step.
    const indexes = ['byEvent', 'byTokenId', 'codesByEvent', 'accessFeed'].map((index) => `${props.table.tableArn}/index/${index}`);
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'], resources: [props.table.tableArn, ...indexes] }));
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:PutItem'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': CREATES } },
      }),
    );
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [props.secret.secretArn, props.commerceSecret.secretArn] }));
    NagSuppressions.addResourceSuppressions(
      fn.role!,
      [{ id: 'AwsSolutions-IAM5', appliesTo: [{ regex: '/^Resource::.*/index/.*$/g' }], reason: 'Query on the named global secondary indexes of the one table only.' }],
      true,
    );

    new events.Rule(this, 'Schedule', {
      description: "Stagedoor checkout sweep: checkouts Stripe's webhook left held",
      schedule: events.Schedule.rate(Duration.seconds(schedule.everySeconds)),
      // The next run is the retry: a delivery that failed is not repeated.
      targets: [new targets.LambdaFunction(fn, { retryAttempts: schedule.retryAttempts })],
    });
  }
}
