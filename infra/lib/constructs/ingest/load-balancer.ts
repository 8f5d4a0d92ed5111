import { Duration, Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { RTMP_PORT, RTMPS_PORT, SRT_PORT } from './ports';

export interface IngestLoadBalancerProps {
  vpc: ec2.IVpc;
  balancerSg: ec2.ISecurityGroup;
  logsBucket: s3.IBucket;
  service: ecs.FargateService;
  /** A plain RTMP listener on 1935. */
  plainRtmp: boolean;
  /** Regional ACM certificate: an RTMPS (TLS) listener on 443. */
  certificateArn?: string;
}

export interface IngestLoadBalancer {
  loadBalancer: elbv2.NetworkLoadBalancer;
  targets: elbv2.NetworkTargetGroup;
  /** The tasks' SRT port (UDP). */
  srtTargets: elbv2.NetworkTargetGroup;
}

/**
 * The Network Load Balancer, its access logs, the target group of the service's tasks and the
 * listeners (the balancer ends TLS, so the tasks always speak plain RTMP).
 */
export function ingestLoadBalancer(scope: Construct, props: IngestLoadBalancerProps): IngestLoadBalancer {
  const { vpc } = props;
  const loadBalancer = new elbv2.NetworkLoadBalancer(scope, 'Nlb', {
    vpc,
    internetFacing: true,
    crossZoneEnabled: true,
    securityGroups: [props.balancerSg],
  });
  enableAccessLogs(loadBalancer, props.logsBucket, 'ingest-nlb');

  const targets = new elbv2.NetworkTargetGroup(scope, 'Targets', {
    vpc,
    port: RTMP_PORT,
    protocol: elbv2.Protocol.TCP,
    targetType: elbv2.TargetType.IP,
    // A stream is one long TCP connection: a task leaving the group (deploy, scale-in) keeps
    // its publishers this long before ECS stops it, enough for most shows to finish or the
    // streamer to reconnect (OBS reconnects onto a healthy task).
    deregistrationDelay: Duration.minutes(15),
    healthCheck: { protocol: elbv2.Protocol.TCP, interval: Duration.seconds(10), healthyThresholdCount: 2, unhealthyThresholdCount: 2 },
  });
  props.service.attachToNetworkTargetGroup(targets);
  if (props.plainRtmp) loadBalancer.addListener('Rtmp', { port: RTMP_PORT, protocol: elbv2.Protocol.TCP, defaultTargetGroups: [targets] });
  if (props.certificateArn) {
    loadBalancer.addListener('Rtmps', {
      port: RTMPS_PORT,
      protocol: elbv2.Protocol.TLS,
      certificates: [acm.Certificate.fromCertificateArn(scope, 'Certificate', props.certificateArn)],
      sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
      defaultTargetGroups: [targets],
    });
  }
  return { loadBalancer, targets, srtTargets: srtListener(scope, loadBalancer, props) };
}

/**
 * SRT callers on UDP 9000 to the tasks' SRT port. A UDP target group checks health over TCP: on the RTMP
 * port, which the same process serves (a task whose ingest is down is down for both).
 */
function srtListener(scope: Construct, loadBalancer: elbv2.NetworkLoadBalancer, props: IngestLoadBalancerProps): elbv2.NetworkTargetGroup {
  const srtTargets = new elbv2.NetworkTargetGroup(scope, 'SrtTargets', {
    vpc: props.vpc,
    port: SRT_PORT,
    protocol: elbv2.Protocol.UDP,
    targetType: elbv2.TargetType.IP,
    deregistrationDelay: Duration.minutes(15),
    healthCheck: { protocol: elbv2.Protocol.TCP, port: String(RTMP_PORT), interval: Duration.seconds(10), healthyThresholdCount: 2, unhealthyThresholdCount: 2 },
  });
  srtTargets.addTarget(props.service.loadBalancerTarget({ containerName: 'ingest', containerPort: SRT_PORT, protocol: ecs.Protocol.UDP }));
  loadBalancer.addListener('Srt', { port: SRT_PORT, protocol: elbv2.Protocol.UDP, defaultTargetGroups: [srtTargets] });
  return srtTargets;
}

/**
 * NLB access logs (written for TLS listeners; the plain TCP listener has none). Done by hand
 * because `logAccessLogs()` needs a concrete region and this stack is env-agnostic: NLBs
 * deliver through the region-independent `delivery.logs.amazonaws.com` principal.
 */
function enableAccessLogs(loadBalancer: elbv2.NetworkLoadBalancer, bucket: s3.IBucket, prefix: string): void {
  const account = Stack.of(loadBalancer).account;
  const delivery = new iam.ServicePrincipal('delivery.logs.amazonaws.com');
  const put = bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [delivery],
      actions: ['s3:PutObject'],
      resources: [bucket.arnForObjects(`${prefix}/AWSLogs/${account}/*`)],
      conditions: { StringEquals: { 's3:x-amz-acl': 'bucket-owner-full-control', 'aws:SourceAccount': account } },
    }),
  );
  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [delivery],
      actions: ['s3:GetBucketAcl'],
      resources: [bucket.bucketArn],
      conditions: { StringEquals: { 'aws:SourceAccount': account } },
    }),
  );
  loadBalancer.setAttribute('access_logs.s3.enabled', 'true');
  loadBalancer.setAttribute('access_logs.s3.bucket', bucket.bucketName);
  loadBalancer.setAttribute('access_logs.s3.prefix', prefix);
  // ELB checks that it may write when the attribute is set.
  if (put.policyDependable) loadBalancer.node.addDependency(put.policyDependable);
}
