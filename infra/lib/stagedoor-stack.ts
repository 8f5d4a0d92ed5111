import { Aspects, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { Construct } from 'constructs';
import { EXPORT_FILE_DAYS } from '../../functions/domain/jobs';
import { Alerts, NotifyEveryAlarm } from './constructs/alerts';
import { Api } from './constructs/api';
import { Audience } from './constructs/audience';
import { CheckoutSweep } from './constructs/checkout-sweep';
import { Data } from './constructs/data';
import { Delivery } from './constructs/delivery';
import { EdgeSync } from './constructs/edge-sync';
import { Exports } from './constructs/exports';
import { Gateway } from './constructs/gateway';
import { Ingest } from './constructs/ingest';
import { Jobs } from './constructs/jobs';
import { Monitoring } from './constructs/monitoring';
import { Mailer } from './constructs/mailer';
import { RecordingSweep } from './constructs/recording-sweep';
import { Web } from './constructs/web';
import { TRIGGERS } from './triggers';

/** Deployment choices; `infra/bin/app.ts` reads them from CDK context (docs/deploy.md). */
export interface StagedoorConfig {
  /** Folder with the built pages (`buildWeb()` of web/build.ts). */
  webBuildDir: string;
  /** Custom domain of the distribution, with an ACM certificate in us-east-1. */
  domainName?: string;
  certificateArn?: string;
  /** Custom domain of the RTMP ingest; with a regional ACM certificate, RTMPS on 443. */
  ingestDomainName?: string;
  ingestCertificateArn?: string;
  /** With `ingestCertificateArn`: RTMPS only, no plain RTMP listener. */
  rtmpsOnly?: boolean;
  /** Let viewers play over RTMP (default off: HLS only). */
  rtmpPlay?: boolean;
  mediaRetentionDays?: number;
  ingestMaxTasks?: number;
  priceClass?: cloudfront.PriceClass;
  /** Minutes between full KeyValueStore reconciliations (each costs a few KVS API calls). */
  edgeReconcileMinutes?: number;
  /** Reserved Lambda concurrency for each operator function (admin, internal, RTMP callback); none by default. */
  operatorConcurrency?: number;
  /** HLS segment length in whole seconds (default 1): shorter is closer to live, longer means fewer requests per viewer. */
  hlsSegmentSeconds?: number;
  /** Re-encode video whose keyframes are too far apart for the segments (`auto`, default) or copy always (`off`). */
  hlsReencode?: 'auto' | 'off';
  /** vCPUs of each ingest task: 1, 2 (default) or 4. */
  ingestTaskVcpu?: 1 | 2 | 4;
}

export interface StagedoorStackProps extends StackProps {
  config: StagedoorConfig;
}

/**
 * The whole deployment. Constructs are made in dependency order and hand their
 * outputs on as props: data -> web -> gateway -> ingest -> delivery -> exports -> jobs -> api, edge-sync, audience,
 * recording sweep, mailer, checkout sweep -> monitoring. Every alarm anywhere in the stack notifies the alerts topic (an aspect).
 */
export class StagedoorStack extends Stack {
  constructor(scope: Construct, id: string, props: StagedoorStackProps) {
    super(scope, id, props);
    const config = props.config;
    const alerts = new Alerts(this, 'Alerts');
    Aspects.of(this).add(new NotifyEveryAlarm(alerts.topic));

    const data = new Data(this, 'Data', { mediaRetentionDays: config.mediaRetentionDays ?? 30 });
    const web = new Web(this, 'Web', { builtDir: config.webBuildDir, logsBucket: data.logsBucket });
    // The stage's default throttle must never be what cuts an audience off: 1M viewers send 33,334
    // heartbeats/s plus refreshes and departures (docs/deploy.md, capacity). The account's API Gateway
    // quota (10,000/s by default) is the real ceiling and is raised with AWS; abuse is held by the
    // per-route throttles (validate, login), the per-address limits in DynamoDB and the optional WAF rule.
    const gateway = new Gateway(this, 'Gateway', { rateLimit: 50_000, burstLimit: 50_000 });

    const ingest = new Ingest(this, 'Ingest', {
      // The ingest calls API Gateway directly: its callbacks need no CloudFront and no viewer address.
      apiUrl: gateway.url,
      mediaBucket: data.mediaBucket,
      logsBucket: data.logsBucket,
      secret: data.secret,
      secretReady: data.secretReady,
      domainName: config.ingestDomainName,
      certificateArn: config.ingestCertificateArn,
      rtmpsOnly: config.rtmpsOnly,
      rtmpPlay: config.rtmpPlay,
      maxTasks: config.ingestMaxTasks ?? 3,
      taskVcpu: config.ingestTaskVcpu ?? 2,
      segmentSeconds: config.hlsSegmentSeconds ?? 1,
      reencode: config.hlsReencode ?? 'auto',
    });

    const delivery = new Delivery(this, 'Delivery', {
      mediaBucket: data.mediaBucket,
      webBucket: web.bucket,
      logsBucket: data.logsBucket,
      apiDomainName: gateway.domainName,
      secret: data.secret,
      secretReady: data.secretReady,
      domainName: config.domainName,
      certificateArn: config.certificateArn,
      priceClass: config.priceClass ?? cloudfront.PriceClass.PRICE_CLASS_100,
    });

    const exports = new Exports(this, 'Exports', { logsBucket: data.logsBucket });
    const jobs = new Jobs(this, 'Jobs', { table: data.table, exports, commerceSecret: data.commerceSecret });

    const api = new Api(this, 'Api', {
      httpApi: gateway.httpApi,
      stage: gateway.stage,
      table: data.table,
      staffTable: data.staffTable,
      staffReady: data.staffReady,
      secret: data.secret,
      adminSecret: data.adminSecret,
      commerceSecret: data.commerceSecret,
      secretReady: data.secretReady,
      playbackBaseUrl: delivery.url,
      ingestRtmpUrl: ingest.rtmpUrl,
      ingestSrtUrl: ingest.srtUrl,
      segmentSeconds: config.hlsSegmentSeconds ?? 1,
      distributionId: delivery.distribution.distributionId,
      operatorConcurrency: config.operatorConcurrency,
      jobsQueueUrl: jobs.queue.queueUrl,
      exportBucket: exports.bucket.bucketName,
      mediaBucket: data.mediaBucket,
    });
    jobs.grantStart(api.functions.admin);
    exports.grantFiles(api.functions.admin);

    const edgeSync = new EdgeSync(this, 'EdgeSync', {
      table: data.table,
      secret: data.secret,
      keyValueStore: delivery.keyValueStore,
      reconcileEvery: config.edgeReconcileMinutes ? Duration.minutes(config.edgeReconcileMinutes) : Duration.seconds(TRIGGERS['edge-sync'].reconcile.everySeconds),
      secretReady: data.secretReady,
    });
    const audience = new Audience(this, 'Audience', { table: data.table });
    const recordingSweep = new RecordingSweep(this, 'RecordingSweep', { table: data.table, mediaBucket: data.mediaBucket });
    const mailer = new Mailer(this, 'Mailer', { table: data.table, siteUrl: delivery.url });
    const checkoutSweep = new CheckoutSweep(this, 'CheckoutSweep', { table: data.table, secret: data.secret, commerceSecret: data.commerceSecret });
    const monitoring = new Monitoring(this, 'Monitoring', {
      apiFunctions: api.functions,
      httpApi: gateway.httpApi,
      edgeSync: edgeSync.fn,
      audience: audience.fn,
      recordingSweep: recordingSweep.fn,
      table: data.table,
      distribution: delivery.distribution,
      ingestTargets: ingest.targets,
    });
    // Last of all: the admin fields leave the shared secret, and staff items the main table, once everything else is updated (docs/deploy.md, "Upgrading").
    const everythingElse = [web, gateway, ingest, delivery, exports, jobs, api, edgeSync, audience, recordingSweep, mailer, checkoutSweep, alerts, monitoring];
    data.retireSharedAdminFields(everythingElse);
    data.retireOldStaffItems(everythingElse);

    stackOutputs(this, { data, gateway, ingest, delivery, exports, jobs, api, edgeSync, mailer, alerts, monitoring });
  }
}

/** What the stack tells its operator after a deploy: addresses, names and ARNs (docs/deploy.md). */
function stackOutputs(
  stack: Stack,
  parts: { data: Data; gateway: Gateway; ingest: Ingest; delivery: Delivery; exports: Exports; jobs: Jobs; api: Api; edgeSync: EdgeSync; mailer: Mailer; alerts: Alerts; monitoring: Monitoring },
): void {
  const { data, gateway, ingest, delivery, exports, jobs, api, edgeSync, mailer, alerts, monitoring } = parts;
  new CfnOutput(stack, 'ViewerUrl', { value: `${delivery.url}/`, description: 'Viewer page (share with code holders)' });
  new CfnOutput(stack, 'AdminUrl', { value: `${delivery.url}/admin/`, description: 'Admin console' });
  new CfnOutput(stack, 'ApiUrl', { value: `${delivery.url}/api/`, description: 'Access API through CloudFront (what the pages use)' });
  new CfnOutput(stack, 'ApiGatewayUrl', { value: gateway.url, description: 'Access API endpoint behind CloudFront (the ingest calls it directly)' });
  new CfnOutput(stack, 'RtmpEndpoint', { value: ingest.rtmpUrl, description: 'OBS "Server"' });
  new CfnOutput(stack, 'SrtEndpoint', { value: ingest.srtUrl, description: 'SRT listener (UDP 9000); the console shows each event\'s full SRT URL' });
  new CfnOutput(stack, 'IngestLoadBalancerDns', { value: ingest.loadBalancer.loadBalancerDnsName, description: 'Point ingestDomainName here (CNAME)' });
  new CfnOutput(stack, 'DistributionDomain', { value: delivery.distribution.distributionDomainName, description: 'Point domainName here (CNAME/alias)' });
  new CfnOutput(stack, 'DistributionId', { value: delivery.distribution.distributionId });
  new CfnOutput(stack, 'SecretsArn', { value: data.secret.secretArn, description: 'Shared secret JSON: signing keys, internal API key, origin-verify secret' });
  new CfnOutput(stack, 'AdminSecretArn', { value: data.adminSecret.secretArn, description: 'Admin secret; set the admin password with infra/scripts/set-admin-password.ts' });
  new CfnOutput(stack, 'CommerceSecretArn', { value: data.commerceSecret.secretArn, description: 'orderWebhookSecret: what shops sign POST /api/webhooks/orders with; add stripeSecretKey and stripeWebhookSecret to sell with Stripe (README)' });
  new CfnOutput(stack, 'OrderWebhookUrl', { value: `${delivery.url}/api/webhooks/orders`, description: "A shop's order webhook endpoint" });
  new CfnOutput(stack, 'MailerFailuresQueue', { value: mailer.failures.queueUrl, description: 'Stream batches the mailer gave up on (their orders keep their email pending: resend from the console)' });
  new CfnOutput(stack, 'EdgeSyncFunctionName', { value: edgeSync.fn.functionName, description: 'Invoke to fill the KeyValueStore now' });
  new CfnOutput(stack, 'ApiFunctionNames', {
    value: Object.values(api.functions).map((fn) => fn.functionName).join(' '),
    description: 'Recycle these after changing the secret (docs/deploy.md)',
  });
  new CfnOutput(stack, 'JobsQueueArn', { value: jobs.queue.queueArn, description: 'Background jobs: the queue of job steps' });
  new CfnOutput(stack, 'JobsDeadLetterQueueArn', {
    value: jobs.deadLetterQueue.queueArn,
    description: 'Given-up job steps; redrive with aws sqs start-message-move-task --source-arn <this> (docs/deploy.md)',
  });
  new CfnOutput(stack, 'TableName', { value: data.table.tableName });
  new CfnOutput(stack, 'AlarmTopicArn', { value: alerts.topic.topicArn, description: 'Every alarm of the stack notifies this topic (stack parameter AlarmEmail subscribes an address)' });
  new CfnOutput(stack, 'DashboardName', { value: monitoring.dashboard.dashboardName, description: 'CloudWatch dashboard of the stack' });
  new CfnOutput(stack, 'StaffTableName', { value: data.staffTable.tableName, description: 'Staff accounts; for infra/scripts/unlock-account.ts' });
  new CfnOutput(stack, 'MediaBucket', { value: data.mediaBucket.bucketName });
  new CfnOutput(stack, 'ExportBucket', { value: exports.bucket.bucketName, description: `Code exports' CSV files (kept ${EXPORT_FILE_DAYS} days)` });
}
