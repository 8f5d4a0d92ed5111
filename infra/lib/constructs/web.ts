import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { privateBucketProps } from './private-bucket';

export interface WebProps {
  /** Folder produced by `buildWeb()` (web/build.ts): `index.html`, `admin/index.html`, `assets/`. */
  builtDir: string;
  logsBucket: s3.IBucket;
}

/**
 * The viewer page and the admin console: a private bucket (CloudFront reads it
 * through Origin Access Control) and the built files. Cache-Control is set per
 * kind of file, so a deployment needs no CloudFront invalidation: pages are
 * revalidated on every load, assets are content-hashed and cached for good.
 */
export class Web extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: WebProps) {
    super(scope, id);

    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...privateBucketProps(props.logsBucket, 'web-bucket/'),
      // Rebuilt from the repository on every deploy: nothing to keep.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });

    const source = s3deploy.Source.asset(props.builtDir);
    // Assets first, never pruned: a page loaded just before a deploy still finds its old bundle.
    const assets = new s3deploy.BucketDeployment(this, 'Assets', {
      destinationBucket: this.bucket,
      sources: [source],
      include: ['assets/*'],
      exclude: ['*'],
      prune: false,
      cacheControl: [s3deploy.CacheControl.fromString('public, max-age=31536000, immutable')],
    });
    const pages = new s3deploy.BucketDeployment(this, 'Pages', {
      destinationBucket: this.bucket,
      sources: [source],
      exclude: ['assets/*'],
      prune: true,
      cacheControl: [s3deploy.CacheControl.noCache()],
    });
    // The pages name the new asset files, so those must be there first.
    pages.node.addDependency(assets);

    // The deployment's Lambda is a singleton at stack level, shared by both deployments.
    const handlers = Stack.of(this).node.children.filter((child) => child.node.id.startsWith('Custom::CDKBucketDeployment'));
    NagSuppressions.addResourceSuppressions(
      [this, ...handlers],
      [
        { id: 'AwsSolutions-IAM4', reason: 'CDK BucketDeployment / auto-delete handlers: AWSLambdaBasicExecutionRole only grants writing their own logs.' },
        { id: 'AwsSolutions-IAM5', reason: 'CDK BucketDeployment copies from the CDK asset bucket into this bucket (object-level wildcards on those two buckets).' },
        { id: 'AwsSolutions-L1', reason: 'Runtime of the CDK BucketDeployment / auto-delete handler is chosen by aws-cdk-lib.' },
      ],
      true,
    );
  }
}
