import { rmSync } from 'node:fs';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthesize, type Synthesized } from '../support/synth';

// The optional domains: the distribution on a custom name with TLS 1.2+, RTMPS on the load balancer.
const CLOUDFRONT_CERT = 'arn:aws:acm:us-east-1:111111111111:certificate/00000000-0000-0000-0000-000000000001';
const INGEST_CERT = 'arn:aws:acm:eu-west-1:111111111111:certificate/00000000-0000-0000-0000-000000000002';

let s: Synthesized;
beforeAll(async () => {
  s = await synthesize({
    domainName: 'watch.example.com',
    certificateArn: CLOUDFRONT_CERT,
    ingestDomainName: 'ingest.example.com',
    ingestCertificateArn: INGEST_CERT,
    ingestMaxTasks: 5,
    ingestTaskVcpu: 1,
    hlsReencode: 'off',
    mediaRetentionDays: 7,
    edgeReconcileMinutes: 15,
  });
}, 300_000);
// The assembly holds every bundle and the deployment layer (tens of MB): do not leave it in /tmp.
afterAll(() => rmSync(s.outdir, { recursive: true, force: true }));

describe('with custom domains', () => {
  it('serves the distribution on the custom name with TLS 1.2 or newer', () => {
    s.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['watch.example.com'],
        ViewerCertificate: { AcmCertificateArn: CLOUDFRONT_CERT, MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' },
      }),
    });
  });

  it('hands out URLs on the custom names', () => {
    const env = Object.values(s.json.Resources)
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .map((r) => r.Properties.Environment?.Variables ?? {});
    // The public function (viewer URLs) and the admin function (preview URLs).
    expect(env.map((v) => v.PLAYBACK_BASE_URL).filter(Boolean)).toEqual(['https://watch.example.com', 'https://watch.example.com']);
    expect(env.map((v) => v.INGEST_RTMP_URL).filter(Boolean)).toEqual(['rtmps://ingest.example.com:443/live']);
    expect(env.map((v) => v.INGEST_SRT_URL).filter(Boolean)).toEqual(['srt://ingest.example.com:9000']);
  });

  it('adds an RTMPS listener that ends TLS on 443 and forwards to the same RTMP targets', () => {
    // RTMP, RTMPS and SRT.
    s.template.resourceCountIs('AWS::ElasticLoadBalancingV2::Listener', 3);
    s.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', {
      Port: 443,
      Protocol: 'TLS',
      Certificates: [{ CertificateArn: INGEST_CERT }],
      DefaultActions: [Match.objectLike({ Type: 'forward' })],
    });
    s.template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: 'RTMP ingest load balancer',
      SecurityGroupIngress: Match.arrayWith([Match.objectLike({ FromPort: 443, ToPort: 443, CidrIp: '0.0.0.0/0' })]),
    });
  });

  it('takes the retention, the task size and ceiling, re-encoding and the reconciliation interval from the configuration', () => {
    s.template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      Cpu: '1024',
      Memory: '2048',
      ContainerDefinitions: [Match.objectLike({ Environment: Match.arrayWith([{ Name: 'INGEST_HLS_REENCODE', Value: 'off' }]) })],
    });
    s.template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Prefix: 'streams/', ExpirationInDays: 7 })]) },
    });
    s.template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MaxCapacity: 5 });
    s.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(15 minutes)' });
  });

  it('RTMPS only: no plain RTMP listener and no port 1935 open to the internet; RTMP play on request', async () => {
    const only = await synthesize({ ingestDomainName: 'ingest.example.com', ingestCertificateArn: INGEST_CERT, rtmpsOnly: true, rtmpPlay: true });
    try {
      // RTMPS and SRT.
      only.template.resourceCountIs('AWS::ElasticLoadBalancingV2::Listener', 2);
      only.template.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Port: 443, Protocol: 'TLS' });
      const balancer = Object.values(only.json.Resources).find(
        (r) => r.Type === 'AWS::EC2::SecurityGroup' && r.Properties.GroupDescription === 'RTMP ingest load balancer',
      )!;
      // SRT stays: its payload is encrypted with the event's passphrase (no clear-text key, as plain RTMP has).
      expect(balancer.Properties.SecurityGroupIngress.map((rule: { FromPort: number; IpProtocol: string }) => `${rule.IpProtocol}/${rule.FromPort}`)).toEqual(['tcp/443', 'udp/9000']);
      only.template.hasResourceProperties('AWS::ECS::TaskDefinition', {
        ContainerDefinitions: [Match.objectLike({ Environment: Match.arrayWith([{ Name: 'INGEST_ALLOW_PLAY', Value: 'true' }]) })],
      });
      expect(only.annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
    } finally {
      rmSync(only.outdir, { recursive: true, force: true });
    }
    await expect(synthesize({ rtmpsOnly: true })).rejects.toThrow(/rtmpsOnly needs an ingest certificate/);
  }, 120_000);

  it('still passes cdk-nag AwsSolutions', () => {
    expect(s.annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
  });
});
