import { LIST_LIMITS } from '../domain/config';
import type { Permission } from '../domain/staff';

/**
 * Every API route, with the Lambda (area) that serves it and the guard in
 * front of it. The CDK app builds API Gateway routes from this table, the
 * local adapter matches requests against it, each area's handler dispatches on it.
 * An admin route cannot be written without the permission its guard checks.
 */
export type Area = 'public' | 'admin' | 'internal' | 'rtmp-callback';
export type Guard = 'none' | 'admin' | 'internal';
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type RouteSpec = {
  method: Method;
  /** API Gateway path template: `{name}` is a path parameter. */
  path: string;
  area: Area;
  /** The largest JSON body the route takes, when not `LIST_LIMITS.bodyBytes`. */
  bodyBytes?: number;
} & ({ guard: 'none' | 'internal'; permission?: undefined } | { guard: 'admin'; permission: Permission });

function route(method: Method, path: string, area: Area, guard: 'none' | 'internal'): RouteSpec;
function route(method: Method, path: string, area: Area, guard: 'admin', permission: Permission): RouteSpec;
function route(method: Method, path: string, area: Area, guard: Guard, permission?: Permission): RouteSpec {
  return (guard === 'admin' ? { method, path, area, guard, permission } : { method, path, area, guard }) as RouteSpec;
}

