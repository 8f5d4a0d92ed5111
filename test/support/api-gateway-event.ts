/** An API Gateway HTTP API (payload 2.0) event as the shipped Lambda handlers receive it, for tests that call them directly. */
export function apiGatewayEvent(routeKey: string, options: { body?: unknown; headers?: Record<string, string>; cookies?: string[]; query?: Record<string, string> } = {}) {
  const [method, path] = routeKey.split(' ') as [string, string];
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: new URLSearchParams(options.query).toString(),
    queryStringParameters: options.query,
    cookies: options.cookies,
    headers: {
      host: 'api.example.com',
      'x-forwarded-proto': 'https',
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '1',
      apiId: 'a',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '198.51.100.7', userAgent: 'test' },
      requestId: 'r',
      routeKey,
      stage: '$default',
      time: '',
      timeEpoch: 0,
    },
  };
}
