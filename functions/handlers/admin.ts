import { areaHandler } from '../http/area-handler';
import type { ApiRequest } from '../http/api-types';
import { auditAccount } from '../http/account-audit';
import { clearedCookie } from '../http/admin-cookie';
import { cookie, requestOrigin } from '../http/request-info';
import { json } from '../http/responses';
import { mediaCache } from '../http/media-cache';
import { ADMIN_COOKIE, readAdminSession } from '../domain/admin-session';
import { bulkRevoke, exportCodesCsv, generateCodes, listAllCodes, listEventCodes, setCodeRevoked } from '../domain/code-admin';
import {
  createEvent,
  dashboard,
  eventDetails,
  orNotFound,
  requireEvent,
  rotateIngestKey,
  setEventFlag,
  updateEvent,
} from '../domain/event-admin';
import { HttpError } from '../domain/http-error';
import { allows } from '../domain/roles';
import { adminEventView } from '../domain/views';
import { accountRoutes } from './admin-accounts';

/**
 * The OBS "Server": `INGEST_RTMP_URL`, else the host the console was opened with on `INGEST_RTMP_PORT`, so a
 * streamer on another machine gets an address that reaches this one (not 127.0.0.1).
 */
function ingestServer({ app, event }: ApiRequest): string {
  return app.config.ingestRtmpUrl ?? `rtmp://${requestOrigin(event).hostname}:${app.config.ingestRtmpPort}/live`;
}

const id = (request: ApiRequest) => request.params.id ?? '';

export const handler = areaHandler('admin', {
  ...accountRoutes,
  'POST /api/admin/logout': async ({ app, event }) => {
    const token = cookie(event, ADMIN_COOKIE);
    const session = token ? await readAdminSession(token, app.config.adminSessionSecret, app.now()) : null;
    // The cookie is signed, not stored; logout revokes its id until it would have expired anyway.
    if (session) {
      await app.store.revokeAdminSession(session.id, session.expiresAt.toISOString());
      await auditAccount(app, event, { actor: session.username, action: 'sign-out' });
    }
    return json(200, { success: true }, {}, [clearedCookie(event)]);
  },
  'GET /api/admin/dashboard': async ({ app }) => json(200, await dashboard(app)),

  'GET /api/admin/events': async ({ app }) => {
    const events = await app.store.listEvents();
    return json(200, { events: events.map(adminEventView) });
  },
  'POST /api/admin/events': async ({ app, body }) => json(201, await createEvent(app, body)),
  'GET /api/admin/events/{id}': async (request) => {
    const details = await eventDetails(request.app, await requireEvent(request.app, id(request)), ingestServer(request));
    // The stream key lets anyone publish to the event: only roles that run the stream see it.
    return json(200, allows(request.account!.role, 'stream:manage') ? details : { ...details, ingest: null });
  },
  'PUT /api/admin/events/{id}': async (request) => json(200, await updateEvent(request.app, id(request), request.body)),
  'DELETE /api/admin/events/{id}': async (request) => {
    await orNotFound(request.app.store.deleteEvent(id(request), request.app.now().toISOString()));
    return json(200, { deleted: true });
  },
  'PATCH /api/admin/events/{id}/activate': async (request) => json(200, await setEventFlag(request.app, id(request), 'active', true)),
  'PATCH /api/admin/events/{id}/deactivate': async (request) => json(200, await setEventFlag(request.app, id(request), 'active', false)),
  'PATCH /api/admin/events/{id}/archive': async (request) => json(200, await setEventFlag(request.app, id(request), 'archived', true)),
  'PATCH /api/admin/events/{id}/unarchive': async (request) => json(200, await setEventFlag(request.app, id(request), 'archived', false)),
  'POST /api/admin/events/{id}/ingest-key': async (request) => json(200, await rotateIngestKey(request.app, id(request), ingestServer(request))),
  'DELETE /api/admin/events/{id}/cache': async (request) => {
    await requireEvent(request.app, id(request));
    const cache = mediaCache();
    if (!cache) throw new HttpError(503, 'Media cache clearing is not configured');
    await cache.clear(id(request));
    return json(200, { cleared: true });
  },

  'GET /api/admin/events/{id}/tokens': async (request) => json(200, await listEventCodes(request.app, id(request), request.query)),
  'POST /api/admin/events/{id}/tokens': async (request) => json(201, await generateCodes(request.app, id(request), request.body)),
  'GET /api/admin/events/{id}/tokens/export': async (request) => ({
    statusCode: 200,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${id(request)}-codes.csv"`,
      'cache-control': 'no-store',
    },
    body: await exportCodesCsv(request.app, id(request)),
  }),
  'GET /api/admin/tokens': async ({ app, query }) => json(200, await listAllCodes(app, query)),
  'POST /api/admin/tokens/bulk-revoke': async ({ app, body }) => json(200, await bulkRevoke(app, body)),
  'PATCH /api/admin/tokens/{id}/revoke': async (request) => json(200, await setCodeRevoked(request.app, id(request), true)),
  'PATCH /api/admin/tokens/{id}/unrevoke': async (request) => json(200, await setCodeRevoked(request.app, id(request), false)),
});
