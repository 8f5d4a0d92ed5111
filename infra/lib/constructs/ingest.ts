import type * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ingestLoadBalancer } from './ingest/load-balancer';
import { ingestNetwork } from './ingest/network';
import { RTMP_PORT, RTMPS_PORT, SRT_PORT } from './ingest/ports';
import { ingestCluster, ingestService } from './ingest/service';
import { ingestTaskDefinition } from './ingest/task';
import type { IngestProps } from './ingest/props';

export { RTMP_PORT, RTMPS_PORT, SRT_PORT };


/**
 * RTMP ingest: the `ingest-container/` image on ECS Fargate behind a Network
 * Load Balancer on TCP 1935 (and TLS 443 for RTMPS when a certificate is given;
 * the balancer ends TLS, so the container always speaks plain RTMP).
 */
export type { IngestProps } from './ingest/props';

export class Ingest extends Construct {
  readonly loadBalancer: elbv2.NetworkLoadBalancer;
  readonly service: ecs.FargateService;
  readonly taskRole: iam.IRole;
  /** The tasks behind the load balancer: its healthy host count says whether OBS can connect. */
  readonly targets: elbv2.NetworkTargetGroup;
  /** What OBS is given as "Server" (INGEST_RTMP_URL). */
  readonly rtmpUrl: string;
  /** SRT's `srt://host:9000` (INGEST_SRT_URL). */
  readonly srtUrl: string;

  constructor(scope: Construct, id: string, props: IngestProps) {
    super(scope, id);
    if (props.rtmpsOnly && !props.certificateArn) throw new Error('rtmpsOnly needs an ingest certificate (RTMPS)');
    const plainRtmp = !props.rtmpsOnly;

    const { vpc, balancerSg, taskSg } = ingestNetwork(this, { plainRtmp, rtmps: Boolean(props.certificateArn) });
    const cluster = ingestCluster(this, vpc);
    const taskDefinition = ingestTaskDefinition(this, props);
    this.taskRole = taskDefinition.taskRole;
    this.service = ingestService(this, { cluster, taskSg, taskDefinition, secretReady: props.secretReady, maxTasks: props.maxTasks });
    const balancer = ingestLoadBalancer(this, {
      vpc,
      balancerSg,
      logsBucket: props.logsBucket,
      service: this.service,
      plainRtmp,
      certificateArn: props.certificateArn,
    });
    this.loadBalancer = balancer.loadBalancer;
    this.targets = balancer.targets;

    const host = props.domainName ?? this.loadBalancer.loadBalancerDnsName;
    this.srtUrl = `srt://${host}:${SRT_PORT}`;
    this.rtmpUrl = props.certificateArn ? `rtmps://${host}:${RTMPS_PORT}/live` : `rtmp://${host}:${RTMP_PORT}/live`;
  }
}
