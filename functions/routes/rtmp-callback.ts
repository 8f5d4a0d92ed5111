import type { RouteHandler } from '../http/api-types';
import { json } from '../http/responses';
import { authorizeRtmp } from '../domain/streams';

export const callbackRoutes: Record<string, RouteHandler> = {
  'POST /api/internal/rtmp-auth': async ({ app, body }) => json(200, await authorizeRtmp(app, body)),
};
