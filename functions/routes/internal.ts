import type { ApiEvent, RouteHandler } from '../http/api-types';
import type { App } from '../http/app';
import { requestActor } from '../http/request-actor';
import { json } from '../http/responses';
import { buildRevocationFeed } from '../domain/access';
import { parseInput } from '../domain/inputs';
import { leaseInput } from '../domain/streams';
import { INGEST_ACTOR } from '../domain/audit';
import { acquireLease, handOverLease, releaseLease } from '../domain/streams';
import { recordEncoderReport, recordRefusalReport, recordVideoReport } from '../domain/events';

export const internalRoutes: Record<string, RouteHandler> = {
  'GET /api/revocations': async ({ app, query }) => json(200, await buildRevocationFeed(app, query.since)),
  'POST /api/internal/streams/{eventId}/video': async ({ app, params, body }) =>
    json(200, await recordVideoReport(app.stores.events, params.eventId ?? '', body, app.now())),
  'POST /api/internal/streams/{eventId}/refusals': async ({ app, params, body }) =>
    json(200, await recordRefusalReport(app, params.eventId ?? '', body)),
  'POST /api/internal/streams/{eventId}/encoders': async ({ app, params, body }) => json(200, await recordEncoderReport(app, params.eventId ?? '', body)),
  'POST /api/internal/streams/{eventId}/lease': async (request) => {
    const { holder, action, role, standby } = parseInput(leaseInput, request.body);
    const eventId = request.params.eventId ?? '';
    const ingest = requestActor(request, INGEST_ACTOR);
    if (action === 'acquire') return json(200, (await acquireLease(request.app, ingest, eventId, holder, role, standby)).lease);
    if (action === 'handover') return json(200, await handOverLease(request.app, ingest, eventId, holder));
    return json(200, (await releaseLease(request.app, ingest, eventId, holder)).answer);
  },
};
