import { routeKey as keyOf, routeTable } from '../../functions/http/route-table';
import { apiGatewayEvent as eventOfRoute } from '../../local/lambda-http-adapter';

/**
 * An API Gateway HTTP API (payload 2.0) event as the shipped Lambda handlers receive it, for tests that
 * call them directly: built by the local adapter's own builder, from `198.51.100.7` over HTTPS.
 */
export function apiGatewayEvent(
  routeKey: string,
  options: { body?: unknown; headers?: Record<string, string>; cookies?: string[]; query?: Record<string, string> } = {},
) {
  const spec = routeTable.find((route) => keyOf(route) === routeKey);
  if (!spec) throw new Error(`no route ${routeKey} in the route table`);
  const url = new URL(`https://api.example.com${spec.path}`);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
  return eventOfRoute(spec, {}, {
    url,
    headers: {
      host: 'api.example.com',
      'x-forwarded-proto': 'https',
      'user-agent': 'test',
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    cookies: options.cookies,
    sourceIp: '198.51.100.7',
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}
