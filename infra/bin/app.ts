/**
 * The CDK app (cdk.json: `npx tsx infra/bin/app.ts`). Builds the web pages into
 * a folder under cdk.out first, then synthesizes one env-agnostic stack.
 *
 * Context (`-c key=value` or cdk.json "context"), all optional:
 *   stackName, domainName + certificateArn (us-east-1), ingestDomainName [+ ingestCertificateArn],
 *   mediaRetentionDays (30), ingestMaxTasks (3), edgeReconcileMinutes (5),
 *   priceClass (PriceClass_100 | PriceClass_200 | PriceClass_All; default PriceClass_100),
 *   rtmpsOnly (false; needs ingestCertificateArn), rtmpPlay (false),
 *   operatorConcurrency (reserved Lambda concurrency per operator function; none by default).
 *   hlsSegmentSeconds (1; 1–10, the HLS segment length: latency against request count, docs/performance.md, "Latency"),
 *   hlsReencode (auto | off; auto re-encodes video whose keyframes are too far apart), ingestTaskVcpu (2; 1, 2 or 4).
 */
import { App, Aspects } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildWebAssets } from '../lib/web-assets';
import { StagedoorStack, type StagedoorConfig } from '../lib/stagedoor-stack';

const app = new App();
const context = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return value === undefined || value === '' ? undefined : String(value);
};
const number = (key: string): number | undefined => {
  const text = context(key);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`context ${key}: expected a positive integer, got "${text}"`);
  return value;
};

const flag = (key: string): boolean => {
  const text = context(key);
  if (text === undefined) return false;
  if (text !== 'true' && text !== 'false') throw new Error(`context ${key}: expected true or false, got "${text}"`);
  return text === 'true';
};

const choice = (key: string, allowed: readonly string[]): string | undefined => {
  const text = context(key);
  if (text !== undefined && !allowed.includes(text)) throw new Error(`context ${key}: one of ${allowed.join(', ')}, got "${text}"`);
  return text;
};
const taskVcpu = choice('ingestTaskVcpu', ['1', '2', '4']);

const config: StagedoorConfig = {
  webBuildDir: await buildWebAssets(app.outdir),
  domainName: context('domainName'),
  certificateArn: context('certificateArn'),
  ingestDomainName: context('ingestDomainName'),
  ingestCertificateArn: context('ingestCertificateArn'),
  mediaRetentionDays: number('mediaRetentionDays'),
  ingestMaxTasks: number('ingestMaxTasks'),
  priceClass: context('priceClass') as cloudfront.PriceClass | undefined,
  edgeReconcileMinutes: number('edgeReconcileMinutes'),
  rtmpsOnly: flag('rtmpsOnly'),
  rtmpPlay: flag('rtmpPlay'),
  operatorConcurrency: number('operatorConcurrency'),
  hlsSegmentSeconds: number('hlsSegmentSeconds'),
  hlsReencode: choice('hlsReencode', ['auto', 'off']) as 'auto' | 'off' | undefined,
  ingestTaskVcpu: taskVcpu === undefined ? undefined : (Number(taskVcpu) as 1 | 2 | 4),
};
if (Boolean(config.domainName) !== Boolean(config.certificateArn)) {
  throw new Error('context domainName and certificateArn go together (the certificate must be in us-east-1)');
}
if (config.priceClass && !Object.values(cloudfront.PriceClass).includes(config.priceClass)) {
  throw new Error(`context priceClass: one of ${Object.values(cloudfront.PriceClass).join(', ')}`);
}
if (config.rtmpsOnly && !config.ingestCertificateArn) {
  throw new Error('context rtmpsOnly needs ingestDomainName and ingestCertificateArn (RTMPS)');
}
if (config.hlsSegmentSeconds !== undefined && config.hlsSegmentSeconds > 10) {
  throw new Error(`context hlsSegmentSeconds: 1 to 10, got ${config.hlsSegmentSeconds}`);
}
if (config.ingestCertificateArn && !config.ingestDomainName) {
  throw new Error('context ingestCertificateArn needs ingestDomainName (OBS checks the certificate against it)');
}

new StagedoorStack(app, context('stackName') ?? 'Stagedoor', {
  description: 'Stagedoor: ticketed live video (access API, RTMP ingest, protected HLS delivery)',
  config,
});

// Every synth is checked against the AWS Solutions rules; findings print as errors/warnings.
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
