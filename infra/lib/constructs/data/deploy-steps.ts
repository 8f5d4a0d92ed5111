import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as cr from 'aws-cdk-lib/custom-resources';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { AppFunction } from '../app-function';

/**
 * The custom resource provider of the seeding (infra/runtime/seed-secrets.ts): fills the secrets'
 * missing fields and moves the admin fields from the shared secret to the admin secret.
 */
export function secretSeedingProvider(scope: Construct, secrets: { secret: secretsmanager.ISecret; adminSecret: secretsmanager.ISecret }): cr.Provider {
  const seed = new AppFunction(scope, 'SeedSecrets', {
    entry: 'infra/runtime/seed-secrets.ts',
    description: 'Fills the Stagedoor secrets and moves the admin fields to the admin secret (keeps existing values)',
    // scrypt of the placeholder password wants 128 MiB (N=2^17) besides Node itself, and CPU.
    memorySize: 512,
    timeout: Duration.seconds(30),
    environment: {},
    alarms: false,
  });
  for (const secret of [secrets.secret, secrets.adminSecret]) {
    secret.grantRead(seed.fn);
    secret.grantWrite(seed.fn);
  }
  return providerOf(scope, 'SeedProvider', seed.fn, 'the seeding function');
}

/**
 * The custom resource provider of the staff move (infra/runtime/move-staff-items.ts): stacks from
 * before the staff table keep accounts in the main table's ACCOUNTS partition, moved on deploy.
 */
export function staffMoveProvider(
  scope: Construct,
  stores: { table: dynamodb.ITable; staffTable: dynamodb.ITable; adminSecret: secretsmanager.ISecret },
): cr.Provider {
  const move = new AppFunction(scope, 'MoveStaffItems', {
    entry: 'infra/runtime/move-staff-items.ts',
    description: 'Moves Stagedoor staff accounts from the main table into the staff table (keeps newer ones)',
    memorySize: 256,
    timeout: Duration.minutes(5),
    environment: {},
    alarms: false,
  });
  move.fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:Query', 'dynamodb:BatchWriteItem'],
      resources: [stores.table.tableArn],
      // The old staff partition only.
      conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['ACCOUNTS'] } },
    }),
  );
  move.fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:PutItem'], resources: [stores.staffTable.tableArn] }));
  // Its totpEncryptionKey seals the TOTP secrets older stacks kept in clear.
  stores.adminSecret.grantRead(move.fn);
  return providerOf(scope, 'MoveStaffItemsProvider', move.fn, 'the move function');
}

/** A CDK provider framework around `onEvent`, with why its own findings are fine. */
function providerOf(scope: Construct, id: string, onEvent: lambda.IFunction, what: string): cr.Provider {
  const provider = new cr.Provider(scope, id, { onEventHandler: onEvent });
  NagSuppressions.addResourceSuppressions(
    provider,
    [
      { id: 'AwsSolutions-IAM4', reason: 'CDK custom resource provider framework: AWSLambdaBasicExecutionRole only grants writing its own logs.' },
      { id: 'AwsSolutions-IAM5', reason: `CDK custom resource provider framework: invokes ${what} and its versions (":*").` },
      { id: 'AwsSolutions-L1', reason: 'Runtime of the CDK provider framework function is chosen by aws-cdk-lib.' },
    ],
    true,
  );
  return provider;
}
