/**
 * Every API route, with the Lambda (area) that serves it and the guard in
 * front of it. The CDK app builds API Gateway routes from this table, the
 * local adapter matches requests against it, each area's handler dispatches on it.
 */
export type Area = 'public' | 'admin' | 'internal' | 'rtmp-callback';
export type Guard = 'none' | 'admin' | 'internal';
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteSpec {
  method: Method;
  /** API Gateway path template: `{name}` is a path parameter. */
  path: string;
  area: Area;
  guard: Guard;
}

const route = (method: Method, path: string, area: Area, guard: Guard): RouteSpec => ({ method, path, area, guard });

export const routeTable: RouteSpec[] = [
  route('POST', '/api/tokens/validate', 'public', 'none'),
  route('POST', '/api/playback/refresh', 'public', 'none'),
  route('POST', '/api/playback/url', 'public', 'none'),
  route('POST', '/api/playback/heartbeat', 'public', 'none'),
  route('POST', '/api/playback/release', 'public', 'none'),
  route('GET', '/api/events/{id}/status', 'public', 'none'),

  route('POST', '/api/admin/login', 'admin', 'none'),
  route('POST', '/api/admin/logout', 'admin', 'none'),
  route('GET', '/api/admin/session', 'admin', 'admin'),
  route('GET', '/api/admin/dashboard', 'admin', 'admin'),
  route('GET', '/api/admin/events', 'admin', 'admin'),
  route('POST', '/api/admin/events', 'admin', 'admin'),
  route('GET', '/api/admin/events/{id}', 'admin', 'admin'),
  route('PUT', '/api/admin/events/{id}', 'admin', 'admin'),
  route('DELETE', '/api/admin/events/{id}', 'admin', 'admin'),
  route('PATCH', '/api/admin/events/{id}/activate', 'admin', 'admin'),
  route('PATCH', '/api/admin/events/{id}/deactivate', 'admin', 'admin'),
  route('PATCH', '/api/admin/events/{id}/archive', 'admin', 'admin'),
  route('PATCH', '/api/admin/events/{id}/unarchive', 'admin', 'admin'),
  route('POST', '/api/admin/events/{id}/ingest-key', 'admin', 'admin'),
  route('DELETE', '/api/admin/events/{id}/cache', 'admin', 'admin'),
  route('POST', '/api/admin/events/{id}/preview', 'admin', 'admin'),
  route('GET', '/api/admin/events/{id}/sessions', 'admin', 'admin'),
  route('POST', '/api/admin/events/{id}/sessions/end', 'admin', 'admin'),
  route('POST', '/api/admin/events/{id}/sessions/end-all', 'admin', 'admin'),
  route('GET', '/api/admin/events/{id}/audit', 'admin', 'admin'),
  route('GET', '/api/admin/audit', 'admin', 'admin'),
  route('GET', '/api/admin/events/{id}/tokens', 'admin', 'admin'),
  route('POST', '/api/admin/events/{id}/tokens', 'admin', 'admin'),
  route('GET', '/api/admin/events/{id}/tokens/export', 'admin', 'admin'),
  route('GET', '/api/admin/tokens', 'admin', 'admin'),
  route('POST', '/api/admin/tokens/bulk-revoke', 'admin', 'admin'),
  route('PATCH', '/api/admin/tokens/{id}/revoke', 'admin', 'admin'),
  route('PATCH', '/api/admin/tokens/{id}/unrevoke', 'admin', 'admin'),

  route('GET', '/api/revocations', 'internal', 'internal'),
  route('POST', '/api/internal/streams/{eventId}/live', 'internal', 'internal'),
  // The RTMP server's callback: our ingest sends the internal key with the spec's JSON body.
  route('POST', '/api/internal/rtmp-auth', 'rtmp-callback', 'internal'),
];

export const routeKey = (spec: Pick<RouteSpec, 'method' | 'path'>) => `${spec.method} ${spec.path}`;
