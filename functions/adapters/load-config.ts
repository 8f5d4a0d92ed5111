import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import * as z from 'zod';
import { SESSION_TIMEOUT_SECONDS, type AppConfig } from '../domain/config';
import { parseSigningKeys } from '../domain/signing-keys';

const secretsSchema = z.object({
  playbackSigningKeys: z.string().min(1),
  adminPasswordHash: z.string().startsWith('scrypt$'),
  adminSessionSecret: z.string().min(32),
  internalApiKey: z.string().min(16),
  originVerifySecret: z.string().min(16).nullish(),
});
type Secrets = z.infer<typeof secretsSchema>;

/**
 * How long every entry point (the API functions and edge-sync alike) keeps
 * the secrets it read: a new admin password or a signing-key rotation
 * reaches warm instances within this, without a redeploy.
 */
export const CONFIG_MAX_AGE_SECONDS = 300;

let provider: SecretsProvider | undefined;
/** The parsed configuration of the secret value currently cached (Powertools hands back the same object until it expires). */
const parsedSecrets = new WeakMap<object, Secrets>();

async function secretsFromManager(arn: string): Promise<unknown> {
  provider ??= new SecretsProvider();
  return provider.get(arn, { maxAge: CONFIG_MAX_AGE_SECONDS, transform: 'json' });
}


function secretsFromEnv(env: NodeJS.ProcessEnv): unknown {
  return {
    playbackSigningKeys: env.PLAYBACK_SIGNING_KEYS,
    adminPasswordHash: env.ADMIN_PASSWORD_HASH,
    adminSessionSecret: env.ADMIN_SESSION_SECRET,
    internalApiKey: env.INTERNAL_API_KEY,
    originVerifySecret: env.ORIGIN_VERIFY_SECRET || null,
  };
}

/**
 * The function's configuration, for every invocation: plain settings from
 * env, secrets from Secrets Manager (`SECRETS_ARN`, in AWS; cached for
 * CONFIG_MAX_AGE_SECONDS) or from env (locally).
 */
export async function loadConfig(env: NodeJS.ProcessEnv = process.env): Promise<AppConfig> {
  const secrets = parseSecrets(env.SECRETS_ARN ? await secretsFromManager(env.SECRETS_ARN) : secretsFromEnv(env));
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
    adminPasswordHash: secrets.adminPasswordHash,
    adminSessionSecret: secrets.adminSessionSecret,
    internalApiKey: secrets.internalApiKey,
    originVerifySecret: secrets.originVerifySecret ?? null,
    sessionTimeoutSeconds: positiveInteger(env.SESSION_TIMEOUT_SECONDS, SESSION_TIMEOUT_SECONDS, 'SESSION_TIMEOUT_SECONDS'),
  };
}

function parseSecrets(raw: unknown): Secrets {
  const cached = raw && typeof raw === 'object' ? parsedSecrets.get(raw) : undefined;
  if (cached) return cached;
  const parsed = secretsSchema.safeParse(raw);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
    throw new Error(`configuration: missing or invalid secrets: ${fields}`);
  }
  if (raw && typeof raw === 'object') parsedSecrets.set(raw, parsed.data);
  return parsed.data;
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
