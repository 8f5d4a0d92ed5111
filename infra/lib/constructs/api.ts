import { Duration, Stack } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct, type IDependable } from 'constructs';
import { routeTable, type Area, type Guard, type Method } from '../../../functions/http/route-table';
import { AppFunction } from './app-function';

export interface ApiProps {
  httpApi: apigwv2.HttpApi;
  /** The stage whose per-route throttles this construct sets (the routes must exist first). */
  stage: apigwv2.HttpStage;
  table: dynamodb.ITable;
  /** Staff accounts and sign-in state: the admin area alone reaches it (env and IAM). */
  staffTable: dynamodb.ITable;
  /** Done when the staff items of an older stack are in the staff table. */
  staffReady: IDependable;
  /** The shared secret: every area reads it. */
  secret: secretsmanager.ISecret;
  /** adminPasswordHash and adminSessionSecret: the admin area alone reads it (env and IAM). */
  adminSecret: secretsmanager.ISecret;
  /** The order webhook's signing secret: the public area alone reads it (env and IAM). */
  commerceSecret: secretsmanager.ISecret;
  /** Done when both secrets hold every field (the admin function must find the admin secret filled). */
  secretReady: IDependable;
  /** The CloudFront URL viewers fetch HLS from (`https://…`, no trailing slash). */
  playbackBaseUrl: string;
  /** OBS "Server" shown to admins. */
  ingestRtmpUrl: string;
  ingestSrtUrl: string;
  /** The ingest's HLS segment length: the console tells streamers to set their keyframe interval to it. */
  segmentSeconds: number;
  /** For the admin's "clear media cache" (a CloudFront invalidation). */
  distributionId: string;
  /**
   * Reserved concurrency of each operator function (admin, internal, RTMP callback), so that a viewer
   * storm at the account's limit cannot refuse a revoke or a publish. Off by default: reserving needs
   * an account concurrency quota above 10 + the reservations (new accounts start lower; docs/deploy.md).
   */
  operatorConcurrency?: number;
  /** Where the admin function queues the steps of the background jobs it starts (the Jobs construct grants it). */
  jobsQueueUrl: string;
  /** Where export jobs' files are: the admin function begins their uploads and signs their download links (the Exports construct grants it). */
  exportBucket: string;
  /** The shows' HLS and recording indexes: the watermark trace reads an index and signs GETs of A/B segments and fingerprints. */
  mediaBucket: s3.IBucket;
}

/**
 * What the admin area does to the staff table (functions/adapters/dynamo-account-store.ts): accounts,
 * the policy, signed-out sessions, sign-in failure windows (cleared with a batch delete). No other role
 * is granted anything on it.
 */
export const STAFF_TABLE_ACCESS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query', 'dynamodb:BatchWriteItem'];

