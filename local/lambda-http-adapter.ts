import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import type { ApiEvent } from '../functions/http/api-types';
import type { LambdaHandler } from '../functions/http/area-handler';
import { routeKey, routeTable, type Area, type RouteSpec } from '../functions/http/route-table';

export type AreaHandlers = Record<Area, LambdaHandler>;

const MAX_BODY_BYTES = 1024 * 1024;

interface CompiledRoute {
  spec: RouteSpec;
  pattern: RegExp;
  names: string[];
}

const compiled: CompiledRoute[] = routeTable.map((spec) => {
  const names: string[] = [];
  const source = spec.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { spec, pattern: new RegExp(`^${source}$`), names };
});

/**
 * Finds the route as API Gateway would: method and path template, path
 * parameters decoded. Throws URIError for a malformed `%` escape.
 */
function matchRoute(method: string, path: string): { spec: RouteSpec; params: Record<string, string> } | null {
  for (const route of compiled) {
    if (route.spec.method !== method) continue;
    const match = route.pattern.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    route.names.forEach((name, i) => (params[name] = decodeURIComponent(match[i + 1]!)));
    return { spec: route.spec, params };
  }
  return null;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is read and dropped, so the client still gets its 413.
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** What an API Gateway HTTP API event is made of, as a client sent it. */
export interface ApiRequestParts {
  url: URL;
  /** Lower-case names, without `cookie` (the event carries cookies apart). */
  headers: Record<string, string>;
  cookies?: string[];
  sourceIp: string;
  body?: string;
  protocol?: string;
}

/**
 * The API Gateway HTTP API (payload 2.0) event of a request to `spec`'s route, as API Gateway
 * builds it: for the local adapter, for tests that invoke a handler directly, and for the
 * stand-in of the synthesized HTTP API (test/support/shipped/api-gateway.ts).
 */
export function apiGatewayEvent(spec: Pick<RouteSpec, 'method' | 'path'>, params: Record<string, string>, request: ApiRequestParts): ApiEvent {
  const { url, headers } = request;
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  const now = new Date();
  const key = routeKey(spec);
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: request.cookies,
    headers,
    queryStringParameters: url.search ? query : undefined,
    pathParameters: Object.keys(params).length ? params : undefined,
    body: request.body || undefined,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0]!,
      http: {
        method: spec.method,
        path: url.pathname,
        protocol: request.protocol ?? 'HTTP/1.1',
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
  };
}

/** The event for a Node request. */
function toApiEvent(req: IncomingMessage, url: URL, spec: RouteSpec, params: Record<string, string>, body: Buffer): ApiEvent {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  headers['x-forwarded-proto'] = 'http';
  return apiGatewayEvent(spec, params, {
    url,
    headers,
    cookies: req.headers.cookie?.split(';').map((part) => part.trim()).filter(Boolean),
    sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
    body: body.length ? body.toString('utf8') : undefined,
    protocol: `HTTP/${req.httpVersion}`,
  });
}

function lambdaContext(area: Area): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `stagedoor-${area}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:stagedoor-${area}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/stagedoor-${area}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/**
 * Serves `/api/*` with the Lambda handlers, exactly as API Gateway invokes
 * them. Returns false when the path is not under `/api/`.
 */
export async function handleApiRequest(req: IncomingMessage, res: ServerResponse, handlers: AreaHandlers): Promise<boolean> {
  let url: URL;
  let match: ReturnType<typeof matchRoute>;
  try {
    url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith('/api/')) return false;
    match = matchRoute(req.method ?? 'GET', url.pathname);
  } catch {
    // A malformed `%` escape (or URL) names no resource; API Gateway answers such requests with a 4xx too.
    send(res, 400, { error: 'Malformed request path' });
    return true;
  }
  if (!match) {
    send(res, 404, { error: 'Not found' });
    return true;
  }
  const body = await readBody(req);
  if (body === null) {
    send(res, 413, { error: 'Request body too large' });
    return true;
  }
  const result = await handlers[match.spec.area](toApiEvent(req, url, match.spec, match.params, body), lambdaContext(match.spec.area));
  const headers: Record<string, string | string[]> = { ...(result.headers as Record<string, string>) };
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'));
  return true;
}
