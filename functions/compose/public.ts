import { logger } from '../adapters/telemetry';
import type { ApiConfig } from '../config/api-config';
import { areaHandler, type LambdaHandler } from '../http/area-handler';
import { publicRoutes } from '../routes/public';
import { publicApp, type ApiClients } from './api-app';

/** The public function: viewers' routes, the order webhooks and the checkout (routes/public.ts). */
export function compose(config: ApiConfig, clients: Pick<ApiClients, 'dynamo'>): LambdaHandler {
  logger.setLogLevel(config.logLevel);
  return areaHandler('public', publicRoutes, publicApp(config, clients));
}