/** What each area's handler does to the table (the stores, functions/adapters/dynamo-*-store.ts), nothing more. */
const TABLE_ACCESS: Record<Area, { actions: string[]; indexes: string[] }> = {
  // validate, refresh, heartbeat, release, status, sale: reads, rate-limit and presence counters, the session claim;
  // the order webhook: a refund finds the order's codes by id, an activation race copies the flag onto an event's codes;
  // a buyer's resend finds their orders (byLabel).
  // (The checkout sweep's listing of the checkouts still held, byEvent, is its own function's: infra/lib/constructs/checkout-sweep.ts.)
  public: { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'], indexes: ['byLabel', 'byTokenId', 'codesByEvent'] },
  // events and codes: create, edit, list, delete (batch deletes), counters, login rate limit, audit, live sessions,
  // a buyer's codes by label or by their orders (byLabel).
  admin: {
    actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem', 'dynamodb:Query'],
    indexes: ['byEvent', 'byLabel', 'byTokenId', 'codesByEvent', 'liveSessions'],
  },
  // revocation feed (its index, an event's codes), the publish lease and the ingest's reports.
  internal: { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'], indexes: ['accessFeed', 'codesByEvent'] },
  // publish/play checks read an event; a play is its session's heartbeat (a conditional update).
  'rtmp-callback': { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], indexes: [] },
};

/**
 * Per-route throttles (API Gateway's token bucket, over all callers) where a flood is abuse, not an
 * audience: code guessing, password guessing, and code generation (each request writes up to 500 items). Validation allows a sold-out start (a million
 * arrivals over 10 minutes are 1,700/s on average, a few times that at the doors' opening); the
 * per-address limit in DynamoDB and the optional WAF rule stop a single guesser long before.
 * Heartbeat, refresh and release keep the stage's default, which must stay above 1M viewers'
 * heartbeats (33,334/s) plus departures (docs/deploy.md).
 */
export const ROUTE_THROTTLES: Record<string, { rateLimit: number; burstLimit: number }> = {
  'POST /api/tokens/validate': { rateLimit: 5000, burstLimit: 5000 },
  'POST /api/admin/login': { rateLimit: 10, burstLimit: 20 },
  'POST /api/admin/login/second-factor': { rateLimit: 10, burstLimit: 20 },
  'POST /api/admin/events/{id}/tokens': { rateLimit: 5, burstLimit: 10 },
};

/**
 * Areas that create items besides the admin's, and only under these partition keys: the ingest's
 * reports in the audit log (a publish started, stopped, taken over or refused: `AUDIT#<eventId>`), and
 * the order webhooks' orders, the codes they issue, Stripe's payments (for their refunds), the checkouts
 * holding tickets (`CHECKOUT#<session id>`) and their audit entries.
 */
export const ITEM_CREATORS: Partial<Record<Area, string[]>> = {
  public: ['AUDIT#*', 'CHECKOUT#*', 'CODE#*', 'EARLY-REFUND#*', 'ORDER#*', 'PAYMENT#*'],
  internal: ['AUDIT#*'],
  'rtmp-callback': ['AUDIT#*'],
};

/** The areas an audience must not starve of Lambda concurrency: the operator's and the ingest's. */
const OPERATOR_AREAS: Area[] = ['admin', 'internal', 'rtmp-callback'];

/** Why a route has no API Gateway authorizer: the function checks its guard (functions/http/middlewares/route-guard.ts). */
const GUARD_REASON: Record<Guard, string> = {
  admin: 'Guarded in the function: a valid, unrevoked admin session cookie (HS256 JWT) or 401.',
  internal: 'Guarded in the function: X-Internal-Api-Key compared in constant time with the secret, or 401.',
  none: 'Public by design (access-code validation, playback-JWT endpoints, admin login, RTMP callback): each checks its own credential and is rate-limited where the spec says.',
};

const AREA_ENTRY: Record<Area, string> = {
  public: 'functions/handlers/public.ts',
  admin: 'functions/handlers/admin.ts',
  internal: 'functions/handlers/internal.ts',
  'rtmp-callback': 'functions/handlers/rtmp-callback.ts',
};

/**
 * The access API: one Lambda function per area of `functions/http/route-table.ts`,
 * each with its own role, and one API Gateway route per table entry, integrated
 * with its area's function. The area handlers dispatch on the route key again.
 */
export class Api extends Construct {
  readonly functions = {} as Record<Area, lambda.IFunction>;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);

    const environments = areaEnvironments(props);
    const areas = [...new Set(routeTable.map((route) => route.area))];
    for (const area of areas) {
      const { fn } = new AppFunction(this, pascal(area), {
        entry: AREA_ENTRY[area],
        description: `Stagedoor API: ${area} routes`,
        environment: environments[area],
        // The admin login runs scrypt (N=2^17: 128 MiB, about 0.4 s of a core); more memory also means more CPU for it.
        memorySize: area === 'admin' ? 1024 : 512,
        timeout: Duration.seconds(area === 'admin' ? 29 : 10),
        reservedConcurrentExecutions: OPERATOR_AREAS.includes(area) ? props.operatorConcurrency : undefined,
      });
      this.functions[area] = fn;

      const access = TABLE_ACCESS[area];
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: access.actions,
          resources: [props.table.tableArn, ...access.indexes.map((index) => `${props.table.tableArn}/index/${index}`)],
        }),
      );
      const creates = ITEM_CREATORS[area];
      if (creates) {
        fn.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['dynamodb:PutItem'],
            resources: [props.table.tableArn],
            conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': creates } },
          }),
        );
      }
      // Least privilege: the admin secret (password hash, session signing secret) is the admin function's alone,
      // the commerce secret (the order webhooks' signing secrets, the Stripe key) the public function's and the
      // admin's (the console's refunds go through Stripe).
      const own = { admin: [props.adminSecret.secretArn, props.commerceSecret.secretArn], public: [props.commerceSecret.secretArn] } as Partial<Record<Area, string[]>>;
      const secrets = [props.secret.secretArn, ...(own[area] ?? [])];
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: secrets }));
      if (area === 'admin') {
        fn.addToRolePolicy(new iam.PolicyStatement({ actions: STAFF_TABLE_ACCESS, resources: [props.staffTable.tableArn] }));
        fn.node.addDependency(props.secretReady, props.staffReady);
      }
      if (access.indexes.length > 0) {
        NagSuppressions.addResourceSuppressions(
          fn.role!,
          [
            {
              id: 'AwsSolutions-IAM5',
              appliesTo: [{ regex: '/^Resource::.*/index/.*$/g' }],
              reason: 'Query on the named global secondary indexes of the one table only.',
            },
          ],
          true,
        );
      }

      // One integration per area, shared by all its routes.
      const integration = new HttpLambdaIntegration(`${pascal(area)}Integration`, fn);
      for (const route of routeTable.filter((spec) => spec.area === area)) {
        const routes = props.httpApi.addRoutes({ path: route.path, methods: [httpMethod(route.method)], integration });
        NagSuppressions.addResourceSuppressions(routes, [{ id: 'AwsSolutions-APIG4', reason: GUARD_REASON[route.guard] }]);
        // Route settings name routes by key: the stage can carry them only once they exist.
        if (ROUTE_THROTTLES[`${route.method} ${route.path}`]) props.stage.node.addDependency(...routes);
      }
    }
    (props.stage.node.defaultChild as apigwv2.CfnStage).routeSettings = Object.fromEntries(
      // A JSON map in CloudFormation: its keys are written as is, hence the CloudFormation spelling.
      Object.entries(ROUTE_THROTTLES).map(([key, limit]) => [key, { ThrottlingRateLimit: limit.rateLimit, ThrottlingBurstLimit: limit.burstLimit }]),
    );

    // Clearing an event's cache is an invalidation of /streams/<eventId>/* on this distribution.
    // No dependency cycle: the distribution needs only the HTTP API's address, not the routes or
    // functions (admin function -> distribution -> HTTP API; routes -> admin function).
    this.functions.admin.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['cloudfront:CreateInvalidation'],
        resources: [Stack.of(this).formatArn({ service: 'cloudfront', region: '', resource: 'distribution', resourceName: props.distributionId })],
      }),
    );
    grantTraceReads(this.functions.admin, props.mediaBucket);
  }
}

