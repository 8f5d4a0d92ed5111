/**
 * The admin API (spec: access-gateway, admin endpoints, plus the choices
 * written down in docs/web.md). The session cookie rides along (same origin); a
 * 401 anywhere but login tells the app to show the login form.
 */
import { ApiError, requestJson, type RequestOptions } from '../shared/http';
import type { CodeStatus } from '../../../functions/domain/records';
import type { CodeView } from '../../../functions/domain/codes/code-views';
import type { adminEventListView, adminEventView } from '../../../functions/domain/events/event-views';
import type { dashboard, eventDetails } from '../../../functions/domain/events/event-admin';
import type { AuditAction } from '../../../functions/domain/audit/audit-actions';
import type { AuditPage } from '../../../functions/domain/audit/audit-store';
import type { issuePreview } from '../../../functions/domain/access/preview';
import type { SessionView } from '../../../functions/domain/access/session-admin';
import type { OrderView as OrderRecordView } from '../../../functions/domain/commerce/orders';
import type { AccountView } from '../../../functions/domain/staff/staff-accounts';
import type { JobView } from '../../../functions/domain/jobs/jobs';
import type { audienceReport, troubleList, WatchingView } from '../../../functions/domain/audience/audience-report';
import type { Permission, Role } from '../../../functions/domain/staff/roles';

// Response shapes are the API's own view types (type-only: nothing of the server is bundled).
export type { EventStatus } from '../../../functions/domain/event-status';
export type { CodeStatus } from '../../../functions/domain/records';
export type { CodeView } from '../../../functions/domain/codes/code-views';
export type CodeFilter = CodeStatus | 'active' | '';
/** The statuses a revocation job takes (revoked codes are revoked already). */
export type RevocableStatus = Exclude<CodeFilter, 'revoked' | ''>;
/** Which page of an event's codes: filters (status, exact label, one exact code) and where the page starts. */
export interface CodePageQuery {
  status?: CodeFilter;
  label?: string;
  /** A buyer's email: the codes of that buyer's orders. */
  email?: string;
  code?: string;
  cursor?: string;
}
export interface CodePage {
  tokens: CodeView[];
  nextCursor: string | null;
}
export type AdminEvent = ReturnType<typeof adminEventView>;
/** An event in the list, with its on-air status. */
export type ListedEvent = ReturnType<typeof adminEventListView>;
/** An event's ticket sale at a glance (issue 36's contract): counts kept exact by the writes that change them. */
export interface Sales {
  onSale: boolean;
  /** Null when the event has no sale. */
  priceMinor: number | null;
  currency: string | null;
  capacity: number | null;
  ticketsSold: number;
  ticketsHeld: number;
  /** Null without a capacity. */
  ticketsLeft: number | null;
  revenueMinor: number;
  refundedMinor: number;
  /** Paid, unrefunded orders. */
  orders: number;
}
export interface Cancellation {
  reason: string;
  at: string;
}
/**
 * What the box office adds to an event's page (issue 36's contract). Optional: an API from before it sends
 * none of them, and the page then leaves their parts out.
 */
export interface BoxOfficeFields {
  /** The page to share: the viewer with the event's sale (`<viewer origin>/?event=<id>`). */
  viewerUrl: string;
  sales: Sales;
  /** Sessions live now (the delete dialog says how many viewers it cuts off). */
  liveSessions: number;
  cancelled: Cancellation | null;
  contactEmail: string | null;
}
/** `ingest` (the stream key) is null for roles that do not run the stream. */
export type EventDetail = Omit<Awaited<ReturnType<typeof eventDetails>>, 'ingest'> & {
  ingest: Awaited<ReturnType<typeof eventDetails>>['ingest'] | null;
} & Partial<BoxOfficeFields>;
export type { AccountView, JobView, Permission, Role };

export interface SessionInfo {
  authenticated: true;
  username: string;
  role: Role;
  /** The owner account whose password is the admin password. */
  bootstrap: boolean;
  permissions: Permission[];
  twoFactorEnabled: boolean;
  recoveryCodesLeft: number;
  enrolmentRequired: boolean;
  requireTwoFactor: boolean;
}

