import type * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IDependable } from 'constructs';
import { ingestLoadBalancer } from './ingest/load-balancer';
import { ingestNetwork } from './ingest/network';
import { RTMP_PORT, RTMPS_PORT } from './ingest/ports';
import { ingestCluster, ingestService } from './ingest/service';
import { ingestTaskDefinition } from './ingest/task';

export { RTMP_PORT, RTMPS_PORT };

export interface IngestProps {
  /** The access API's base URL (`https://…/`): RTMP callback and live notifications. */
  apiUrl: string;
  mediaBucket: s3.IBucket;
  logsBucket: s3.IBucket;
  /** Holds `internalApiKey`, injected as INTERNAL_API_KEY through ECS secrets. */
  secret: secretsmanager.ISecret;
  /** The secret's generated fields exist (the task reads one at start). */
  secretReady: IDependable;
  /** Optional DNS name the streamer uses instead of the load balancer's. */
  domainName?: string;
  /** Regional ACM certificate for `domainName`: adds an RTMPS (TLS) listener on 443. */
  certificateArn?: string;
  /** With RTMPS: no plain RTMP listener at all, so ingest keys never travel in clear. */
  rtmpsOnly?: boolean;
  /** RTMP play for viewers (off: every play is refused; viewers watch HLS through CloudFront). */
  rtmpPlay?: boolean;
  maxTasks: number;
  /** vCPUs of each ingest task (1, 2 or 4; 2 GB of memory per vCPU): re-encoding costs about 0.3 vCPU per 720p30 publisher, 0.6 per 1080p30. */
  taskVcpu: 1 | 2 | 4;
  /** `INGEST_HLS_REENCODE`: `auto` re-encodes video whose keyframes are too far apart for the segments; `off` copies always. */
  reencode: 'auto' | 'off';
  /** HLS segment length; publishers need a keyframe at least this often. */
  segmentSeconds: number;
}

/**
 * RTMP ingest: the `ingest-container/` image on ECS Fargate behind a Network
 * Load Balancer on TCP 1935 (and TLS 443 for RTMPS when a certificate is given;
 * the balancer ends TLS, so the container always speaks plain RTMP).
 */
export class Ingest extends Construct {
  readonly loadBalancer: elbv2.NetworkLoadBalancer;
  readonly service: ecs.FargateService;
  readonly taskRole: iam.IRole;
  /** The tasks behind the load balancer: its healthy host count says whether OBS can connect. */
  readonly targets: elbv2.NetworkTargetGroup;
  /** What OBS is given as "Server" (INGEST_RTMP_URL). */
  readonly rtmpUrl: string;

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
    this.rtmpUrl = props.certificateArn ? `rtmps://${host}:${RTMPS_PORT}/live` : `rtmp://${host}:${RTMP_PORT}/live`;
  }
}
