import type { RouteHandler } from '../http/api-types';
import { bearerToken, clientIp, header, viewerCountry } from '../http/request-info';
import { playbackBaseUrl } from '../http/public-urls';
import { json } from '../http/responses';
import { heartbeat, longLivedPlaybackUrl, refreshPlayback, releasePlayback, validateCode } from '../domain/access';
import { NotFound } from '../domain/errors';
import { eventSaleView, eventStatusView } from '../domain/events';
import { orderWebhookRoutes, type PublicApp } from './order-webhook';
import { checkoutRoutes } from './checkout';

/**
 * How long shared caches may keep an event's status and its sale: the player polls the status every 5 s
 * near the start, and a sale's page opens for a whole audience at once.
 */
export const STATUS_SHARED_CACHE_SECONDS = 5;
const sharedCache = { 'cache-control': `public, max-age=0, s-maxage=${STATUS_SHARED_CACHE_SECONDS}` };

export const publicRoutes: Record<string, RouteHandler<PublicApp>> = {
  ...orderWebhookRoutes,
  ...checkoutRoutes,
  'POST /api/tokens/validate': async (request) => {
    const body = request.body as { code?: unknown } | undefined;
    return json(
      200,
      await validateCode(request.app, {
        code: body?.code,
        ip: clientIp(request.event, request.app.config.originVerifySecret),
        userAgent: header(request.event, 'user-agent'),
        playbackBaseUrl: playbackBaseUrl(request),
        country: viewerCountry(request.event, request.app.config.originVerifySecret),
      }),
    );
  },
  'POST /api/playback/refresh': async (request) =>
    json(200, await refreshPlayback(request.app, bearerToken(request.event), playbackBaseUrl(request), viewerCountry(request.event, request.app.config.originVerifySecret))),
  'POST /api/playback/url': async (request) =>
    json(200, await longLivedPlaybackUrl(request.app, bearerToken(request.event), playbackBaseUrl(request), viewerCountry(request.event, request.app.config.originVerifySecret))),
  'POST /api/playback/heartbeat': async (request) => json(200, await heartbeat(request.app, bearerToken(request.event), request.body)),
  'POST /api/playback/release': async (request) => json(200, await releasePlayback(request.app, bearerToken(request.event))),
  'GET /api/events/{id}/status': async ({ app, params }) => {
    // A read only: an ingest that died mid-show is finalized by the recording sweep (handlers/recording-sweep.ts).
    const event = await app.stores.events.getEvent(params.id ?? '');
    if (!event) throw new NotFound('event');
    // Every waiting page polls this: CloudFront (the `/api/*` behavior caches this route and the sale only)
    // answers them for a few seconds per edge, so a million pages cost the origin a few requests a second.
    return json(200, eventStatusView(event, app.now()), sharedCache);
  },
  // The box office's title and price: as public as the status, and cached alike (a sold-out flag a few
  // seconds late only costs a buyer the checkout's own "sold out").
  'GET /api/events/{id}/sale': async ({ app, params }) => {
    const event = await app.stores.events.getEvent(params.id ?? '');
    if (!event) throw new NotFound('event');
    return json(200, eventSaleView(event, app.now()), sharedCache);
  },
};
