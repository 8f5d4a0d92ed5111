import { dynamoDocumentClient, type AwsConnection } from '../adapters/aws-clients';
import { dynamoStores } from '../adapters/dynamo-stores';
import { loadSharedSecrets } from '../adapters/secrets';
import { droppedReportsTelemetry, logger } from '../adapters/telemetry';
import { readApiConfig, type ApiConfig } from '../config/api-config';
import type { AdminSecrets, AppConfig } from '../domain/config';
import type { ExportFiles } from '../domain/jobs';
import type { JobQueue } from '../domain/jobs';
import type { MediaCache } from '../domain/streams';
import type { AdminStores, Stores } from '../compose/stores';
import type { DroppedReports } from '../domain/access';

/** What every handler works with. */
export interface App {
  config: AppConfig;
  stores: Stores;
  now(): Date;
  droppedReports?: DroppedReports;
}

/**
 * What the admin area's handlers work with: also the staff accounts and the admin secrets, which no
 * other area loads (nor may reach in AWS), the media cache and the jobs queue.
 */
export interface AdminApp extends App {
  stores: AdminStores;
  adminSecrets: AdminSecrets;
  /** Null where clearing is not configured. */
  mediaCache: MediaCache | null;
  /** Where background jobs' steps go; null where no jobs queue is configured. */
  jobQueue: JobQueue | null;
  /** Where export jobs' files are (and their download links signed); null where no export bucket is configured. */
  exportFiles: ExportFiles | null;
}

/**
 * The API's dependencies, given explicitly: its configuration (read once, by the config module
 * in Lambda or by the local wiring) and where its SDK clients connect.
 */
export interface ApiWiring {
  config: ApiConfig;
  aws: AwsConnection;
}

/** An area's App, for each request. */
export type AppSource<A extends App = App> = () => Promise<A>;

/**
 * The App of every area on `wiring`: the stores are built once; each request takes the shared
 * secrets from the one cache every entry point shares (secrets.ts, with its maximum age), so a
 * rotated secret reaches warm instances. A failed read (say, Secrets Manager unreachable) fails
 * that request only: the next one tries again.
 */
export function appSource(wiring: ApiWiring): AppSource {
  const { config } = wiring;
  const stores = dynamoStores(dynamoDocumentClient(wiring.aws), config.tableName);
  const droppedReports = droppedReportsTelemetry();
  return async () => ({
    config: {
      playbackBaseUrl: config.playbackBaseUrl,
      mediaPort: config.mediaPort,
      ingestRtmpUrl: config.ingestRtmpUrl,
      ingestRtmpPort: config.ingestRtmpPort,
      segmentSeconds: config.segmentSeconds,
      siteOrigin: config.siteOrigin,
      sessionTimeoutSeconds: config.sessionTimeoutSeconds,
      ...(await loadSharedSecrets(config.secrets)),
    },
    stores,
    now: () => new Date(),
    droppedReports,
  });
}

/**
 * A Lambda entry point's App: the wiring comes from the function's environment, read by the
 * config module at the first request and kept (a configuration that fails to read fails that
 * request, and is read again at the next).
 */
export function fromEnvironment<A extends App>(build: (wiring: ApiWiring) => AppSource<A>): AppSource<A> {
  let source: AppSource<A> | undefined;
  return () => {
    if (!source) {
      const config = readApiConfig();
      logger.setLogLevel(config.logLevel);
      source = build({ config, aws: {} });
    }
    return source();
  };
}
