import type { SecretSource } from './api-config';
import { parseEnvironment, variable, type Environment } from './env';

/**
 * What runs edge-sync, in AWS (infra/lib/constructs/edge-sync.ts: the table stream's event source
 * mapping and a schedule) and in `npm start` (local/edge-sync-triggers.ts) alike.
 */
export const EDGE_SYNC_TRIGGERS = {
  stream: {
    /** Only codes and events change what the edge knows; counters and admin sessions would wake it for nothing. */
    keyPrefixes: ['CODE#', 'EVENT#'],
    batchSize: 100,
    /** Then the batch is dropped: the next reconciliation writes its effect anyway. */
    retryAttempts: 3,
  },
  /** Minutes between full reconciliations, unless the deployment sets `edgeReconcileMinutes`. */
  reconcileMinutes: 5,
} as const;

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
