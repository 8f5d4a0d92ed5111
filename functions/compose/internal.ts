import { logger } from '../adapters/telemetry';
import type { ApiConfig } from '../config/api-config';
import { areaHandler, type LambdaHandler } from '../http/area-handler';
import { internalRoutes } from '../routes/internal';
import { appSource, type ApiClients } from './api-app';

/** The internal function: the ingest's reports, its publish lease and the revocation feed (routes/internal.ts). */
export function compose(config: ApiConfig, clients: Pick<ApiClients, 'dynamo'>): LambdaHandler {
  logger.setLogLevel(config.logLevel);
  return areaHandler('internal', internalRoutes, appSource(config, clients));
}
