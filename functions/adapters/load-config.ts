import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
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

async function secretsFromManager(arn: string): Promise<unknown> {
  const client = new SecretsManagerClient({});
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
  client.destroy();
  return JSON.parse(SecretString ?? '{}');
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
 * Reads the function's configuration once per process: plain settings from
 * env, secrets from Secrets Manager (`SECRETS_ARN`, in AWS) or from env (locally).
 */
export async function loadConfig(env: NodeJS.ProcessEnv = process.env): Promise<AppConfig> {
  const parsed = secretsSchema.safeParse(env.SECRETS_ARN ? await secretsFromManager(env.SECRETS_ARN) : secretsFromEnv(env));
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
    throw new Error(`configuration: missing or invalid secrets: ${fields}`);
  }
  const secrets: Secrets = parsed.data;
  if (!env.TABLE_NAME) throw new Error('configuration: TABLE_NAME is required');
  return {
    tableName: env.TABLE_NAME,
    playbackBaseUrl: env.PLAYBACK_BASE_URL || null,
    mediaPort: positiveInteger(env.MEDIA_PORT, 4000, 'MEDIA_PORT'),
    ingestRtmpUrl: env.INGEST_RTMP_URL || null,
    signingKeys: parseSigningKeys(secrets.playbackSigningKeys),
    adminPasswordHash: secrets.adminPasswordHash,
    adminSessionSecret: secrets.adminSessionSecret,
    internalApiKey: secrets.internalApiKey,
    originVerifySecret: secrets.originVerifySecret ?? null,
    sessionTimeoutSeconds: positiveInteger(env.SESSION_TIMEOUT_SECONDS, SESSION_TIMEOUT_SECONDS, 'SESSION_TIMEOUT_SECONDS'),
  };
}

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`configuration: ${name} must be a positive whole number, got "${value}"`);
  return parsed;
}
