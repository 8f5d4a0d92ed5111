import { CustomResource, Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as cr from 'aws-cdk-lib/custom-resources';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { tableSchema } from '../../../functions/adapters/table-schema';
import { AppFunction } from './app-function';

export interface DataProps {
  /** Days an event's HLS stays in the media bucket (replays within the access window read it). */
  mediaRetentionDays: number;
}

/**
 * Durable state: the DynamoDB table, the media bucket the ingest writes HLS
 * to, the access-logs bucket, and the Secrets Manager secret every part reads.
 */
export class Data extends Construct {
  readonly table: dynamodb.Table;
  readonly mediaBucket: s3.Bucket;
  readonly logsBucket: s3.Bucket;
  readonly secret: secretsmanager.Secret;
  /** Completes once every generated field of the secret exists; readers of the secret at deploy time depend on it. */
  readonly secretReady: CustomResource;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);

    // The key schema comes from the same module the local stand-ins and the tests create their tables from.
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: tableSchema.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: tableSchema.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
      // TTL only collects garbage (rate windows, revoked admin sessions, tombstones); no check relies on it.
      timeToLiveAttribute: tableSchema.ttlAttribute,
      // The edge-sync function diffs old against new images to find revokes, unrevokes and ended sessions.
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    });
    for (const index of tableSchema.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
        ...('sortKey' in index ? { sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING } } : {}),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }

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
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: this.logsBucket,
      serverAccessLogsPrefix: 'media-bucket/',
      lifecycleRules: [
        { prefix: 'streams/', expiration: Duration.days(props.mediaRetentionDays) },
        // The recording index (docs/ingest.md) lives as long as the media it lists.
        { prefix: 'recordings/', expiration: Duration.days(props.mediaRetentionDays) },
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // One JSON secret (README "Configuration"). The deployment fills in every field it can
    // generate; adminPasswordHash starts as the hash of a random, discarded password, so no
    // one can sign in until `infra/scripts/set-admin-password.ts` sets a real one.
    this.secret = new secretsmanager.Secret(this, 'Secrets', {
      description: 'Stagedoor: playbackSigningKeys, adminPasswordHash, adminSessionSecret, internalApiKey, originVerifySecret',
      // CloudFormation's generator makes one field; the seeding function below makes the rest.
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: 'adminSessionSecret',
        passwordLength: 64,
        excludePunctuation: true,
      },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    NagSuppressions.addResourceSuppressions(this.secret, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'The fields rotate by procedure, not by a rotation Lambda: signing keys by kid (add, switch activeKid, drop after 600 s), the admin password by script. See docs/deploy.md.',
      },
    ]);

    const seed = new AppFunction(this, 'SeedSecrets', {
      entry: 'infra/runtime/seed-secrets.ts',
      description: 'Fills the generated fields of the Stagedoor secret (keeps existing values)',
      // scrypt of the placeholder password wants ~32 MiB and a little CPU.
      memorySize: 256,
      timeout: Duration.seconds(30),
      environment: {},
      alarms: false,
    });
    this.secret.grantRead(seed.fn);
    this.secret.grantWrite(seed.fn);
    const provider = new cr.Provider(this, 'SeedProvider', { onEventHandler: seed.fn });
    NagSuppressions.addResourceSuppressions(
      provider,
      [
        { id: 'AwsSolutions-IAM4', reason: 'CDK custom resource provider framework: AWSLambdaBasicExecutionRole only grants writing its own logs.' },
        { id: 'AwsSolutions-IAM5', reason: 'CDK custom resource provider framework: invokes the seeding function and its versions (":*").' },
        { id: 'AwsSolutions-L1', reason: 'Runtime of the CDK provider framework function is chosen by aws-cdk-lib.' },
      ],
      true,
    );
    this.secretReady = new CustomResource(this, 'SeedSecretsResource', {
      serviceToken: provider.serviceToken,
      // Only the ARN: values never pass through CloudFormation.
      properties: { SecretArn: this.secret.secretArn, Fields: 'playbackSigningKeys,adminPasswordHash,internalApiKey,originVerifySecret' },
    });
  }
}
