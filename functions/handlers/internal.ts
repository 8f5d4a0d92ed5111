import type { ApiEvent, RouteHandler } from '../http/api-types';
import type { App } from '../http/app';
import { awsClients } from '../adapters/aws-clients';
import { readApiConfig } from '../config/api-config';
import { compose } from '../compose/internal';
import { handlerOf } from '../compose/handler-of';
import { auditRequest } from '../http/audit-request';
import { json } from '../http/responses';
import { buildRevocationFeed } from '../domain/access';
import { leaseInput, parseInput } from '../domain/inputs';
import { INGEST_ACTOR, type AuditAction } from '../domain/audit';
import type { EventRecord } from '../domain/records';
import { acquireLease, releaseLease } from '../domain/streams';
import { recordRefusalReport, recordVideoReport } from '../domain/events';

/** What the ingest reported about an event's show, in the audit log by the ingest. */
function auditShow(app: App, request: ApiEvent, action: AuditAction, event: EventRecord, holder: string) {
  return auditRequest(app, request, { action, actor: INGEST_ACTOR, eventId: event.id, eventTitle: event.title, target: event.title, details: { ingest: holder } });
}

export const internalRoutes: Record<string, RouteHandler> = {
  'GET /api/revocations': async ({ app, query }) => json(200, await buildRevocationFeed(app, query.since)),
  'POST /api/internal/streams/{eventId}/video': async ({ app, params, body }) =>
    json(200, await recordVideoReport(app.stores.events, params.eventId ?? '', body, app.now())),
  'POST /api/internal/streams/{eventId}/refusals': async ({ app, params, body }) =>
    json(200, await recordRefusalReport(app, params.eventId ?? '', body)),
  // Renewals (every few seconds) are not worth an entry; a show starting, ending or taken over from a dead ingest is.
  'POST /api/internal/streams/{eventId}/lease': async ({ app, event, params, body }) => {
    const { holder, action } = parseInput(leaseInput, body);
    const eventId = params.eventId ?? '';
    if (action === 'acquire') {
      const { lease, change, event: show } = await acquireLease(app, eventId, holder);
      if (change !== 'renewed') await auditShow(app, event, change === 'started' ? 'stream.start' : 'stream.takeover', show, holder);
      return json(200, lease);
    }
    const { answer, ended } = await releaseLease(app, eventId, holder);
    if (ended) await auditShow(app, event, 'stream.stop', ended, holder);
    return json(200, answer);
  },
};

/** Lambda entry point: API Gateway's requests (functions/compose/internal.ts). */
export const handler = handlerOf(() => compose(readApiConfig(), awsClients()));