export const routeTable: RouteSpec[] = [
  route('POST', '/api/tokens/validate', 'public', 'none'),
  route('POST', '/api/playback/refresh', 'public', 'none'),
  route('POST', '/api/playback/url', 'public', 'none'),
  route('POST', '/api/playback/heartbeat', 'public', 'none'),
  route('POST', '/api/playback/release', 'public', 'none'),
  route('GET', '/api/events/{id}/status', 'public', 'none'),
  route('GET', '/api/events/{id}/sale', 'public', 'none'),
  // Any shop's orders, signed with the commerce secret's ORDER_WEBHOOK_SECRET (checked in the function).
  route('POST', '/api/webhooks/orders', 'public', 'none'),
  // Stripe's events, verified with the commerce secret's STRIPE_WEBHOOK_SECRET by Stripe's SDK.
  route('POST', '/api/webhooks/stripe', 'public', 'none'),
  // A buyer's Stripe Checkout, with the commerce secret's Stripe key; its status, keyed by the session's id.
  route('POST', '/api/checkout', 'public', 'none'),
  route('GET', '/api/checkout/{sessionId}', 'public', 'none'),
  // A buyer's lost tickets, mailed again to the address they were bought with (rate-limited in the function).
  route('POST', '/api/orders/resend', 'public', 'none'),

  route('POST', '/api/admin/login', 'admin', 'none'),
  route('POST', '/api/admin/login/second-factor', 'admin', 'none'),
  route('POST', '/api/admin/logout', 'admin', 'none'),
  route('GET', '/api/admin/session', 'admin', 'admin', 'self'),
  route('GET', '/api/admin/dashboard', 'admin', 'admin', 'events:read'),
  route('GET', '/api/admin/events', 'admin', 'admin', 'events:read'),
  route('POST', '/api/admin/events', 'admin', 'admin', 'events:edit'),
  route('GET', '/api/admin/events/{id}', 'admin', 'admin', 'events:read'),
  route('PUT', '/api/admin/events/{id}', 'admin', 'admin', 'events:edit'),
  route('DELETE', '/api/admin/events/{id}', 'admin', 'admin', 'events:edit'),
  // The show cancelled: off sale at once, then a job refunds its Stripe orders, revokes its codes and tells its buyers.
  route('POST', '/api/admin/events/{id}/cancel', 'admin', 'admin', 'events:edit'),
  route('PATCH', '/api/admin/events/{id}/activate', 'admin', 'admin', 'events:edit'),
  route('PATCH', '/api/admin/events/{id}/deactivate', 'admin', 'admin', 'events:edit'),
  route('PATCH', '/api/admin/events/{id}/archive', 'admin', 'admin', 'events:edit'),
  route('PATCH', '/api/admin/events/{id}/unarchive', 'admin', 'admin', 'events:edit'),
  route('POST', '/api/admin/events/{id}/ingest-key', 'admin', 'admin', 'stream:manage'),
  route('POST', '/api/admin/events/{id}/on-air', 'admin', 'admin', 'stream:manage'),
  route('DELETE', '/api/admin/events/{id}/cache', 'admin', 'admin', 'stream:manage'),
  route('POST', '/api/admin/events/{id}/preview', 'admin', 'admin', 'stream:manage'),
  route('GET', '/api/admin/events/{id}/sessions', 'admin', 'admin', 'codes:read'),
  route('POST', '/api/admin/events/{id}/sessions/end', 'admin', 'admin', 'codes:manage'),
  route('POST', '/api/admin/events/{id}/sessions/end-all', 'admin', 'admin', 'codes:manage'),
  // Tracing a leaked copy names a code: those who manage codes (docs/watermark-design.md, section 5).
  route('GET', '/api/admin/events/{id}/watermark', 'admin', 'admin', 'codes:manage'),
  route('POST', '/api/admin/events/{id}/watermark/files', 'admin', 'admin', 'codes:manage'),
  { ...route('POST', '/api/admin/events/{id}/trace', 'admin', 'admin', 'codes:manage'), bodyBytes: LIST_LIMITS.traceBodyBytes },
  route('GET', '/api/admin/events/{id}/audit', 'admin', 'admin', 'events:read'),
  // The audience as a whole is the show's health: every role that sees the event sees it. A ticket's
  // watching and the trouble list name codes: those who may read codes; the CSV hands codes out in bulk.
  route('GET', '/api/admin/events/{id}/audience', 'admin', 'admin', 'events:read'),
  route('GET', '/api/admin/events/{id}/audience/trouble', 'admin', 'admin', 'codes:read'),
  route('GET', '/api/admin/events/{id}/audience/trouble/export', 'admin', 'admin', 'codes:manage'),
  // Every event's entries and every sign-in (with the names of failed ones): the account managers'.
  route('GET', '/api/admin/audit', 'admin', 'admin', 'accounts:manage'),
  route('GET', '/api/admin/events/{id}/tokens', 'admin', 'admin', 'codes:read'),
  route('POST', '/api/admin/events/{id}/tokens', 'admin', 'admin', 'codes:manage'),
  route('POST', '/api/admin/events/{id}/tokens/jobs', 'admin', 'admin', 'codes:manage'),
  route('POST', '/api/admin/events/{id}/tokens/revoke', 'admin', 'admin', 'codes:manage'),
  // Every role may ask; the handler checks the permission of the job's kind (the one that started it).
  route('GET', '/api/admin/events/{id}/jobs', 'admin', 'admin', 'events:read'),
  route('GET', '/api/admin/jobs/{jobId}', 'admin', 'admin', 'events:read'),
  route('POST', '/api/admin/jobs/{jobId}/retry', 'admin', 'admin', 'events:read'),
  route('GET', '/api/admin/events/{id}/tokens/export', 'admin', 'admin', 'codes:manage'),
  route('POST', '/api/admin/events/{id}/tokens/export', 'admin', 'admin', 'codes:manage'),
  route('GET', '/api/admin/tokens', 'admin', 'admin', 'codes:read'),
  route('POST', '/api/admin/tokens/bulk-revoke', 'admin', 'admin', 'codes:manage'),
  route('PATCH', '/api/admin/tokens/{id}/revoke', 'admin', 'admin', 'codes:manage'),
  route('PATCH', '/api/admin/tokens/{id}/unrevoke', 'admin', 'admin', 'codes:manage'),
  route('GET', '/api/admin/tokens/{id}/watching', 'admin', 'admin', 'codes:read'),
  // Orders carry buyers' emails and their codes: box office and above.
  route('GET', '/api/admin/events/{id}/orders', 'admin', 'admin', 'codes:manage'),
  route('POST', '/api/admin/orders/{orderId}/resend', 'admin', 'admin', 'codes:manage'),
  // A Stripe order's refund through Stripe's Refunds API (a shop's is refunded in the shop: 409).
  route('POST', '/api/admin/orders/{orderId}/refund', 'admin', 'admin', 'codes:manage'),
  route('POST', '/api/admin/account/two-factor', 'admin', 'admin', 'self'),
  route('POST', '/api/admin/account/two-factor/confirm', 'admin', 'admin', 'self'),
  route('POST', '/api/admin/account/password', 'admin', 'admin', 'self'),
  route('GET', '/api/admin/accounts', 'admin', 'admin', 'accounts:manage'),
  route('POST', '/api/admin/accounts', 'admin', 'admin', 'accounts:manage'),
  route('PATCH', '/api/admin/accounts/{username}', 'admin', 'admin', 'accounts:manage'),
  route('POST', '/api/admin/accounts/{username}/password', 'admin', 'admin', 'accounts:manage'),
  route('POST', '/api/admin/accounts/{username}/unlock', 'admin', 'admin', 'accounts:manage'),
  route('POST', '/api/admin/accounts/{username}/two-factor/reset', 'admin', 'admin', 'accounts:manage'),
  route('PUT', '/api/admin/account-policy', 'admin', 'admin', 'accounts:manage'),

  route('GET', '/api/revocations', 'internal', 'internal'),
  route('POST', '/api/internal/streams/{eventId}/video', 'internal', 'internal'),
  route('POST', '/api/internal/streams/{eventId}/refusals', 'internal', 'internal'),
  route('POST', '/api/internal/streams/{eventId}/lease', 'internal', 'internal'),
  route('POST', '/api/internal/streams/{eventId}/encoders', 'internal', 'internal'),
  // The RTMP server's callback: our ingest sends the internal key with the spec's JSON body.
  route('POST', '/api/internal/rtmp-auth', 'rtmp-callback', 'internal'),
];

export const routeKey = (spec: Pick<RouteSpec, 'method' | 'path'>) => `${spec.method} ${spec.path}`;
