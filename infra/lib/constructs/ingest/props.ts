import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { IDependable } from 'constructs';

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
