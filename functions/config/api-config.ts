import * as z from 'zod';
import { SESSION_TIMEOUT_SECONDS } from '../domain/config';
import { parseEnvironment, variable, type Environment } from './env';

/**
 * Where a function's secrets come from: Secrets Manager (by ARN, read through the cache every
 * entry point shares, so a rotation reaches warm instances), or values given with the
 * configuration (local mode). Parsed and checked when loaded (functions/adapters/secrets.ts).
 */
export type SecretSource = { arn: string } | { values: Record<string, unknown> };

/** Where the admin's "clear media cache" goes: a CloudFront invalidation in AWS, the local media server's admin endpoint. */
export type MediaCacheTarget = { cloudFrontDistributionId: string } | { mediaAdminUrl: string } | null;

export type LogLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'CRITICAL' | 'SILENT';
const LOG_LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'];

/** The API functions' configuration (every area's; each uses its part), read once per process. */
export interface ApiConfig {
  tableName: string;
  /** The staff table (staff accounts and sign-in state): given to the admin function alone; null elsewhere. */
  staffTableName: string | null;
  /** Base URL of HLS delivery. When null, the request's host with `mediaPort` (local mode). */
  playbackBaseUrl: string | null;
  mediaPort: number;
  /** OBS "Server" shown to admins, e.g. `rtmp://ingest.example.com/live`. */
  ingestRtmpUrl: string | null;
  /** Without `ingestRtmpUrl`: the console's own host on this port (local mode: whatever address the admin used). */
  ingestRtmpPort: number;
  /** SRT's `srt://host:port` for the console; without it the console's host on `ingestSrtPort`. */
  ingestSrtUrl: string | null;
  ingestSrtPort: number;
  /** The ingest's HLS segment length; OBS's keyframe interval should match it. */
  segmentSeconds: number;
  /** The site's own origin (`https://…`, the CloudFront URL in AWS): admin mutations from a browser must come from it. */
  siteOrigin: string | null;
  sessionTimeoutSeconds: number;
  mediaCache: MediaCacheTarget;
  logLevel: LogLevel;
  /** The secret every function reads: signing keys, internal API key, origin verify secret. */
  secrets: SecretSource;
  /** The admin function's own secret (only its role may read it in AWS); null where not given. */
  adminSecrets: SecretSource | null;
  /** The SQS queue the admin function sends background jobs' steps to; null: jobs are not set up. */
  jobsQueueUrl: string | null;
  /** The bucket export jobs write their CSV files to (under `exports/`); null: exports are not set up. */
  exportBucket: string | null;
  /** The bucket of the shows' HLS and recording indexes (`streams/`, `recordings/`), read by the watermark tracer's routes; null: not set up. */
  mediaBucket?: string | null;
  /** The commerce secret (the order webhooks' signing secrets, Stripe's API key): the public function's alone in AWS; null where not given. */
  commerceSecrets: SecretSource | null;
  /** Where the Stripe SDK sends its API calls instead of api.stripe.com (`STRIPE_API_URL`: a local stand-in); null: Stripe's. */
  stripeApiUrl: string | null;
}

/** `1s`, `1.5s`, `500ms` or plain seconds, as the ingest's `-hls-segment` takes it. */
const duration = z
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined || value === '') return 1;
    const match = /^\s*(\d+(?:\.\d+)?)(ms|s)?\s*$/.exec(value);
    const seconds = match ? Number(match[1]) / (match[2] === 'ms' ? 1000 : 1) : NaN;
    if (seconds > 0) return seconds;
    context.addIssue({ code: 'custom', message: `must be a duration such as 1s, got "${value}"` });
    return z.NEVER;
  });

/** `LOG_LEVEL` as Powertools takes it (the job worker's configuration reads it too). */
export const logLevel = z
  .string()
  .optional()
  .transform((value, context) => {
    const level = (value || 'INFO').toUpperCase();
    if ((LOG_LEVELS as string[]).includes(level)) return level as LogLevel;
    context.addIssue({ code: 'custom', message: `must be one of ${LOG_LEVELS.join(', ').toLowerCase()}, got "${value}"` });
    return z.NEVER;
  });

const settings = {
  TABLE_NAME: variable.required(),
  STAFF_TABLE_NAME: variable.optional(),
  PLAYBACK_BASE_URL: variable.url(),
  MEDIA_PORT: variable.positiveInteger(4000),
  INGEST_RTMP_URL: variable.optional(),
  INGEST_RTMP_PORT: variable.positiveInteger(1935),
  INGEST_SRT_URL: variable.optional(),
  INGEST_SRT_PORT: variable.positiveInteger(9000),
  INGEST_HLS_SEGMENT: duration,
  SITE_ORIGIN: variable.url(),
  SESSION_TIMEOUT_SECONDS: variable.positiveInteger(SESSION_TIMEOUT_SECONDS),
  CLOUDFRONT_DISTRIBUTION_ID: variable.optional(),
  MEDIA_ADMIN_URL: variable.url(),
  LOG_LEVEL: logLevel,
  SECRETS_ARN: variable.optional(),
  ADMIN_SECRETS_ARN: variable.optional(),
  JOBS_QUEUE_URL: variable.url(),
  EXPORT_BUCKET: variable.optional(),
  MEDIA_BUCKET: variable.optional(),
  COMMERCE_SECRETS_ARN: variable.optional(),
  /** Locally, the commerce secret's values. */
  ORDER_WEBHOOK_SECRET: variable.optional(),
  STRIPE_WEBHOOK_SECRET: variable.optional(),
  STRIPE_SECRET_KEY: variable.optional(),
  STRIPE_API_URL: variable.url(),
};

