import type { AwsClients } from '../adapters/aws-clients';
import { logger } from '../adapters/telemetry';
import type { ApiConfig } from '../config/api-config';
import { checkoutSweep } from '../triggers/checkout-sweep';
import { publicApp } from './api-app';

/**
 * The checkout sweep function (triggers/checkout-sweep.ts) on its schedule: the public area's App, as the
 * checkouts it settles are the public area's (Stripe's key, the orders' writes).
 */
export function compose(config: ApiConfig, clients: Pick<AwsClients, 'dynamo'>): ReturnType<typeof checkoutSweep> {
  logger.setLogLevel(config.logLevel);
  return checkoutSweep(publicApp(config, clients));
}
