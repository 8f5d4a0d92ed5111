import { RemovalPolicy } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { RTMP_PORT, RTMPS_PORT, SRT_PORT } from './ports';

export interface IngestNetwork {
  vpc: ec2.Vpc;
  /** Admits streamers on the listener ports; sends only to the tasks. */
  balancerSg: ec2.SecurityGroup;
  /** Admits the load balancer only. */
  taskSg: ec2.SecurityGroup;
}

/**
 * The ingest's VPC and its two security groups. Public subnets only and no NAT gateway (about
 * $32/month each): tasks reach S3, ECR and the API through their public IP; their security group
 * admits only the load balancer.
 */
export function ingestNetwork(scope: Construct, listeners: { plainRtmp: boolean; rtmps: boolean }): IngestNetwork {
  const vpc = new ec2.Vpc(scope, 'Vpc', {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'public', subnetType: ec2.SubnetType.PUBLIC }],
  });
  vpc.addFlowLog('RejectedFlows', {
    trafficType: ec2.FlowLogTrafficType.REJECT,
    destination: ec2.FlowLogDestination.toCloudWatchLogs(
      new logs.LogGroup(scope, 'FlowLogs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
    ),
  });

  const balancerSg = new ec2.SecurityGroup(scope, 'BalancerSg', { vpc, description: 'RTMP ingest load balancer', allowAllOutbound: false });
  if (listeners.plainRtmp) balancerSg.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(RTMP_PORT), 'RTMP from streamers anywhere');
  if (listeners.rtmps) balancerSg.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(RTMPS_PORT), 'RTMPS from streamers anywhere');
  balancerSg.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.udp(SRT_PORT), 'SRT from encoders anywhere');
  NagSuppressions.addResourceSuppressions(balancerSg, [
    { id: 'AwsSolutions-EC23', reason: 'An ingest endpoint: OBS connects from wherever the streamer is. Publishing is authorized per stream key by the API callback.' },
  ]);
  const taskSg = new ec2.SecurityGroup(scope, 'TaskSg', { vpc, description: 'RTMP ingest tasks', allowAllOutbound: true });
  taskSg.addIngressRule(balancerSg, ec2.Port.tcp(RTMP_PORT), 'RTMP (and health checks) from the load balancer only');
  balancerSg.addEgressRule(taskSg, ec2.Port.tcp(RTMP_PORT), 'to the ingest tasks');
  // UDP keeps the caller's address (client IP preservation cannot be turned off for UDP); with a security group
  // on the balancer the tasks still admit only traffic that came through it.
  taskSg.addIngressRule(balancerSg, ec2.Port.udp(SRT_PORT), 'SRT from the load balancer only');
  balancerSg.addEgressRule(taskSg, ec2.Port.udp(SRT_PORT), 'SRT to the ingest tasks');
  return { vpc, balancerSg, taskSg };
}
