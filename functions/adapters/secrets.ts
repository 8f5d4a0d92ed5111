import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import * as z from 'zod';
import type { SecretSource } from '../config/api-config';
import type { AdminSecrets } from '../domain/config';
import { parseSigningKeys } from '../domain/signing-keys';

/** The shared secret: what the viewer, internal, callback, admin and edge-sync functions all need. */
const sharedSecretsSchema = z
  .object({
    playbackSigningKeys: z.string().transform((json, context) => {
      try {
        return parseSigningKeys(json);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
    internalApiKey: z.string().min(16),
    originVerifySecret: z.string().min(16).nullish(),
    /** Derives each event's mark key (watermark/mark-key.ts); absent: watermarking is not set up. */
    watermarkSecret: z.string().min(16).nullish(),
  })
  .transform((secrets) => ({
    signingKeys: secrets.playbackSigningKeys,
    internalApiKey: secrets.internalApiKey,
    originVerifySecret: secrets.originVerifySecret ?? null,
    watermarkSecret: secrets.watermarkSecret ?? null,
  }));
export type SharedSecrets = z.output<typeof sharedSecretsSchema>;

/** The admin secret: read by the admin function alone. */
const adminSecretsSchema = z.object({
  adminPasswordHash: z.string().startsWith('scrypt$'),
  adminSessionSecret: z.string().min(32),
  totpEncryptionKey: z.string().refine((value) => Buffer.from(value, 'base64url').length === 32, 'must be 32 bytes, base64url'),
});

/** The commerce secret: read by the public function alone (the order webhooks, the checkout); each answers 503 without its field. */
const commerceSecretsSchema = z
  .object({
    orderWebhookSecret: z.string().min(16).nullish(),
    /** Stripe's signing secret of the webhook endpoint (`whsec_…`, in Stripe's dashboard). */
    stripeWebhookSecret: z.string().startsWith('whsec_').nullish(),
    /** Stripe's secret (or restricted) API key, for `POST /api/checkout`'s sessions (`sk_live_…`, `rk_live_…`). */
    stripeSecretKey: z.string().regex(/^(sk|rk)_/, 'must be a Stripe secret key (sk_…) or restricted key (rk_…)').nullish(),
  })
  .transform((secrets) => ({
    orderWebhookSecret: secrets.orderWebhookSecret ?? null,
    stripeWebhookSecret: secrets.stripeWebhookSecret ?? null,
    stripeSecretKey: secrets.stripeSecretKey ?? null,
  }));
export type CommerceSecrets = z.output<typeof commerceSecretsSchema>;

/**
 * How long every entry point (the API functions and edge-sync alike) keeps
 * the secrets it read: a new admin password or a signing-key rotation
 * reaches warm instances within this, without a redeploy.
 */
export const CONFIG_MAX_AGE_SECONDS = 300;

let provider: SecretsProvider | undefined;

async function fromSource(source: SecretSource): Promise<unknown> {
  if ('values' in source) return source.values;
  provider ??= new SecretsProvider();
  return provider.get(source.arn, { maxAge: CONFIG_MAX_AGE_SECONDS, transform: 'json' });
}

/**
 * A parser that remembers its result per secret value: Powertools hands back
 * the same object until it expires, so each value is validated once.
 */
function cachedParser<T>(schema: z.ZodType<T, unknown>, what: string): (raw: unknown) => T {
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
const parseAdminSecrets = cachedParser(adminSecretsSchema, 'admin secrets');
const parseCommerceSecrets = cachedParser(commerceSecretsSchema, 'commerce secrets');

/** The shared secret, for every invocation: from Secrets Manager through the cache (at most CONFIG_MAX_AGE_SECONDS old), or as given. */
export async function loadSharedSecrets(source: SecretSource): Promise<SharedSecrets> {
  return parseSharedSecrets(await fromSource(source));
}

/** The admin function's secrets, through the same cache and maximum age. */
export async function loadAdminSecrets(source: SecretSource): Promise<AdminSecrets> {
  return parseAdminSecrets(await fromSource(source));
}

/** The public function's commerce secret, through the same cache and maximum age. */
export async function loadCommerceSecrets(source: SecretSource): Promise<CommerceSecrets> {
  return parseCommerceSecrets(await fromSource(source));
}
