import { logLevel, type LogLevel, type SecretSource } from './api-config';
import { parseEnvironment, variable, type Environment } from './env';

/** The background-job worker's configuration, read once per process. It holds no secret but where to read one (or, locally, its value). */
export interface JobWorkerConfig {
  tableName: string;
  /** The queue its steps come from, and where each sends the next. */
  jobsQueueUrl: string;
  /** The bucket export jobs write to (under `exports/`); null: exports are not set up. */
  exportBucket: string | null;
  logLevel: LogLevel;
  /** The commerce secret, for its Stripe key (a cancelled show's refunds): `COMMERCE_SECRETS_ARN`, locally `STRIPE_SECRET_KEY`; null: none. */
  commerceSecrets: SecretSource | null;
  /** Where the Stripe SDK sends its calls instead of api.stripe.com (`STRIPE_API_URL`: a local stand-in); null: Stripe's. */
  stripeApiUrl: string | null;
}

/** Reads the worker's environment (infra/lib/constructs/jobs.ts); throws one error naming each variable missing or malformed. */
export function readJobWorkerConfig(env: Environment = process.env): JobWorkerConfig {
  const found = parseEnvironment(
    {
      TABLE_NAME: variable.required(),
      JOBS_QUEUE_URL: variable.required(),
      EXPORT_BUCKET: variable.optional(),
      LOG_LEVEL: logLevel,
      COMMERCE_SECRETS_ARN: variable.optional(),
      STRIPE_SECRET_KEY: variable.optional(),
      STRIPE_API_URL: variable.optional(),
    },
    { ...env, LOG_LEVEL: env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL },
  );
  const commerceSecrets = found.COMMERCE_SECRETS_ARN ? { arn: found.COMMERCE_SECRETS_ARN } : found.STRIPE_SECRET_KEY ? { values: { stripeSecretKey: found.STRIPE_SECRET_KEY } } : null;
  return { tableName: found.TABLE_NAME, jobsQueueUrl: found.JOBS_QUEUE_URL, exportBucket: found.EXPORT_BUCKET ?? null, logLevel: found.LOG_LEVEL, commerceSecrets, stripeApiUrl: found.STRIPE_API_URL ?? null };
}
