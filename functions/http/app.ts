import { DynamoStore } from '../adapters/dynamo-store';
import { dynamoDocumentClient } from '../adapters/aws-clients';
import { loadConfig } from '../adapters/load-config';
import type { AppConfig } from '../domain/config';
import type { Store } from '../domain/store';

/** What every handler works with, built once per process (Lambda cold start). */
export interface App {
  config: AppConfig;
  store: Store;
  now(): Date;
}

let app: Promise<App> | undefined;

export function getApp(): Promise<App> {
  app ??= (async () => {
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
  return app;
}