/** Without SECRETS_ARN (local mode), the shared secret's values come as variables themselves. */
const sharedSecretValues = {
  PLAYBACK_SIGNING_KEYS: variable.required(),
  INTERNAL_API_KEY: variable.required(),
  ORIGIN_VERIFY_SECRET: variable.optional(),
  WATERMARK_SECRET: variable.required(),
};
const adminSecretValues = {
  ADMIN_PASSWORD_HASH: variable.required(),
  ADMIN_SESSION_SECRET: variable.required(),
  ADMIN_TOTP_KEY: variable.required(),
};

/**
 * Reads the API functions' environment once: the settings the CDK app sets (infra/lib/constructs/api.ts),
 * or, locally, what local/local-config.ts hands over. Throws one error naming each variable that
 * is missing or malformed.
 */
export function readApiConfig(env: Environment = process.env): ApiConfig {
  // Powertools' own POWERTOOLS_LOG_LEVEL wins over LOG_LEVEL, as in Powertools.
  const found = parseEnvironment(settings, { ...env, LOG_LEVEL: env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL });
  const shared = found.SECRETS_ARN ? null : parseEnvironment(sharedSecretValues, env);
  // Locally the admin secret's values are variables; in AWS only the admin function is given its ARN.
  const admin =
    found.ADMIN_SECRETS_ARN || !(env.ADMIN_PASSWORD_HASH || env.ADMIN_SESSION_SECRET || env.ADMIN_TOTP_KEY) ? null : parseEnvironment(adminSecretValues, env);
  return {
    tableName: found.TABLE_NAME,
    staffTableName: found.STAFF_TABLE_NAME,
    playbackBaseUrl: found.PLAYBACK_BASE_URL,
    mediaPort: found.MEDIA_PORT,
    ingestRtmpUrl: found.INGEST_RTMP_URL,
    ingestRtmpPort: found.INGEST_RTMP_PORT,
    ingestSrtUrl: found.INGEST_SRT_URL,
    ingestSrtPort: found.INGEST_SRT_PORT,
    segmentSeconds: found.INGEST_HLS_SEGMENT,
    siteOrigin: found.SITE_ORIGIN,
    sessionTimeoutSeconds: found.SESSION_TIMEOUT_SECONDS,
    mediaCache: found.CLOUDFRONT_DISTRIBUTION_ID
      ? { cloudFrontDistributionId: found.CLOUDFRONT_DISTRIBUTION_ID }
      : found.MEDIA_ADMIN_URL
        ? { mediaAdminUrl: found.MEDIA_ADMIN_URL }
        : null,
    logLevel: found.LOG_LEVEL,
    secrets: shared
      ? {
          values: {
            playbackSigningKeys: shared.PLAYBACK_SIGNING_KEYS,
            internalApiKey: shared.INTERNAL_API_KEY,
            originVerifySecret: shared.ORIGIN_VERIFY_SECRET,
            watermarkSecret: shared.WATERMARK_SECRET,
          },
        }
      : { arn: found.SECRETS_ARN! },
    adminSecrets: found.ADMIN_SECRETS_ARN
      ? { arn: found.ADMIN_SECRETS_ARN }
      : admin && {
          values: { adminPasswordHash: admin.ADMIN_PASSWORD_HASH, adminSessionSecret: admin.ADMIN_SESSION_SECRET, totpEncryptionKey: admin.ADMIN_TOTP_KEY },
        },
    jobsQueueUrl: found.JOBS_QUEUE_URL,
    exportBucket: found.EXPORT_BUCKET ?? null,
    mediaBucket: found.MEDIA_BUCKET ?? null,
    commerceSecrets: found.COMMERCE_SECRETS_ARN
      ? { arn: found.COMMERCE_SECRETS_ARN }
      : found.ORDER_WEBHOOK_SECRET || found.STRIPE_WEBHOOK_SECRET || found.STRIPE_SECRET_KEY
        ? { values: { orderWebhookSecret: found.ORDER_WEBHOOK_SECRET, stripeWebhookSecret: found.STRIPE_WEBHOOK_SECRET, stripeSecretKey: found.STRIPE_SECRET_KEY } }
        : null,
    stripeApiUrl: found.STRIPE_API_URL,
  };
}
