import type { SecretSource } from './api-config';
import { parseEnvironment, variable, type Environment } from './env';

/** The edge-sync function's configuration, read once per process. */
export interface EdgeSyncConfig {
  tableName: string;
  /** The CloudFront KeyValueStore the edge validator reads. */
  kvsArn: string;
  /** The shared secret, for the signing keys the edge verifies with. */
  secrets: SecretSource;
}

/** Reads edge-sync's environment (infra/lib/constructs/edge-sync.ts); throws one error naming each variable missing. */
export function readEdgeSyncConfig(env: Environment = process.env): EdgeSyncConfig {
  const found = parseEnvironment({ TABLE_NAME: variable.required(), KVS_ARN: variable.required(), SECRETS_ARN: variable.required() }, env);
  return { tableName: found.TABLE_NAME, kvsArn: found.KVS_ARN, secrets: { arn: found.SECRETS_ARN } };
}
