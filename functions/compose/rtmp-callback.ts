import { logger } from '../adapters/telemetry';
import type { ApiConfig } from '../config/api-config';
import { areaHandler, type LambdaHandler } from '../http/area-handler';
import { callbackRoutes } from '../routes/rtmp-callback';
import { appSource, type ApiClients } from './api-app';

/** The RTMP callback function: the ingest's publish and play checks (routes/rtmp-callback.ts). */
export function compose(config: ApiConfig, clients: Pick<ApiClients, 'dynamo'>): LambdaHandler {
  logger.setLogLevel(config.logLevel);
  return areaHandler('rtmp-callback', callbackRoutes, appSource(config, clients));
}
