import { readFileSync } from 'node:fs';
import { Duration, IgnoreMode, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecrAssets from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct, type IDependable } from 'constructs';
import { repoPath } from '../paths';

export const RTMP_PORT = 1935;
export const RTMPS_PORT = 443;

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

    // Public subnets only and no NAT gateway (about $32/month each): tasks reach S3, ECR and the
    // API through their public IP; their security group admits only the load balancer.
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'public', subnetType: ec2.SubnetType.PUBLIC }],
    });
    vpc.addFlowLog('RejectedFlows', {
      trafficType: ec2.FlowLogTrafficType.REJECT,
      destination: ec2.FlowLogDestination.toCloudWatchLogs(
        new logs.LogGroup(this, 'FlowLogs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
      ),
    });

    const balancerSg = new ec2.SecurityGroup(this, 'BalancerSg', { vpc, description: 'RTMP ingest load balancer', allowAllOutbound: false });
    if (plainRtmp) balancerSg.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(RTMP_PORT), 'RTMP from streamers anywhere');
    if (props.certificateArn) balancerSg.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(RTMPS_PORT), 'RTMPS from streamers anywhere');
    NagSuppressions.addResourceSuppressions(balancerSg, [
      { id: 'AwsSolutions-EC23', reason: 'An ingest endpoint: OBS connects from wherever the streamer is. Publishing is authorized per stream key by the API callback.' },
    ]);
    const taskSg = new ec2.SecurityGroup(this, 'TaskSg', { vpc, description: 'RTMP ingest tasks', allowAllOutbound: true });
    taskSg.addIngressRule(balancerSg, ec2.Port.tcp(RTMP_PORT), 'RTMP (and health checks) from the load balancer only');
    balancerSg.addEgressRule(taskSg, ec2.Port.tcp(RTMP_PORT), 'to the ingest tasks');

    const cluster = new ecs.Cluster(this, 'Cluster', { vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });

    const taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      // Copied video costs next to nothing; re-encoding a publisher at OBS's defaults costs a share of a vCPU
      // (docs/deploy.md, "Sizing the ingest").
      cpu: 1024 * props.taskVcpu,
      memoryLimitMiB: 2048 * props.taskVcpu,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.X86_64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    this.taskRole = taskDefinition.taskRole;
    // The only AWS calls the ingest makes: uploading playlists and segments, and keeping the recording index
    // (read back at every publish start, so a show continues across tasks).
    taskDefinition.addToTaskRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [props.mediaBucket.arnForObjects('streams/*')] }),
    );
    taskDefinition.addToTaskRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject'], resources: [props.mediaBucket.arnForObjects('recordings/*')] }),
    );
    taskDefinition.addToTaskRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [props.mediaBucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': ['recordings/*'] } },
      }),
    );

    taskDefinition.addContainer('ingest', {
      image: ecs.ContainerImage.fromAsset(repoPath(), {
        file: 'ingest-container/Dockerfile',
        platform: ecrAssets.Platform.LINUX_AMD64,
        // Same context filter as ingest-container/Dockerfile.dockerignore (BuildKit's per-Dockerfile
        // ignore file, which the CDK asset staging does not read): stage only what the build uses.
        ignoreMode: IgnoreMode.DOCKER,
        exclude: dockerIgnore(repoPath('ingest-container/Dockerfile.dockerignore')),
      }),
      logging: ecs.LogDrivers.awsLogs({
        streamPrefix: 'ingest',
        logGroup: new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
      }),
      environment: {
        INGEST_LISTEN: `:${RTMP_PORT}`,
        INGEST_AUTH_MODE: 'callback',
        INGEST_AUTH_CALLBACK: `${props.apiUrl}api/internal/rtmp-auth`,
        // A rotated stream key or a deactivated event cuts a live publisher within this.
        INGEST_AUTH_RECHECK_INTERVAL: '30s',
        // The NLB exposes the ingest to everyone: play only when the deployment asks for it.
        INGEST_ALLOW_PLAY: props.rtmpPlay ? 'true' : 'false',
        INGEST_API_URL: props.apiUrl,
        MEDIA_BUCKET: props.mediaBucket.bucketName,
        AWS_REGION: Stack.of(this).region,
        INGEST_LOG_LEVEL: 'info',
        INGEST_HLS_SEGMENT: `${props.segmentSeconds}s`,
        INGEST_HLS_REENCODE: props.reencode,
      },
      secrets: {
        INTERNAL_API_KEY: ecs.Secret.fromSecretsManager(props.secret, 'internalApiKey'),
      },
      portMappings: [{ containerPort: RTMP_PORT, protocol: ecs.Protocol.TCP }],
      // ECS ignores the Dockerfile's HEALTHCHECK; same probe here.
      healthCheck: {
        command: ['CMD', 'node', '/app/healthcheck.cjs'],
        interval: Duration.seconds(15),
        timeout: Duration.seconds(3),
        startPeriod: Duration.seconds(10),
        retries: 3,
      },
      // Time after SIGTERM to upload the final playlists and tell the API the stream ended.
      stopTimeout: Duration.seconds(60),
    });
    NagSuppressions.addResourceSuppressions(
      taskDefinition,
      [
        {
          id: 'AwsSolutions-IAM5',
          appliesTo: [{ regex: '/^Resource::<.*MediaBucket.*>\\/streams\\/\\*$/g' }],
          reason: 'Task role: s3:PutObject under streams/ of the media bucket only, where HLS of every event goes (streams/<eventId>/...).',
        },
        {
          id: 'AwsSolutions-IAM5',
          appliesTo: [{ regex: '/^Resource::<.*MediaBucket.*>\\/recordings\\/\\*$/g' }],
          reason: 'Task role: the recording index of every event (recordings/<eventId>/...), read at publish start and written per segment.',
        },
        {
          id: 'AwsSolutions-IAM5',
          appliesTo: ['Resource::*'],
          reason: 'Execution role: ecr:GetAuthorizationToken has no resource-level permissions (CDK adds it for the image asset).',
        },
      ],
      true,
    );
    NagSuppressions.addResourceSuppressions(taskDefinition, [
      {
        id: 'AwsSolutions-ECS2',
        reason: 'Only non-secret settings are plain environment variables; the internal API key comes through ECS secrets from Secrets Manager.',
      },
    ]);

    this.service = new ecs.FargateService(this, 'Service', {
      cluster,
      taskDefinition,
      desiredCount: 1,
      assignPublicIp: true,
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      securityGroups: [taskSg],
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      circuitBreaker: { rollback: true },
      healthCheckGracePeriod: Duration.seconds(60),
    });
    // The task reads internalApiKey from the secret when it starts.
    this.service.node.addDependency(props.secretReady);

    const scaling = this.service.autoScaleTaskCount({ minCapacity: 1, maxCapacity: props.maxTasks });
    scaling.scaleOnCpuUtilization('Cpu', {
      targetUtilizationPercent: 60,
      scaleOutCooldown: Duration.minutes(2),
      // Scaling in ends the streams on the removed task after the drain below; do it rarely.
      scaleInCooldown: Duration.minutes(30),
    });

    this.loadBalancer = new elbv2.NetworkLoadBalancer(this, 'Nlb', {
      vpc,
      internetFacing: true,
      crossZoneEnabled: true,
      securityGroups: [balancerSg],
    });
    this.enableAccessLogs(props.logsBucket, 'ingest-nlb');

    const targets = (this.targets = new elbv2.NetworkTargetGroup(this, 'Targets', {
      vpc,
      port: RTMP_PORT,
      protocol: elbv2.Protocol.TCP,
      targetType: elbv2.TargetType.IP,
      // A stream is one long TCP connection: a task leaving the group (deploy, scale-in) keeps
      // its publishers this long before ECS stops it, enough for most shows to finish or the
      // streamer to reconnect (OBS reconnects onto a healthy task).
      deregistrationDelay: Duration.minutes(15),
      healthCheck: { protocol: elbv2.Protocol.TCP, interval: Duration.seconds(10), healthyThresholdCount: 2, unhealthyThresholdCount: 2 },
    }));
    this.service.attachToNetworkTargetGroup(targets);
    if (plainRtmp) this.loadBalancer.addListener('Rtmp', { port: RTMP_PORT, protocol: elbv2.Protocol.TCP, defaultTargetGroups: [targets] });
    if (props.certificateArn) {
      this.loadBalancer.addListener('Rtmps', {
        port: RTMPS_PORT,
        protocol: elbv2.Protocol.TLS,
        certificates: [acm.Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn)],
        sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
        defaultTargetGroups: [targets],
      });
    }

    const host = props.domainName ?? this.loadBalancer.loadBalancerDnsName;
    this.rtmpUrl = props.certificateArn ? `rtmps://${host}:${RTMPS_PORT}/live` : `rtmp://${host}:${RTMP_PORT}/live`;
  }

  /**
   * NLB access logs (written for TLS listeners; the plain TCP listener has none). Done by hand
   * because `logAccessLogs()` needs a concrete region and this stack is env-agnostic: NLBs
   * deliver through the region-independent `delivery.logs.amazonaws.com` principal.
   */
  private enableAccessLogs(bucket: s3.IBucket, prefix: string): void {
    const account = Stack.of(this).account;
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
    this.loadBalancer.setAttribute('access_logs.s3.enabled', 'true');
    this.loadBalancer.setAttribute('access_logs.s3.bucket', bucket.bucketName);
    this.loadBalancer.setAttribute('access_logs.s3.prefix', prefix);
    // ELB checks that it may write when the attribute is set.
    if (put.policyDependable) this.loadBalancer.node.addDependency(put.policyDependable);
  }
}

/** The patterns of a .dockerignore file (comments and blank lines dropped). */
function dockerIgnore(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
