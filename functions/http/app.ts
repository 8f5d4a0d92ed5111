import { DynamoStore } from '../adapters/dynamo-store';
import { dynamoDocumentClient } from '../adapters/aws-clients';
import { loadConfig } from '../adapters/load-config';
import type { AppConfig } from '../domain/config';
import type { Store } from '../domain/store';

/** What every handler works with, built on the first request of a process (Lambda cold start). */
export interface App {
  config: AppConfig;
  store: Store;
  now(): Date;
}

/**
 * Secrets are read again after this long, so a new admin password or a
 * signing-key rotation reaches warm Lambda instances without a redeploy.
 */
const CONFIG_MAX_AGE_MS = 5 * 60 * 1000;

let app: Promise<App> | undefined;
let loadedAt = 0;

export function getApp(): Promise<App> {
  if (app && Date.now() - loadedAt > CONFIG_MAX_AGE_MS) app = undefined;
  if (!app) {
    loadedAt = Date.now();
    app = (async () => {
      const config = await loadConfig(process.env);
      return {
        config,
        store: new DynamoStore(dynamoDocumentClient(), config.tableName),
        now: () => new Date(),
      };
    })().catch((error) => {
      // A failed cold start (say, Secrets Manager unreachable) must not poison the next invocation.
      app = undefined;
      throw error;
    });
  }
  return app;
}