/**
 * The watermark trace (functions/domain/watermark/watermark-admin.ts): list and read an event's recording
 * index, and sign GETs of its A/B segments and fingerprints (a presigned URL carries the signer's rights).
 */
function grantTraceReads(fn: lambda.IFunction, bucket: s3.IBucket): void {
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects('recordings/*'), bucket.arnForObjects('streams/*.ts')] }));
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn], conditions: { StringLike: { 's3:prefix': ['recordings/*'] } } }));
  NagSuppressions.addResourceSuppressions(
    fn.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        appliesTo: [{ regex: '/^Resource::<.*MediaBucket.*>\\/(recordings\\/\\*|streams\\/\\*\\.ts)$/g' }],
        reason: 'Any event may be traced: its recording index and fingerprints, and its segments, read only.',
      },
    ],
    true,
  );
}

/** Each area function's environment: the table and the shared secret, and only what its handler reads besides (functions/config/api-config.ts). */
function areaEnvironments(props: ApiProps): Record<Area, Record<string, string>> {
  const common = { TABLE_NAME: props.table.tableName, SECRETS_ARN: props.secret.secretArn };
  return {
    // SITE_ORIGIN: where a checkout's buyer returns (its requests reach the function under API Gateway's host).
    public: { ...common, PLAYBACK_BASE_URL: props.playbackBaseUrl, COMMERCE_SECRETS_ARN: props.commerceSecret.secretArn, SITE_ORIGIN: props.playbackBaseUrl },
    admin: {
      ...common,
      INGEST_RTMP_URL: props.ingestRtmpUrl,
      INGEST_SRT_URL: props.ingestSrtUrl,
      INGEST_HLS_SEGMENT: `${props.segmentSeconds}s`,
      CLOUDFRONT_DISTRIBUTION_ID: props.distributionId,
      // The site's origin (same-origin checks, watch links) and the preview player's HLS: one distribution.
      SITE_ORIGIN: props.playbackBaseUrl,
      PLAYBACK_BASE_URL: props.playbackBaseUrl,
      ADMIN_SECRETS_ARN: props.adminSecret.secretArn,
      JOBS_QUEUE_URL: props.jobsQueueUrl,
      EXPORT_BUCKET: props.exportBucket,
      MEDIA_BUCKET: props.mediaBucket.bucketName,
      STAFF_TABLE_NAME: props.staffTable.tableName,
      // Stripe's key: refunds from the console.
      COMMERCE_SECRETS_ARN: props.commerceSecret.secretArn,
    },
    internal: common,
    'rtmp-callback': common,
  };
}

const httpMethod = (method: Method): apigwv2.HttpMethod => apigwv2.HttpMethod[method];

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());
