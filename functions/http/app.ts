import { dynamoStores } from '../adapters/dynamo-stores';
import { dynamoDocumentClient } from '../adapters/aws-clients';
import { loadAdminSecrets, loadConfig } from '../adapters/load-config';
import type { AdminSecrets, AppConfig } from '../domain/config';
import type { Stores } from '../domain/stores';

/** What every handler works with. */
export interface App {
  config: AppConfig;
  stores: Stores;
  now(): Date;
}

/** What the admin area's handlers work with: the App and the admin secrets, which no other area loads. */
export interface AdminApp extends App {
  adminSecrets: AdminSecrets;
}

let stores: Stores | undefined;

/**
 * The configuration comes from the one cache every entry point shares
 * (load-config.ts, with its maximum age), so a rotated secret reaches warm
 * instances; the store is built once per process. A failed read (say,
 * Secrets Manager unreachable) fails this request only: the next one tries again.
 */
export async function getApp(): Promise<App> {
  const config = await loadConfig(process.env);
  stores ??= dynamoStores(dynamoDocumentClient(), config.tableName);
  return { config, stores, now: () => new Date() };
}

/** The admin area's App: the admin secrets come through the same cache (ADMIN_SECRETS_ARN, or env locally). */
export async function getAdminApp(): Promise<AdminApp> {
  const [app, adminSecrets] = await Promise.all([getApp(), loadAdminSecrets(process.env)]);
  return { ...app, adminSecrets };
}
