import { awsClients } from '../adapters/aws-clients';
import { readApiConfig } from '../config/api-config';
import { compose } from '../compose/admin';
import { handlerOf } from '../compose/handler-of';
import type { ApiRequest, RouteHandler } from '../http/api-types';
import type { AdminApp } from '../http/app';
import { auditRequest } from '../http/audit-request';
import { clearedCookie } from '../http/admin-cookie';
import { clientIp, cookie, requestOrigin } from '../http/request-info';
import { json } from '../http/responses';
import { HttpError } from '../http/http-error';
import { playbackBaseUrl, viewerUrl } from '../http/public-urls';
import type { AuditAction } from '../domain/audit';
import { listAudit, type AuditRecord } from '../domain/audit';
import { audienceReport, ticketWatching, troubleCsv, troubleList } from '../domain/audience';
import { issuePreview } from '../domain/access';
import { endAllSessions, endSession, listSessions } from '../domain/access';
import { ADMIN_COOKIE, readAdminSession } from '../domain/staff';
import { bulkRevoke, exportCodesCsv, generateCodes, listAllCodes, listEventCodes, setCodeRevoked } from '../domain/codes';
import { startCodeExport, startCodeGeneration, startCodeRevocation } from '../domain/jobs';
import { attachment } from '../domain/codes';
import { deleteEvent, deleteEventInBackground, deletesInline } from '../domain/jobs';
import { setEventFlag } from '../domain/codes';
import { jobKindOf } from '../domain/jobs';
import { jobAnswer, jobPermission, jobView, listEventJobs, requireJob, retryJob, type JobStartDeps } from '../domain/jobs';
import {
  createEvent,
  dashboard,
  eventDetails,
  requireEvent,
  rotateIngestKey,
  updateEvent,
} from '../domain/events';
import type { JobRecord } from '../domain/jobs';
import { allows } from '../domain/staff';
import { LIST_LIMITS } from '../domain/config';
import { adminEventListView } from '../domain/events';
import { listEventOrders, orderView, resendOrderEmail } from '../domain/commerce';
import { accountRoutes } from './admin-accounts';

/**
 * The OBS "Server": `INGEST_RTMP_URL`, else the host the console was opened with on `INGEST_RTMP_PORT`, so a
 * streamer on another machine gets an address that reaches this one (not 127.0.0.1).
 */
function ingestServer({ app, event }: ApiRequest): string {
  return app.config.ingestRtmpUrl ?? `rtmp://${requestOrigin(event).hostname}:${app.config.ingestRtmpPort}/live`;
}

const id = (request: ApiRequest) => request.params.id ?? '';

/** Records an admin action that changed something, by the signed-in account; `event` when the handler has it (else its title is read). */
function audit(
  request: ApiRequest,
  action: AuditAction,
  event: string | { id: string; title: string },
  target: string,
  more: Pick<AuditRecord, 'changes' | 'details'> = {},
) {
  const [eventId, eventTitle] = typeof event === 'string' ? [event, undefined] : [event.id, event.title];
  return auditRequest(request.app, request.event, { action, actor: request.account!.username, eventId, eventTitle, target, ...more });
}

/** What starting a job needs: 503 where no jobs queue is configured. */
function jobDeps({ app }: ApiRequest<AdminApp>): JobStartDeps {
  if (!app.jobQueue) throw new HttpError(503, 'Background jobs are not configured');
  return { stores: app.stores, queue: app.jobQueue, now: app.now, exportFiles: app.exportFiles ?? undefined };
}

/**
 * Starts a job in the signed-in account's name, and audits its start (the worker audits its end in that name too).
 * The 202 answer is `{ ...answer, job }`.
 */
async function startedJob(request: ApiRequest<AdminApp>, start: (startedBy: JobRecord['startedBy']) => Promise<JobRecord>, answer: Record<string, unknown> = {}) {
  const job = await start({ actor: request.account!.username, clientIp: clientIp(request.event, request.app.config.originVerifySecret) });
  await audit(request, 'job.start', job.eventId, jobKindOf(job.kind).describe(job), { details: { jobId: job.id, kind: job.kind, ...job.params } });
  return json(202, { ...answer, job: jobView(job) });
}

