import { logger } from '../adapters/telemetry';
import type { ApiConfig } from '../config/api-config';
import { areaHandler, type LambdaHandler } from '../http/area-handler';
import { adminRoutes } from '../routes/admin';
import { adminApp, type ApiClients } from './api-app';

/** The admin function: the console's routes (routes/admin.ts, routes/admin-accounts.ts). */
export function compose(config: ApiConfig, clients: ApiClients): LambdaHandler {
  logger.setLogLevel(config.logLevel);
  return areaHandler('admin', adminRoutes, adminApp(config, clients));
}
