import { areaHandler } from '../http/area-handler';
import { json } from '../http/responses';
import { buildRevocationFeed } from '../domain/revocation-feed-builder';
import { orNotFound } from '../domain/event-admin';
import { leaseInput, liveInput, parseInput } from '../domain/inputs';
import { acquireLease, releaseLease } from '../domain/stream-lease';
import { recordRefusalReport, recordVideoReport } from '../domain/stream-reports';

export const handler = areaHandler('internal', {
  'GET /api/revocations': async ({ app, query }) => json(200, await buildRevocationFeed(app, query.since)),
  'POST /api/internal/streams/{eventId}/live': async ({ app, params, body }) => {
    const { live } = parseInput(liveInput, body);
    const event = await orNotFound(app.store.setEventLive(params.eventId ?? '', live, app.now().toISOString()));
    return json(200, { eventId: event.id, live: event.liveSince !== null });
  },
  'POST /api/internal/streams/{eventId}/video': async ({ app, params, body }) =>
    json(200, await orNotFound(recordVideoReport(app.store, params.eventId ?? '', body, app.now()))),
  'POST /api/internal/streams/{eventId}/refusals': async ({ app, params, body }) =>
    json(200, await orNotFound(recordRefusalReport(app.store, params.eventId ?? '', body, app.now()))),
  'POST /api/internal/streams/{eventId}/lease': async ({ app, params, body }) => {
    const { holder, action } = parseInput(leaseInput, body);
    const eventId = params.eventId ?? '';
    return json(200, action === 'acquire' ? await acquireLease(app, eventId, holder) : await releaseLease(app, eventId, holder));
  },
});
