import type { RouteHandler } from '../http/api-types';
import { awsClients } from '../adapters/aws-clients';
import { readApiConfig } from '../config/api-config';
import { compose } from '../compose/rtmp-callback';
import { handlerOf } from '../compose/handler-of';
import { json } from '../http/responses';
import { authorizeRtmp } from '../domain/streams';

export const callbackRoutes: Record<string, RouteHandler> = {
  'POST /api/internal/rtmp-auth': async ({ app, body }) => json(200, await authorizeRtmp(app, body)),
};

/** Lambda entry point: API Gateway's requests (functions/compose/rtmp-callback.ts). */
export const handler = handlerOf(() => compose(readApiConfig(), awsClients()));
