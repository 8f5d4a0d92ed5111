import { DynamoStore } from '../adapters/dynamo-store';
import { dynamoDocumentClient } from '../adapters/aws-clients';
import { loadConfig } from '../adapters/load-config';
import { httpMediaCache } from '../adapters/media-cache-http';
import type { AppConfig } from '../domain/config';
import type { MediaCache } from '../domain/media-cache';
import type { Store } from '../domain/store';

/** What every handler works with, built once per process (Lambda cold start). */
export interface App {
  config: AppConfig;
  store: Store;
  mediaCache: MediaCache | null;
  now(): Date;
}

async function buildMediaCache(env: NodeJS.ProcessEnv): Promise<MediaCache | null> {
  if (env.CLOUDFRONT_DISTRIBUTION_ID) {
    const { cloudFrontMediaCache } = await import('../adapters/cdn-invalidation');
    return cloudFrontMediaCache(env.CLOUDFRONT_DISTRIBUTION_ID);
  }
  if (env.MEDIA_ADMIN_URL) return httpMediaCache(env.MEDIA_ADMIN_URL);
  return null;
}

let app: Promise<App> | undefined;

export function getApp(): Promise<App> {
  app ??= (async () => {
    const config = await loadConfig(process.env);
    return {
      config,
      store: new DynamoStore(dynamoDocumentClient(), config.tableName),
      mediaCache: await buildMediaCache(process.env),
      now: () => new Date(),
    };
  })().catch((error) => {
    // A failed cold start (say, Secrets Manager unreachable) must not poison the next invocation.
    app = undefined;
    throw error;
  });
  return app;
}
