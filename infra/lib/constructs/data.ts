import { CfnResource, CustomResource, Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as cr from 'aws-cdk-lib/custom-resources';
import { NagSuppressions } from 'cdk-nag';
import { Construct, type IConstruct } from 'constructs';
import { staffTableSchema, tableSchema, type TableSchema } from '../../../functions/adapters/table-schema';
import { AppFunction } from './app-function';
import { privateBucketProps } from './private-bucket';

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
    this.table = this.tableFrom('Table', tableSchema, {
      // The edge-sync function diffs old against new images to find revokes, unrevokes and ended sessions.
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    });
    // Its own table, so that no other function's role can read a password hash or write an account.
    this.staffTable = this.tableFrom('StaffTable', staffTableSchema);

    // Server access logs of the buckets, CloudFront standard logs and NLB access logs.
    this.logsBucket = new s3.Bucket(this, 'LogsBucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // CloudFront standard logging (legacy) writes with ACLs.
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    NagSuppressions.addResourceSuppressions(this.logsBucket, [
      { id: 'AwsSolutions-S1', reason: 'This is the access-logs bucket; logging it into itself would loop.' },
    ]);

    this.mediaBucket = new s3.Bucket(this, 'MediaBucket', {
      ...privateBucketProps(this.logsBucket, 'media-bucket/'),
      lifecycleRules: [
        { prefix: 'streams/', expiration: Duration.days(props.mediaRetentionDays) },
        // The recording index (docs/ingest.md) lives as long as the media it lists.
        { prefix: 'recordings/', expiration: Duration.days(props.mediaRetentionDays) },
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // The shared JSON secret (README, "Configuration"): playbackSigningKeys, internalApiKey,
    // originVerifySecret. Its definition is the one stacks from before the admin secret was
    // split off were created with, on purpose: CloudFormation generates a new value (wiping
    // every field) when GenerateSecretString changes. The adminSessionSecret it generates on
    // a fresh stack is moved to the admin secret by the seeding below, like an old stack's.
    this.secret = new secretsmanager.Secret(this, 'Secrets', {
      description: 'Stagedoor: playbackSigningKeys, adminPasswordHash, adminSessionSecret, internalApiKey, originVerifySecret',
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: 'adminSessionSecret',
        passwordLength: 64,
        excludePunctuation: true,
      },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // adminPasswordHash starts as the hash of a random, discarded password (or is copied from the
    // shared secret of an older stack), so no one can sign in until `set-admin-password.ts` sets one.
    this.adminSecret = new secretsmanager.Secret(this, 'AdminSecret', {
      description: 'Stagedoor admin: adminPasswordHash, adminSessionSecret (read by the admin function only)',
      // Created empty so that the seeding copies an older stack's values in; the literal never
      // changes, so CloudFormation never writes it again.
      secretObjectValue: {},
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Generated at the first deploy; the organiser copies it into the shop's webhook settings (README).
    this.commerceSecret = new secretsmanager.Secret(this, 'CommerceSecret', {
      description: 'Stagedoor commerce: orderWebhookSecret, stripeSecretKey, stripeWebhookSecret (read by the public function only)',
      generateSecretString: { secretStringTemplate: '{}', generateStringKey: 'orderWebhookSecret', passwordLength: 48, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    NagSuppressions.addResourceSuppressions(this.commerceSecret, [
      { id: 'AwsSolutions-SMG4', reason: 'Rotated by procedure: a new value in the secret and in the shop together (docs/deploy.md, "Ticket emails and shops").' },
    ]);
    NagSuppressions.addResourceSuppressions(this.secret, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'The fields rotate by procedure, not by a rotation Lambda: signing keys by kid (add, switch activeKid, drop after 600 s), the internal and origin keys by editing. See docs/deploy.md.',
      },
    ]);
    NagSuppressions.addResourceSuppressions(this.adminSecret, [
      { id: 'AwsSolutions-SMG4', reason: 'The admin password and session secret rotate by script (set-admin-password.ts [--rotate-sessions]). See docs/deploy.md.' },
    ]);

    const seed = new AppFunction(this, 'SeedSecrets', {
      entry: 'infra/runtime/seed-secrets.ts',
      description: 'Fills the Stagedoor secrets and moves the admin fields to the admin secret (keeps existing values)',
      // scrypt of the placeholder password wants 128 MiB (N=2^17) besides Node itself, and CPU.
      memorySize: 512,
      timeout: Duration.seconds(30),
      environment: {},
      alarms: false,
    });
    for (const secret of [this.secret, this.adminSecret]) {
      secret.grantRead(seed.fn);
      secret.grantWrite(seed.fn);
    }
    const provider = new cr.Provider(this, 'SeedProvider', { onEventHandler: seed.fn });
    this.seedProvider = provider;
    NagSuppressions.addResourceSuppressions(
      provider,
      [
        { id: 'AwsSolutions-IAM4', reason: 'CDK custom resource provider framework: AWSLambdaBasicExecutionRole only grants writing its own logs.' },
        { id: 'AwsSolutions-IAM5', reason: 'CDK custom resource provider framework: invokes the seeding function and its versions (":*").' },
        { id: 'AwsSolutions-L1', reason: 'Runtime of the CDK provider framework function is chosen by aws-cdk-lib.' },
      ],
      true,
    );
    // Stacks from before the staff table keep accounts in the main table's ACCOUNTS partition: moved on deploy.
    const move = new AppFunction(this, 'MoveStaffItems', {
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
        resources: [this.table.tableArn],
        // The old staff partition only.
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['ACCOUNTS'] } },
      }),
    );
    move.fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:PutItem'], resources: [this.staffTable.tableArn] }));
    // Its totpEncryptionKey seals the TOTP secrets older stacks kept in clear.
    this.adminSecret.grantRead(move.fn);
    this.staffMoveProvider = new cr.Provider(this, 'MoveStaffItemsProvider', { onEventHandler: move.fn });
    NagSuppressions.addResourceSuppressions(
      this.staffMoveProvider,
      [
        { id: 'AwsSolutions-IAM4', reason: 'CDK custom resource provider framework: AWSLambdaBasicExecutionRole only grants writing its own logs.' },
        { id: 'AwsSolutions-IAM5', reason: 'CDK custom resource provider framework: invokes the move function and its versions (":*").' },
        { id: 'AwsSolutions-L1', reason: 'Runtime of the CDK provider framework function is chosen by aws-cdk-lib.' },
      ],
      true,
    );
    this.staffReady = new CustomResource(this, 'StaffItemsCopied', {
      serviceToken: this.staffMoveProvider.serviceToken,
      properties: { TableName: this.table.tableName, StaffTableName: this.staffTable.tableName, AdminSecretArn: this.adminSecret.secretArn, Step: 'copy' },
    });

    this.secretReady = new CustomResource(this, 'SeedSecretsResource', {
      serviceToken: provider.serviceToken,
      // Only the ARNs: values never pass through CloudFormation.
      properties: { SecretArn: this.secret.secretArn, AdminSecretArn: this.adminSecret.secretArn, Step: 'fill' },
    });
    // The key the move seals TOTP secrets with is made by the seeding.
    this.staffReady.node.addDependency(this.secretReady);
  }

  /**
   * A table of `schema`: on demand, point-in-time recovery, deletion protection, retained with the
   * stack's data. TTL only collects garbage (rate windows, signed-out sessions, tombstones, sign-in
   * failures, old audit entries); no check relies on it.
   */
  private tableFrom(id: string, schema: TableSchema, options: Pick<dynamodb.TableProps, 'stream'> = {}): dynamodb.Table {
    const table = new dynamodb.Table(this, id, {
      partitionKey: { name: schema.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: schema.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      timeToLiveAttribute: schema.ttlAttribute,
      ...options,
    });
    for (const index of schema.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        ...(index.sortKey ? { sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING } } : {}),
        ...(index.projection === 'ALL'
          ? { projectionType: dynamodb.ProjectionType.ALL }
          : { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] }),
      });
    }
    return table;
  }

  /**
   * Deletes the staff items of an older stack from the main table (infra/runtime/move-staff-items.ts,
   * step `retire`), once every function reads the staff table; like the secrets' retirement, last.
   */
  retireOldStaffItems(after: IConstruct[]): CustomResource {
    const retire = new CustomResource(this, 'RetireOldStaffItems', {
      serviceToken: this.staffMoveProvider.serviceToken,
      properties: { TableName: this.table.tableName, StaffTableName: this.staffTable.tableName, AdminSecretArn: this.adminSecret.secretArn, Step: 'retire' },
    });
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
    const retire = new CustomResource(this, 'RetireSharedAdminFields', {
      serviceToken: this.seedProvider.serviceToken,
      properties: { SecretArn: this.secret.secretArn, AdminSecretArn: this.adminSecret.secretArn, Step: 'retire' },
    });
    retire.node.addDependency(...lastOf(retire, [this, ...after]));
    return retire;
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
