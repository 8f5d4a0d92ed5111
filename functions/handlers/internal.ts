import type { RouteHandler } from '../http/api-types';
import { appSource, fromEnvironment } from '../http/app';
import { areaHandler } from '../http/area-handler';
import { json } from '../http/responses';
import { buildRevocationFeed } from '../domain/revocation-feed-builder';
import { leaseInput, parseInput } from '../domain/inputs';
import { acquireLease, releaseLease } from '../domain/stream-lease';
import { recordRefusalReport, recordVideoReport } from '../domain/stream-reports';

export const internalRoutes: Record<string, RouteHandler> = {
  'GET /api/revocations': async ({ app, query }) => json(200, await buildRevocationFeed(app, query.since)),
  'POST /api/internal/streams/{eventId}/video': async ({ app, params, body }) =>
    json(200, await recordVideoReport(app.stores.events, params.eventId ?? '', body, app.now())),
  'POST /api/internal/streams/{eventId}/refusals': async ({ app, params, body }) =>
    json(200, await recordRefusalReport(app.stores.events, params.eventId ?? '', body, app.now())),
  'POST /api/internal/streams/{eventId}/lease': async ({ app, params, body }) => {
    const { holder, action } = parseInput(leaseInput, body);
    const eventId = params.eventId ?? '';
    return json(200, action === 'acquire' ? await acquireLease(app, eventId, holder) : await releaseLease(app, eventId, holder));
  },
};

export const handler = areaHandler('internal', internalRoutes, fromEnvironment(appSource));