/** What starting two-factor enrolment asks for: the password, and with two-factor sign-in on, the current factor. */
export type EnrolmentProof = { password: string; code?: string; recoveryCode?: string };

export type LoginAnswer = { success: true; enrolmentRequired?: true } | { success: false; secondFactorRequired: true };
/** With the box office: each event on sale now and its sales (absent from an API before it). */
export type Dashboard = Awaited<ReturnType<typeof dashboard>> & { eventsOnSale?: { id: string; title: string; startsAt: string; sales: Sales }[] };
export type Preview = Awaited<ReturnType<typeof issuePreview>>;
export type LiveSession = SessionView;
export type AudienceReport = Awaited<ReturnType<typeof audienceReport>>;
export type TroublePage = Awaited<ReturnType<typeof troubleList>>;
export type { WatchingView };
export interface SessionsPage {
  sessions: LiveSession[];
  total: number;
  nextCursor: string | null;
}
/** `refundable`: a Stripe order, paid (the console refunds it); absent from an API before the box office. */
export type OrderView = OrderRecordView & { refundable?: boolean };
export interface OrdersPage {
  orders: OrderView[];
  nextCursor: string | null;
}
export type { AuditAction } from '../../../functions/domain/audit/audit-actions';
export type { AuditEntry, AuditPage } from '../../../functions/domain/audit/audit-store';

/**
 * What the event form sends. The API's `streamUrl` (the spec's "origin stream URL") is left out: nothing
 * plays from it, viewers watch what OBS sends to the event's ingest, so the form does not ask for it and an
 * edit leaves a stored value as it is (docs/web.md).
 */
export interface EventInput {
  title: string;
  description: string;
  startsAt: string;
  endsAt: string;
  accessWindowHours: number;
  posterUrl: string | null;
  /** The ticket sale (null: not sold here). */
  sale: AdminEvent['sale'];
  /** Where it may be watched (null: anywhere). */
  geo: AdminEvent['geo'];
  /** How many devices may watch on one code at once, 1 to 5. */
  devicesPerCode: number;
  /** Forensic A/B watermarking of the next publishes. */
  watermark: boolean;
}

export type EventTransition = 'activate' | 'deactivate' | 'archive' | 'unarchive';

const unauthorizedListeners = new Set<(reason: string | undefined) => void>();

/** Called whenever the API answers 401 outside login, with the API's `reason` (why the session is over). */
export function onUnauthorized(listener: (reason: string | undefined) => void): void {
  unauthorizedListeners.add(listener);
}

function signedOut(error: ApiError): void {
  for (const listener of unauthorizedListeners) listener(error.reason);
}

async function call<T>(path: string, options: RequestOptions = {}): Promise<T> {
  try {
    return await requestJson<T>(`/api/admin${path}`, options);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && !path.startsWith('/login') && path !== '/session') signedOut(error);
    throw error;
  }
}

const id = (value: string) => encodeURIComponent(value);

