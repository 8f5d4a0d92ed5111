import { readFileSync } from 'node:fs';
import { Duration, IgnoreMode, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ecrAssets from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { repoPath } from '../../paths';
import type { IngestProps } from './props';
import { RTMP_PORT, SRT_PORT } from './ports';
import { acknowledgeTaskWildcards, grantMediaAccess } from './task-permissions';

export type IngestTaskProps = Pick<IngestProps, 'apiUrl' | 'mediaBucket' | 'secret' | 'rtmpPlay' | 'taskVcpu' | 'reencode' | 'segmentSeconds'>;

/** The Fargate task: the `ingest-container/` image, its settings, and what it may touch. */
export function ingestTaskDefinition(scope: Construct, props: IngestTaskProps): ecs.FargateTaskDefinition {
  const taskDefinition = new ecs.FargateTaskDefinition(scope, 'Task', {
    // Copied video costs next to nothing; re-encoding a publisher at OBS's defaults costs a share of a vCPU
    // (docs/deploy.md, "Sizing the ingest").
    cpu: 1024 * props.taskVcpu,
    memoryLimitMiB: 2048 * props.taskVcpu,
    runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.X86_64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
  });
  grantMediaAccess(taskDefinition, props.mediaBucket);
  addIngestContainer(scope, taskDefinition, props);
  acknowledgeTaskWildcards(taskDefinition);
  NagSuppressions.addResourceSuppressions(taskDefinition, [
    {
      id: 'AwsSolutions-ECS2',
      reason: 'Only non-secret settings are plain environment variables; the internal API key comes through ECS secrets from Secrets Manager.',
    },
  ]);
  return taskDefinition;
}

function addIngestContainer(scope: Construct, taskDefinition: ecs.FargateTaskDefinition, props: IngestTaskProps): void {
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
      logGroup: new logs.LogGroup(scope, 'Logs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
    }),
    environment: {
      INGEST_LISTEN: `:${RTMP_PORT}`,
      INGEST_SRT_LISTEN: `:${SRT_PORT}`,
      INGEST_AUTH_MODE: 'callback',
      INGEST_AUTH_CALLBACK: `${props.apiUrl}api/internal/rtmp-auth`,
      // A rotated stream key or a deactivated event cuts a live publisher within this.
      INGEST_AUTH_RECHECK_INTERVAL: '30s',
      // The NLB exposes the ingest to everyone: play only when the deployment asks for it.
      INGEST_ALLOW_PLAY: props.rtmpPlay ? 'true' : 'false',
      INGEST_API_URL: props.apiUrl,
      MEDIA_BUCKET: props.mediaBucket.bucketName,
      AWS_REGION: Stack.of(scope).region,
      INGEST_LOG_LEVEL: 'info',
      INGEST_HLS_SEGMENT: `${props.segmentSeconds}s`,
      INGEST_HLS_REENCODE: props.reencode,
    },
    secrets: {
      INTERNAL_API_KEY: ecs.Secret.fromSecretsManager(props.secret, 'internalApiKey'),
    },
    portMappings: [
      { containerPort: RTMP_PORT, protocol: ecs.Protocol.TCP },
      { containerPort: SRT_PORT, protocol: ecs.Protocol.UDP },
    ],
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
}

/** The patterns of a .dockerignore file (comments and blank lines dropped). */
function dockerIgnore(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
