import type { ApiRequest, RouteHandler } from '../http/api-types';
import type { AdminApp } from '../http/app';
import { clearedCookie } from '../http/admin-cookie';
import { cookie, requestOrigin } from '../http/request-info';
import { requestActor, staffActor } from '../http/request-actor';
import { json } from '../http/responses';
import { HttpError } from '../http/http-error';
import { playbackBaseUrl, viewerUrl } from '../http/public-urls';
import { listAudit } from '../domain/audit';
import { audienceReport, ticketWatching, troubleCsv, troubleList, watermarkFileUrls, watermarkInfo } from '../domain/audience';
import { issuePreview } from '../domain/access';
import { endAllSessions, endSession, listSessions } from '../domain/access';
import { ADMIN_COOKIE, readAdminSession, signOut } from '../domain/staff';
import { bulkRevoke, exportCodesCsv, generateCodes, listAllCodes, listEventCodes, setCodeRevoked } from '../domain/codes';
import { cancelEvent, startCodeExport, startCodeGeneration, startCodeRevocation, startCopyTrace } from '../domain/jobs';
import { attachment } from '../domain/codes';
import { deleteEventInBackground, deleteEventNow, deletesInline } from '../domain/jobs';
import { setEventFlag } from '../domain/codes';
import { jobAnswer, jobPermission, jobView, listEventJobs, requireJob, retryJob, type JobStartDeps } from '../domain/jobs';
import {
  createEvent,
  dashboard,
  eventDetails,
  requireEvent,
  rotateIngestKey,
  requestOnAir,
  updateEvent,
} from '../domain/events';
import type { JobRecord } from '../domain/jobs';
import type { Actor } from '../domain/audit';
import { allows } from '../domain/staff';
import { LIST_LIMITS } from '../domain/config';
import { adminEventListView, refuseDeletionWithPaidOrders, saleLink } from '../domain/events';
import { listEventOrders, orderView, refundOrderFromConsole, resendOrderEmail, type PaymentProvider } from '../domain/commerce';
import { clearMediaCache } from '../domain/streams';
import { accountRoutes } from './admin-accounts';

/**
 * The OBS "Server": `INGEST_RTMP_URL`, else the host the console was opened with on `INGEST_RTMP_PORT`, so a
 * streamer on another machine gets an address that reaches this one (not 127.0.0.1).
 */
function ingestServer({ app, event }: ApiRequest): string {
  return app.config.ingestRtmpUrl ?? `rtmp://${requestOrigin(event).hostname}:${app.config.ingestRtmpPort}/live`;
}

/** SRT's `srt://host:port`: `INGEST_SRT_URL`, else the console's host on `INGEST_SRT_PORT` (as the RTMP server). */
function srtServer({ app, event }: ApiRequest): string {
  return app.config.ingestSrtUrl ?? `srt://${requestOrigin(event).hostname}:${app.config.ingestSrtPort ?? 9000}`;
}

const id = (request: ApiRequest) => request.params.id ?? '';

/** What starting a job needs: 503 where no jobs queue is configured. */
function jobDeps({ app }: ApiRequest<AdminApp>): JobStartDeps {
  if (!app.jobQueue) throw new HttpError(503, 'Background jobs are not configured');
  return { stores: app.stores, queue: app.jobQueue, now: app.now, exportFiles: app.exportFiles ?? undefined };
}

/**
 * Starts a job in the signed-in account's name (the use case records its start, the worker its end, in that name).
 * The 202 answer is `{ ...answer, job }`.
 */
async function startedJob(request: ApiRequest<AdminApp>, start: (actor: Actor) => Promise<JobRecord>, answer: Record<string, unknown> = {}) {
  const job = await start(staffActor(request));
  return json(202, { ...answer, job: jobView(job) });
}

/** Stripe for a refund: 503 where no Stripe key is configured (a shop's order is refused before it is asked for). */
async function stripeOf({ app }: ApiRequest<AdminApp>): Promise<PaymentProvider> {
  const payments = await app.payments();
  if (!payments) throw new HttpError(503, 'Ticket sales are not configured');
  return payments;
}

/** The job the route names, with the permission that started it (as the guard refuses a route: 403). */
async function permittedJob(request: ApiRequest<AdminApp>): Promise<JobRecord> {
  const job = await requireJob(request.app, request.params.jobId ?? '');
  if (!allows(request.account!.role, jobPermission(job))) throw new HttpError(403, 'Forbidden');
  return job;
}

/** The reader of an audit log: codes in it are shown masked unless the reader's role may read codes. */
const auditReader = (request: ApiRequest) => ({ readsCodes: allows(request.account!.role, 'codes:read') });