export const adminApi = {
  /** The session, or null without one. */
  async session(): Promise<SessionInfo | null> {
    try {
      return await call<SessionInfo>('/session');
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null;
      throw error;
    }
  },
  /** Without a login name: the spec's owner login. */
  login: (username: string, password: string) =>
    call<LoginAnswer>('/login', { json: username ? { username, password } : { password } }),
  secondFactor: (answer: { code: string } | { recoveryCode: string }) =>
    call<{ success: true }>('/login/second-factor', { json: answer }),
  startEnrolment: (proof: EnrolmentProof) => call<{ secret: string; otpauthUrl: string; qrCode: string }>('/account/two-factor', { json: proof }),
  confirmEnrolment: (code: string) => call<{ recoveryCodes: string[] }>('/account/two-factor/confirm', { json: { code } }),
  changeOwnPassword: (currentPassword: string, newPassword: string) =>
    call<{ success: true }>('/account/password', { json: { currentPassword, newPassword } }),
  listAccounts: () => call<{ accounts: AccountView[]; policy: { requireTwoFactor: boolean } }>('/accounts'),
  createAccount: (input: { username: string; role: Role; password: string }) => call<AccountView>('/accounts', { json: input }),
  changeAccount: (username: string, change: { role?: Role; disabled?: boolean }) =>
    call<AccountView>(`/accounts/${id(username)}`, { method: 'PATCH', json: change }),
  resetPassword: (username: string, password: string) => call<AccountView>(`/accounts/${id(username)}/password`, { json: { password } }),
  unlockAccount: (username: string) => call<AccountView>(`/accounts/${id(username)}/unlock`, { json: {} }),
  resetTwoFactor: (username: string) => call<AccountView>(`/accounts/${id(username)}/two-factor/reset`, { json: {} }),
  setPolicy: (requireTwoFactor: boolean) =>
    call<{ requireTwoFactor: boolean }>('/account-policy', { method: 'PUT', json: { requireTwoFactor } }),
  logout: () => call<{ success: true }>('/logout', { method: 'POST' }),
  dashboard: () => call<Dashboard>('/dashboard'),
  listEvents: () => call<{ events: ListedEvent[] }>('/events').then((body) => body.events),
  getEvent: (eventId: string) => call<EventDetail>(`/events/${id(eventId)}`),
  createEvent: (input: EventInput) => call<AdminEvent>('/events', { json: input }),
  updateEvent: (eventId: string, input: Partial<EventInput>) =>
    call<AdminEvent>(`/events/${id(eventId)}`, { method: 'PUT', json: input }),
  transition: (eventId: string, transition: EventTransition) =>
    call<AdminEvent>(`/events/${id(eventId)}/${transition}`, { method: 'PATCH' }),
  /** Takes the event off sale at once; a background job refunds, revokes and tells every buyer (409 when cancelled already). */
  cancelEvent: (eventId: string, reason: string) =>
    call<{ job: JobView }>(`/events/${id(eventId)}/cancel`, { json: { reason } }).then((body) => body.job),
  /** A large event's codes are deleted in the background: `job` (the event is gone at once either way). */
  deleteEvent: (eventId: string) => call<{ deleted: true; job?: JobView }>(`/events/${id(eventId)}`, { method: 'DELETE' }),
  rotateIngestKey: (eventId: string) => call<EventDetail>(`/events/${id(eventId)}/ingest-key`, { method: 'POST' }),
  requestOnAir: (eventId: string, role: 'primary' | 'backup') =>
    call<{ eventId: string; requested: string; at: string }>(`/events/${id(eventId)}/on-air`, { method: 'POST', json: { role } }),
  clearCache: (eventId: string) => call<{ cleared: true }>(`/events/${id(eventId)}/cache`, { method: 'DELETE' }),
  /** One page of the event's codes, newest first (`cursor`: the previous page's `nextCursor`). */
  listCodes: (eventId: string, page: CodePageQuery & { limit: number }) =>
    call<CodePage>(
      `/events/${id(eventId)}/tokens${query({ status: page.status ?? null, label: page.label ?? null, email: page.email ?? null, code: page.code ?? null, cursor: page.cursor ?? null, limit: String(page.limit) })}`,
    ),
  generateCodes: (eventId: string, count: number, label: string) =>
    call<{ tokens: CodeView[]; count: number }>(`/events/${id(eventId)}/tokens`, { json: { count, label } }),
  /** More codes than fit one request: a background job makes them (its progress: `getJob`). */
  startCodeJob: (eventId: string, count: number, label: string) =>
    call<{ job: JobView }>(`/events/${id(eventId)}/tokens/jobs`, { json: { count, label } }).then((body) => body.job),
  /** Every code of the event with this exact label, or this status, revoked by a background job. */
  startRevokeJob: (eventId: string, filter: { label: string } | { status: RevocableStatus }) =>
    call<{ job: JobView }>(`/events/${id(eventId)}/tokens/revoke`, { json: filter }).then((body) => body.job),
  getJob: (jobId: string) => call<{ job: JobView }>(`/jobs/${id(jobId)}`).then((body) => body.job),
  /** A failed job goes on from where its lanes stopped (409 when it is not failed). */
  retryJob: (jobId: string) => call<{ job: JobView }>(`/jobs/${id(jobId)}/retry`, { method: 'POST', json: {} }).then((body) => body.job),
  /** The event's recent jobs, newest first (those the account may read): 20, or `limit` (1..100). */
  listJobs: (eventId: string, limit?: number) => call<{ jobs: JobView[] }>(`/events/${id(eventId)}/jobs${limit ? `?limit=${limit}` : ''}`).then((body) => body.jobs),
  revokeCode: (codeId: string) => call<CodeView>(`/tokens/${id(codeId)}/revoke`, { method: 'PATCH' }),
  unrevokeCode: (codeId: string) => call<CodeView>(`/tokens/${id(codeId)}/unrevoke`, { method: 'PATCH' }),
  bulkRevoke: (codeIds: string[]) => call<{ revoked: number }>('/tokens/bulk-revoke', { json: { tokenIds: codeIds } }),
  /** The CSV with times in `timeZone` (the browser's), and the file name the API gives it. */
  exportCodes: (eventId: string, timeZone: string) => download(`/events/${id(eventId)}/tokens/export${query({ tz: timeZone })}`),
  /** The same CSV written by a background job (events past the inline limit); the done job links to the file. */
  startCodeExport: (eventId: string, timeZone: string) =>
    call<{ job: JobView }>(`/events/${id(eventId)}/tokens/export${query({ tz: timeZone })}`, { method: 'POST', json: {} }).then((body) => body.job),
  preview: (eventId: string) => call<Preview>(`/events/${id(eventId)}/preview`, { json: {} }),
  listSessions: (eventId: string, cursor: string | null) =>
    call<SessionsPage>(`/events/${id(eventId)}/sessions${query({ cursor })}`),
  endSession: (eventId: string, session: Pick<LiveSession, 'code' | 'sessionId'>) =>
    call<{ ended: true }>(`/events/${id(eventId)}/sessions/end`, { json: { code: session.code, sessionId: session.sessionId } }),
  endAllSessions: (eventId: string) => call<{ ended: number }>(`/events/${id(eventId)}/sessions/end-all`, { json: {} }),
  audience: (eventId: string) => call<AudienceReport>(`/events/${id(eventId)}/audience`),
  troubleList: (eventId: string, cursor: string | null) => call<TroublePage>(`/events/${id(eventId)}/audience/trouble${query({ cursor })}`),
  troubleExportUrl: (eventId: string) => `/api/admin/events/${id(eventId)}/audience/trouble/export`,
  watching: (codeId: string) => call<WatchingView>(`/tokens/${id(codeId)}/watching`),
  listOrders: (eventId: string, cursor: string | null) => call<OrdersPage>(`/events/${id(eventId)}/orders${query({ cursor })}`),
  /** A Stripe order refunded through Stripe (an order refunded already: the same order, nothing changes); a shop's order: 409. */
  refundOrder: (orderId: string) => call<{ order: OrderView }>(`/orders/${id(orderId)}/refund`, { json: {} }).then((body) => body.order),
  resendOrderEmail: (orderId: string) => call<OrderView>(`/orders/${id(orderId)}/resend`, { json: {} }),
  /** One event's log, or (eventId null) every entry. */
  audit: (eventId: string | null, filter: { action: AuditAction | ''; cursor: string | null }) =>
    call<AuditPage>(`${eventId ? `/events/${id(eventId)}` : ''}/audit${query({ action: filter.action, cursor: filter.cursor })}`),
};

/** A file answer: its content and the name from its `Content-Disposition` (`filename*` first). */
async function download(path: string): Promise<{ blob: Blob; fileName: string }> {
  let response: Response;
  try {
    response = await fetch(`/api/admin${path}`, { credentials: 'same-origin' });
  } catch (cause) {
    throw new ApiError(0, 'Network error', undefined, { cause });
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as { error?: string } | undefined;
    const error = new ApiError(response.status, body?.error ?? `HTTP ${response.status}`, body);
    if (response.status === 401) signedOut(error);
    throw error;
  }
  const disposition = response.headers.get('content-disposition') ?? '';
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  const plain = /filename="([^"]*)"/i.exec(disposition)?.[1];
  return { blob: await response.blob(), fileName: encoded ? decodeURIComponent(encoded) : (plain ?? 'codes.csv') };
}

function query(params: Record<string, string | null>): string {
  const search = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => !!entry[1]));
  const text = search.toString();
  return text ? `?${text}` : '';
}