/** The job the route names, with the permission that started it (as the guard refuses a route: 403). */
async function permittedJob(request: ApiRequest<AdminApp>): Promise<JobRecord> {
  const job = await requireJob(request.app, request.params.jobId ?? '');
  if (!allows(request.account!.role, jobPermission(job))) throw new HttpError(403, 'Forbidden');
  return job;
}

/** The reader of an audit log: codes in it are shown masked unless the reader's role may read codes. */
const auditReader = (request: ApiRequest) => ({ readsCodes: allows(request.account!.role, 'codes:read') });

const TRANSITION_ACTIONS = {
  activate: ['active', true, 'event.activate'],
  deactivate: ['active', false, 'event.deactivate'],
  archive: ['archived', true, 'event.archive'],
  unarchive: ['archived', false, 'event.unarchive'],
} as const;

async function transition(request: ApiRequest, name: keyof typeof TRANSITION_ACTIONS) {
  const [flag, value, action] = TRANSITION_ACTIONS[name];
  const event = await setEventFlag(request.app, id(request), flag, value);
  await audit(request, action, event, event.title);
  return json(200, event);
}

export const adminRoutes: Record<string, RouteHandler<AdminApp>> = {
  ...accountRoutes,
  'POST /api/admin/logout': async ({ app, event }) => {
    const token = cookie(event, ADMIN_COOKIE);
    const session = token ? await readAdminSession(token, app.adminSecrets.adminSessionSecret, app.now()) : null;
    // The cookie is signed, not stored; logout revokes its id until it would have expired anyway.
    if (session) {
      await app.stores.accounts.revokeAdminSession(session.id, session.expiresAt.toISOString());
      await auditRequest(app, event, { actor: session.username, action: 'admin.logout' });
    }
    return json(200, { success: true }, {}, [clearedCookie(event)]);
  },
  'GET /api/admin/dashboard': async ({ app }) => json(200, await dashboard(app)),

  'GET /api/admin/events': async ({ app }) => {
    const events = await app.stores.events.listEvents(LIST_LIMITS.events);
    const now = app.now();
    return json(200, { events: events.map((event) => adminEventListView(event, now)) });
  },
  'POST /api/admin/events': async (request) => {
    const event = await createEvent(request.app, request.body);
    await audit(request, 'event.create', event, event.title);
    return json(201, event);
  },
  'GET /api/admin/events/{id}': async (request) => {
    const details = await eventDetails(request.app, await requireEvent(request.app, id(request)), ingestServer(request));
    // The stream key lets anyone publish to the event: only roles that run the stream see it.
    return json(200, allows(request.account!.role, 'stream:manage') ? details : { ...details, ingest: null });
  },
  'PUT /api/admin/events/{id}': async (request) => {
    const { event, changes } = await updateEvent(request.app, id(request), request.body);
    await audit(request, 'event.update', event, event.title, { changes });
    return json(200, event);
  },
  'DELETE /api/admin/events/{id}': async (request) => {
    const event = await requireEvent(request.app, id(request));
    // The event's log outlives it (its retention), readable in the console-wide log.
    if (deletesInline(event)) {
      await deleteEvent(request.app, event.id);
      await audit(request, 'event.delete', event, event.title);
      return json(200, { deleted: true });
    }
    const deps = jobDeps(request);
    const answer = await startedJob(request, (startedBy) => deleteEventInBackground(deps, event, startedBy), { deleted: true });
    await audit(request, 'event.delete', event, event.title);
    return answer;
  },
  'PATCH /api/admin/events/{id}/activate': (request) => transition(request, 'activate'),
  'PATCH /api/admin/events/{id}/deactivate': (request) => transition(request, 'deactivate'),
  'PATCH /api/admin/events/{id}/archive': (request) => transition(request, 'archive'),
  'PATCH /api/admin/events/{id}/unarchive': (request) => transition(request, 'unarchive'),
  'POST /api/admin/events/{id}/ingest-key': async (request) => {
    const details = await rotateIngestKey(request.app, id(request), ingestServer(request));
    await audit(request, 'ingest-key.rotate', details, details.title);
    return json(200, details);
  },
  'DELETE /api/admin/events/{id}/cache': async (request) => {
    const event = await requireEvent(request.app, id(request));
    if (!request.app.mediaCache) throw new HttpError(503, 'Media cache clearing is not configured');
    await request.app.mediaCache.clear(event.id);
    await audit(request, 'cache.clear', event, event.title);
    return json(200, { cleared: true });
  },
  'POST /api/admin/events/{id}/preview': async (request) =>
    json(200, await issuePreview(request.app, id(request), playbackBaseUrl(request))),
  'GET /api/admin/events/{id}/sessions': async (request) => json(200, await listSessions(request.app, id(request), request.query)),
  'POST /api/admin/events/{id}/sessions/end': async (request) => {
    const result = await endSession(request.app, id(request), request.body);
    await audit(request, 'session.end', id(request), result.code, { details: { sessionId: result.sessionId, label: result.label } });
    return json(200, result);
  },
  'POST /api/admin/events/{id}/sessions/end-all': async (request) => {
    const result = await endAllSessions(request.app, id(request));
    await audit(request, 'sessions.end-all', id(request), `${result.ended} session${result.ended === 1 ? '' : 's'}`, { details: { ended: result.ended } });
    return json(200, result);
  },
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
    const result = await generateCodes(request.app, id(request), request.body, request.account!.username);
    const label = result.tokens[0]?.label ?? '';
    await audit(request, 'codes.generate', id(request), `${result.count} code${result.count === 1 ? '' : 's'}`, { details: { count: result.count, label } });
    return json(201, result);
  },
  'POST /api/admin/events/{id}/tokens/jobs': (request) =>
    startedJob(request, (startedBy) => startCodeGeneration(jobDeps(request), id(request), request.body, startedBy)),
  'POST /api/admin/events/{id}/tokens/revoke': (request) =>
    startedJob(request, (startedBy) => startCodeRevocation({ ...jobDeps(request), config: request.app.config }, id(request), request.body, startedBy)),
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
    const retried = await retryJob(jobDeps(request), job);
    await audit(request, 'job.retry', job.eventId, jobKindOf(job.kind).describe(job), {
      details: { jobId: job.id, kind: job.kind, done: job.done, total: job.total, ...(job.error ? { error: job.error } : {}) },
    });
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
    startedJob(request, (startedBy) => startCodeExport(jobDeps(request), id(request), viewerUrl(request), request.query, startedBy)),
  'GET /api/admin/tokens': async ({ app, query }) => json(200, await listAllCodes(app, query)),
  'POST /api/admin/tokens/bulk-revoke': async (request) => {
    const { revoked, changed } = await bulkRevoke(request.app, request.body);
    // One entry per event, so each event's log shows its own codes.
    const byEvent = new Map<string, typeof changed>();
    for (const code of changed) byEvent.set(code.eventId, [...(byEvent.get(code.eventId) ?? []), code]);
    for (const [eventId, codes] of byEvent) {
      await audit(request, 'codes.bulk-revoke', eventId, `${codes.length} code${codes.length === 1 ? '' : 's'}`, {
        details: { codes: codes.map((code) => code.code) },
      });
    }
    return json(200, { revoked });
  },
  'PATCH /api/admin/tokens/{id}/revoke': async (request) => {
    const token = await setCodeRevoked(request.app, id(request), true);
    await audit(request, 'code.revoke', token.eventId, token.code);
    return json(200, token);
  },
  'PATCH /api/admin/tokens/{id}/unrevoke': async (request) => {
    const token = await setCodeRevoked(request.app, id(request), false);
    await audit(request, 'code.unrevoke', token.eventId, token.code);
    return json(200, token);
  },

  // The orders of a deleted event stay listable by its id: a shop may still send orders for it (they fail).
  'GET /api/admin/events/{id}/orders': async (request) => json(200, await listEventOrders(request.app, id(request), request.query)),
  'POST /api/admin/orders/{orderId}/resend': async (request) => {
    const order = await resendOrderEmail(request.app, request.params.orderId ?? '');
    await audit(request, 'order.resend', order.eventId, `order ${order.orderId}`, { details: { orderId: order.id, email: order.email, kind: order.emailKind } });
    return json(200, orderView(order));
  },
  'GET /api/admin/tokens/{id}/watching': async (request) => json(200, await ticketWatching(request.app, id(request))),
};

/** Lambda entry point: API Gateway's requests (functions/compose/admin.ts). */
export const handler = handlerOf(() => compose(readApiConfig(), awsClients()));