const TRANSITIONS = {
  activate: ['active', true],
  deactivate: ['active', false],
  archive: ['archived', true],
  unarchive: ['archived', false],
} as const;

async function transition(request: ApiRequest, name: keyof typeof TRANSITIONS) {
  const [flag, value] = TRANSITIONS[name];
  return json(200, await setEventFlag(request.app, staffActor(request), id(request), flag, value));
}

export const adminRoutes: Record<string, RouteHandler<AdminApp>> = {
  ...accountRoutes,
  'POST /api/admin/logout': async ({ app, event }) => {
    const token = cookie(event, ADMIN_COOKIE);
    const session = token ? await readAdminSession(token, app.adminSecrets.adminSessionSecret, app.now()) : null;
    if (session) await signOut(app, requestActor({ app, event }, session.username), session);
    return json(200, { success: true }, {}, [clearedCookie(event)]);
  },
  'GET /api/admin/dashboard': async ({ app }) => json(200, await dashboard(app)),

  'GET /api/admin/events': async ({ app }) => {
    const events = await app.stores.events.listEvents(LIST_LIMITS.events);
    const now = app.now();
    return json(200, { events: events.map((event) => adminEventListView(event, now)) });
  },
  'POST /api/admin/events': async (request) => {
    return json(201, await createEvent(request.app, staffActor(request), request.body));
  },
  'GET /api/admin/events/{id}': async (request) => {
    const event = await requireEvent(request.app, id(request));
    const details = { ...(await eventDetails(request.app, event, ingestServer(request), srtServer(request))), viewerUrl: saleLink(viewerUrl(request), event.id) };
    // The stream key lets anyone publish to the event: only roles that run the stream see it.
    return json(200, allows(request.account!.role, 'stream:manage') ? details : { ...details, ingest: null });
  },
  'PUT /api/admin/events/{id}': async (request) => {
    return json(200, await updateEvent(request.app, staffActor(request), id(request), request.body));
  },
  'DELETE /api/admin/events/{id}': async (request) => {
    const event = refuseDeletionWithPaidOrders(await requireEvent(request.app, id(request)));
    if (deletesInline(event)) {
      await deleteEventNow(request.app, staffActor(request), event);
      return json(200, { deleted: true });
    }
    const deps = jobDeps(request);
    return startedJob(request, (actor) => deleteEventInBackground(deps, actor, event), { deleted: true });
  },
  'POST /api/admin/events/{id}/cancel': (request) =>
    startedJob(request, (actor) => cancelEvent({ ...jobDeps(request), config: request.app.config }, actor, id(request), request.body)),
  'PATCH /api/admin/events/{id}/activate': (request) => transition(request, 'activate'),
  'PATCH /api/admin/events/{id}/deactivate': (request) => transition(request, 'deactivate'),
  'PATCH /api/admin/events/{id}/archive': (request) => transition(request, 'archive'),
  'PATCH /api/admin/events/{id}/unarchive': (request) => transition(request, 'unarchive'),
  'POST /api/admin/events/{id}/ingest-key': async (request) => {
    return json(200, await rotateIngestKey(request.app, staffActor(request), id(request), ingestServer(request), srtServer(request)));
  },
  'POST /api/admin/events/{id}/on-air': async (request) => json(200, await requestOnAir(request.app, staffActor(request), id(request), request.body)),
  'DELETE /api/admin/events/{id}/cache': async (request) => {
    const event = await requireEvent(request.app, id(request));
    if (!request.app.mediaCache) throw new HttpError(503, 'Media cache clearing is not configured');
    await clearMediaCache({ ...request.app, mediaCache: request.app.mediaCache }, staffActor(request), event);
    return json(200, { cleared: true });
  },
  'POST /api/admin/events/{id}/preview': async (request) =>
    json(200, await issuePreview(request.app, id(request), playbackBaseUrl(request))),
  'GET /api/admin/events/{id}/sessions': async (request) => json(200, await listSessions(request.app, id(request), request.query)),
  'POST /api/admin/events/{id}/sessions/end': async (request) => {
    return json(200, await endSession(request.app, staffActor(request), id(request), request.body));
  },
  'POST /api/admin/events/{id}/sessions/end-all': async (request) => {
    return json(200, await endAllSessions(request.app, staffActor(request), id(request)));
  },
  'GET /api/admin/events/{id}/watermark': async (request) => json(200, await watermarkInfo(request.app, id(request))),
  'POST /api/admin/events/{id}/watermark/files': async (request) => json(200, await watermarkFileUrls(request.app, staffActor(request), id(request), request.body)),
  'POST /api/admin/events/{id}/trace': (request) =>
    startedJob(request, (actor) => startCopyTrace({ ...jobDeps(request), config: request.app.config, recordingFiles: request.app.recordingFiles }, actor, id(request), request.body)),
  'GET /api/admin/events/{id}/audit': async (request) => {
    await requireEvent(request.app, id(request));
    return json(200, await listAudit(request.app, id(request), request.query, auditReader(request)));
  },
  'GET /api/admin/audit': async (request) => json(200, await listAudit(request.app, null, request.query, auditReader(request))),
  'GET /api/admin/events/{id}/audience': async (request) => json(200, await audienceReport(request.app, id(request), request.query)),
  'GET /api/admin/events/{id}/audience/trouble': async (request) => json(200, await troubleList(request.app, id(request), request.query)),
  'GET /api/admin/events/{id}/audience/trouble/export': async (request) => ({
    statusCode: 200,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${id(request)}-tickets-with-trouble.csv"`,
      'cache-control': 'no-store',
    },
    body: await troubleCsv(request.app, id(request)),
  }),

  'GET /api/admin/events/{id}/tokens': async (request) => json(200, await listEventCodes(request.app, id(request), request.query)),
  'POST /api/admin/events/{id}/tokens': async (request) => {
    return json(201, await generateCodes(request.app, staffActor(request), id(request), request.body));
  },
  'POST /api/admin/events/{id}/tokens/jobs': (request) =>
    startedJob(request, (actor) => startCodeGeneration(jobDeps(request), actor, id(request), request.body)),
  'POST /api/admin/events/{id}/tokens/revoke': (request) =>
    startedJob(request, (actor) => startCodeRevocation({ ...jobDeps(request), config: request.app.config }, actor, id(request), request.body)),
  'GET /api/admin/events/{id}/jobs': async (request) => {
    await requireEvent(request.app, id(request));
    return json(200, await listEventJobs({ stores: request.app.stores, exportFiles: request.app.exportFiles ?? undefined, now: request.app.now }, id(request), request.query, (permission) => allows(request.account!.role, permission)));
  },
  'GET /api/admin/jobs/{jobId}': async (request) => {
    const job = await permittedJob(request);
    return json(200, { job: await jobAnswer({ exportFiles: request.app.exportFiles ?? undefined, now: request.app.now }, job) });
  },
  'POST /api/admin/jobs/{jobId}/retry': async (request) => {
    const job = await permittedJob(request);
    const retried = await retryJob(jobDeps(request), staffActor(request), job);
    return json(202, { job: jobView(retried) });
  },
  'GET /api/admin/events/{id}/tokens/export': async (request) => {
    const { csv, fileName } = await exportCodesCsv(request.app, id(request), viewerUrl(request), request.query);
    return {
      statusCode: 200,
      headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': attachment(fileName), 'cache-control': 'no-store' },
      body: csv,
    };
  },
  'POST /api/admin/events/{id}/tokens/export': (request) =>
    startedJob(request, (actor) => startCodeExport(jobDeps(request), actor, id(request), viewerUrl(request), request.query)),
  'GET /api/admin/tokens': async ({ app, query }) => json(200, await listAllCodes(app, query)),
  'POST /api/admin/tokens/bulk-revoke': async (request) => {
    return json(200, await bulkRevoke(request.app, staffActor(request), request.body));
  },
  'PATCH /api/admin/tokens/{id}/revoke': async (request) => {
    return json(200, await setCodeRevoked(request.app, staffActor(request), id(request), true));
  },
  'PATCH /api/admin/tokens/{id}/unrevoke': async (request) => {
    return json(200, await setCodeRevoked(request.app, staffActor(request), id(request), false));
  },

  // The orders of a deleted event stay listable by its id: a shop may still send orders for it (they fail).
  'GET /api/admin/events/{id}/orders': async (request) => json(200, await listEventOrders(request.app, id(request), request.query)),
  'POST /api/admin/orders/{orderId}/refund': async (request) => {
    const order = await refundOrderFromConsole({ ...request.app, payments: () => stripeOf(request) }, staffActor(request), request.params.orderId ?? '');
    return json(200, { order: orderView(order) });
  },
  'POST /api/admin/orders/{orderId}/resend': async (request) => {
    return json(200, orderView(await resendOrderEmail(request.app, staffActor(request), request.params.orderId ?? '')));
  },
  'GET /api/admin/tokens/{id}/watching': async (request) => json(200, await ticketWatching(request.app, id(request))),
};
