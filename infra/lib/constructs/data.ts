import { CfnResource, CustomResource } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as cr from 'aws-cdk-lib/custom-resources';
import { Construct, type IConstruct } from 'constructs';
import { staffTableSchema, tableSchema } from '../../../functions/adapters/table-schema';
import { accessLogsBucket, mediaBucket } from './data/buckets';
import { secretSeedingProvider, staffMoveProvider } from './data/deploy-steps';
import { stackSecrets } from './data/secrets';
import { tableFrom } from './data/tables';

export interface DataProps {
  /** Days an event's HLS stays in the media bucket (replays within the access window read it). */
  mediaRetentionDays: number;
}

/**
 * Durable state: the DynamoDB table, the staff table only the admin function
 * reaches, the media bucket the ingest writes HLS to, the access-logs bucket,
 * the Secrets Manager secret every part reads and the admin secret only the
 * admin function reads.
 */
export class Data extends Construct {
  readonly table: dynamodb.Table;
  /** Staff accounts, the account policy, signed-out admin sessions, sign-in failures: the admin function's alone. */
  readonly staffTable: dynamodb.Table;
  /** Completes once staff items of an older stack are in the staff table; the admin function waits for it. */
  readonly staffReady: CustomResource;
  private readonly staffMoveProvider: cr.Provider;
  readonly mediaBucket: s3.Bucket;
  readonly logsBucket: s3.Bucket;
  readonly secret: secretsmanager.Secret;
  /** `adminPasswordHash` and `adminSessionSecret`: the admin function's alone (least privilege). */
  readonly adminSecret: secretsmanager.Secret;
  /**
   * `orderWebhookSecret` (shops sign order deliveries with it); the organiser adds `stripeSecretKey` and
   * `stripeWebhookSecret` to sell with Stripe Checkout (README): the public function's alone.
   */
  readonly commerceSecret: secretsmanager.Secret;
  /** Completes once every field of both secrets exists; readers of a secret at deploy time depend on it. */
  readonly secretReady: CustomResource;
  private readonly seedProvider: cr.Provider;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);

    // The key schemas come from the same module the local stand-ins and the tests create their tables from.
    this.table = tableFrom(this, 'Table', tableSchema, {
      // The edge-sync function diffs old against new images to find revokes, unrevokes and ended sessions.
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    });
    // Its own table, so that no other function's role can read a password hash or write an account.
    this.staffTable = tableFrom(this, 'StaffTable', staffTableSchema);

    this.logsBucket = accessLogsBucket(this);
    this.mediaBucket = mediaBucket(this, this.logsBucket, props.mediaRetentionDays);

    const secrets = stackSecrets(this);
    this.secret = secrets.secret;
    this.adminSecret = secrets.adminSecret;
    this.commerceSecret = secrets.commerceSecret;

    this.seedProvider = secretSeedingProvider(this, secrets);
    this.staffMoveProvider = staffMoveProvider(this, { table: this.table, staffTable: this.staffTable, adminSecret: this.adminSecret });
    this.staffReady = this.staffMoveStep('StaffItemsCopied', 'copy');
    this.secretReady = this.seedStep('SeedSecretsResource', 'fill');
    // The key the move seals TOTP secrets with is made by the seeding.
    this.staffReady.node.addDependency(this.secretReady);
  }

  /**
   * Deletes the staff items of an older stack from the main table (infra/runtime/move-staff-items.ts,
   * step `retire`), once every function reads the staff table; like the secrets' retirement, last.
   */
  retireOldStaffItems(after: IConstruct[]): CustomResource {
    const retire = this.staffMoveStep('RetireOldStaffItems', 'retire');
    retire.node.addDependency(...lastOf(retire, [this, ...after]));
    return retire;
  }

  /**
   * Takes `adminPasswordHash`/`adminSessionSecret` out of the shared secret (infra/runtime/seed-secrets.ts,
   * step `retire`). Call it last, with every other part of the stack in `after`: it must run once every
   * function reads the new layout, and nothing may fail after it, so that a rolled-back deploy finds the
   * shared secret as the functions (and the seeding) it returns to expect it.
   */
  retireSharedAdminFields(after: IConstruct[]): CustomResource {
    const retire = this.seedStep('RetireSharedAdminFields', 'retire');
    retire.node.addDependency(...lastOf(retire, [this, ...after]));
    return retire;
  }

  /** A step of the seeding; only the ARNs: values never pass through CloudFormation. */
  private seedStep(id: string, step: 'fill' | 'retire'): CustomResource {
    return new CustomResource(this, id, {
      serviceToken: this.seedProvider.serviceToken,
      properties: { SecretArn: this.secret.secretArn, AdminSecretArn: this.adminSecret.secretArn, Step: step },
    });
  }

  /** A step of the staff move. */
  private staffMoveStep(id: string, step: 'copy' | 'retire'): CustomResource {
    return new CustomResource(this, id, {
      serviceToken: this.staffMoveProvider.serviceToken,
      properties: { TableName: this.table.tableName, StaffTableName: this.staffTable.tableName, AdminSecretArn: this.adminSecret.secretArn, Step: step },
    });
  }
}

/**
 * What a last step waits for: every resource of `scopes` but its own, except those behind a
 * condition (CloudFormation refuses a DependsOn on one it did not create).
 */
function lastOf(step: IConstruct, scopes: IConstruct[]): IConstruct[] {
  const own = new Set(step.node.findAll());
  return scopes
    .flatMap((scope) => scope.node.findAll())
    .filter((node) => CfnResource.isCfnResource(node) && !node.cfnOptions.condition && !own.has(node));
}
