import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import * as z from 'zod';
import { SESSION_TIMEOUT_SECONDS, type AdminSecrets, type AppConfig, type JobWorkerConfig } from '../domain/config';
import { parseSigningKeys } from '../domain/signing-keys';

/** The shared secret (`SECRETS_ARN`): what the viewer, internal, callback, admin and edge-sync functions all need. */
const sharedSecretsSchema = z.object({
  playbackSigningKeys: z.string().min(1),
  internalApiKey: z.string().min(16),
  originVerifySecret: z.string().min(16).nullish(),
});

/** The admin secret (`ADMIN_SECRETS_ARN`): read by the admin function alone. */
const adminSecretsSchema = z.object({
  adminPasswordHash: z.string().startsWith('scrypt$'),
  adminSessionSecret: z.string().min(32),
});

/**
 * How long every entry point (the API functions and edge-sync alike) keeps
 * the secrets it read: a new admin password or a signing-key rotation
 * reaches warm instances within this, without a redeploy.
 */
export const CONFIG_MAX_AGE_SECONDS = 300;

let provider: SecretsProvider | undefined;

async function secretsFromManager(arn: string): Promise<unknown> {
  provider ??= new SecretsProvider();
  return provider.get(arn, { maxAge: CONFIG_MAX_AGE_SECONDS, transform: 'json' });
}

/**
 * A parser that remembers its result per secret value: Powertools hands back
 * the same object until it expires, so each value is validated once.
 */
function cachedParser<T>(schema: z.ZodType<T>, what: string): (raw: unknown) => T {
  const parsed = new WeakMap<object, T>();
  return (raw) => {
    const cached = raw && typeof raw === 'object' ? parsed.get(raw) : undefined;
    if (cached) return cached;
    const result = schema.safeParse(raw);
    if (!result.success) {
      const fields = result.error.issues.map((issue) => issue.path.join('.')).join(', ');
      throw new Error(`configuration: missing or invalid ${what}: ${fields}`);
    }
    if (raw && typeof raw === 'object') parsed.set(raw, result.data);
    return result.data;
  };
}

const parseSharedSecrets = cachedParser(sharedSecretsSchema, 'secrets');
const parseAdminSecrets = cachedParser(adminSecretsSchema, 'admin secrets (ADMIN_SECRETS_ARN, or ADMIN_PASSWORD_HASH and ADMIN_SESSION_SECRET locally)');

/**
 * The function's configuration, for every invocation: plain settings from
 * env, secrets from Secrets Manager (`SECRETS_ARN`, in AWS; cached for
 * CONFIG_MAX_AGE_SECONDS) or from env (locally). Holds no admin secret.
 */
export async function loadConfig(env: NodeJS.ProcessEnv = process.env): Promise<AppConfig> {
  const secrets = parseSharedSecrets(
    env.SECRETS_ARN
      ? await secretsFromManager(env.SECRETS_ARN)
      : { playbackSigningKeys: env.PLAYBACK_SIGNING_KEYS, internalApiKey: env.INTERNAL_API_KEY, originVerifySecret: env.ORIGIN_VERIFY_SECRET || null },
  );
  if (!env.TABLE_NAME) throw new Error('configuration: TABLE_NAME is required');
  return {
    tableName: env.TABLE_NAME,
    playbackBaseUrl: env.PLAYBACK_BASE_URL || null,
    mediaPort: positiveInteger(env.MEDIA_PORT, 4000, 'MEDIA_PORT'),
    ingestRtmpUrl: env.INGEST_RTMP_URL || null,
    siteOrigin: env.SITE_ORIGIN || null,
    ingestRtmpPort: positiveInteger(env.INGEST_RTMP_PORT, 1935, 'INGEST_RTMP_PORT'),
    segmentSeconds: segmentSeconds(env.INGEST_HLS_SEGMENT),
    signingKeys: parseSigningKeys(secrets.playbackSigningKeys),
    internalApiKey: secrets.internalApiKey,
    originVerifySecret: secrets.originVerifySecret ?? null,
    sessionTimeoutSeconds: positiveInteger(env.SESSION_TIMEOUT_SECONDS, SESSION_TIMEOUT_SECONDS, 'SESSION_TIMEOUT_SECONDS'),
    jobsQueueUrl: env.JOBS_QUEUE_URL || null,
  };
}

/** The background-job worker's configuration: the table and the queue its steps come from (and go to). */
export function loadJobWorkerConfig(env: NodeJS.ProcessEnv = process.env): JobWorkerConfig {
  if (!env.TABLE_NAME || !env.JOBS_QUEUE_URL) throw new Error('configuration: TABLE_NAME and JOBS_QUEUE_URL are required');
  return { tableName: env.TABLE_NAME, jobsQueueUrl: env.JOBS_QUEUE_URL };
}

/**
 * The admin function's secrets, through the same cache and maximum age: from
 * the admin secret (`ADMIN_SECRETS_ARN`) in AWS, from env locally. Only the
 * admin area calls this; no other function's role may read that secret.
 */
export async function loadAdminSecrets(env: NodeJS.ProcessEnv = process.env): Promise<AdminSecrets> {
  return parseAdminSecrets(
    env.ADMIN_SECRETS_ARN
      ? await secretsFromManager(env.ADMIN_SECRETS_ARN)
      : { adminPasswordHash: env.ADMIN_PASSWORD_HASH, adminSessionSecret: env.ADMIN_SESSION_SECRET },
  );
}

/** `1s`, `1.5s`, `500ms` or plain seconds, as the ingest's `-hls-segment` takes it. */
function segmentSeconds(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const match = /^\s*(\d+(?:\.\d+)?)(ms|s)?\s*$/.exec(value);
  const seconds = match ? Number(match[1]) / (match[2] === 'ms' ? 1000 : 1) : NaN;
  if (!(seconds > 0)) throw new Error(`configuration: INGEST_HLS_SEGMENT must be a duration such as 1s, got "${value}"`);
  return seconds;
}

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`configuration: ${name} must be a positive whole number, got "${value}"`);
  return parsed;
}
