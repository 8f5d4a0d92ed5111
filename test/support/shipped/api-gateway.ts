import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Method } from '../../../functions/http/route-table';
import { apiGatewayEvent } from '../../../local/lambda-http-adapter';
import { serviceMayInvoke } from './event-sources';
import { FunctionError } from './lambda-functions';
import type { LocalStack } from './local-stack';
import { LOCAL_ACCOUNT } from './stack-values';

/** One route of the template's HTTP API and the integration it reaches. */
export interface GatewayRoute {
  key: string;
  method: string;
  path: string;
  functionId: string;
  payloadFormat: string;
  /** How often the route answered, by status. */
  statuses: number[];
}

/** Request bodies API Gateway hands the function as text; any other content type arrives base64-encoded. */
const TEXT_TYPES = /^(text\/|application\/(json|javascript|xml|[\w.+-]+\+(json|xml))\b)/i;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The template's HTTP API (AWS::ApiGatewayV2::Api with its routes, integrations and stage) on a
 * local port: requests are matched against the routes' keys, path parameters taken from their
 * templates, and the integration's function invoked with the payload format it names, as long as
 * the function's AWS::Lambda::Permission lets API Gateway invoke it for that route. API Gateway's
 * own answers (404 without a route, 500 when the function fails) are its own.
 */
export class HttpApiStandIn {
  readonly routes: GatewayRoute[];
  readonly problems: string[] = [];
  /** `https://<api id>.execute-api.<region>.amazonaws.com`, as the template knows it. */
  readonly domainName: string;
  private server?: Server;
  url = '';

  constructor(
    private readonly stack: LocalStack,
    readonly apiId: string,
  ) {
    const { values } = stack;
    this.domainName = new URL(values.getAtt(apiId, 'ApiEndpoint')).host;
    const api = values.ref(apiId);
    const integrations = new Map(
      values.idsOf('AWS::ApiGatewayV2::Integration').filter((id) => values.resolve(values.resource(id).Properties?.ApiId) === api).map((id) => [values.ref(id), id]),
    );
    this.routes = values
      .idsOf('AWS::ApiGatewayV2::Route')
      .filter((id) => values.resolve(values.resource(id).Properties?.ApiId) === api)
      .map((id) => {
        const p = values.resolve(values.resource(id).Properties) as Record<string, string>;
        if ((p.AuthorizationType ?? 'NONE') !== 'NONE') throw new Error(`route ${p.RouteKey} uses authorizer type ${p.AuthorizationType}: verify:shipped has no stand-in for it`);
        const integrationId = integrations.get(String(p.Target).replace(/^integrations\//, ''));
        if (!integrationId) throw new Error(`route ${p.RouteKey} targets ${p.Target}, which is no integration of the API`);
        const integration = values.resolve(values.resource(integrationId).Properties) as Record<string, string>;
        if (integration.IntegrationType !== 'AWS_PROXY') throw new Error(`route ${p.RouteKey}: integration type ${integration.IntegrationType} is not run by verify:shipped`);
        const functionId = stack.lambda.idOf(integration.IntegrationUri!);
        if (!functionId) throw new Error(`route ${p.RouteKey}: integration URI ${integration.IntegrationUri} is not a function of the template`);
        const [method, path] = p.RouteKey!.split(' ');
        return { key: p.RouteKey!, method: method!, path: path ?? '', functionId, payloadFormat: integration.PayloadFormatVersion ?? '1.0', statuses: [] };
      });
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  /** The route API Gateway picks: exact path templates before greedy ones, `$default` last. */
  private match(method: string, path: string): { route: GatewayRoute; params: Record<string, string> } | undefined {
    const candidates = this.routes.filter((route) => route.method === method || route.method === 'ANY');
    for (const route of candidates) {
      const names: string[] = [];
      const source = route.path.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)(\+?)\}/g, (_, name: string, greedy: string) => {
        names.push(name);
        return greedy ? '(.+)' : '([^/]+)';
      });
      const found = new RegExp(`^${source}$`).exec(path);
      if (found) return { route, params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1]!)])) };
    }
    const fallback = this.routes.find((route) => route.key === '$default');
    return fallback ? { route: fallback, params: {} } : undefined;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, headers: Record<string, string | string[]>, body?: Buffer | string) => void res.writeHead(status, headers).end(body);
    const apiError = (status: number, message: string) => send(status, { 'content-type': 'application/json' }, JSON.stringify({ message }));
    try {
      const url = new URL(req.url ?? '/', `https://${this.domainName}`);
      const method = req.method ?? 'GET';
      const body = await readBody(req);
      const matched = this.match(method, url.pathname);
      if (!matched) return apiError(404, 'Not Found');
      const { route, params } = matched;
      const fn = this.stack.lambda.get(route.functionId);
      const sourceArn = `arn:aws:execute-api:${LOCAL_ACCOUNT.region}:${LOCAL_ACCOUNT.accountId}:${this.stack.values.ref(this.apiId)}/$default/${route.method}${route.path}`;
      if (!(await serviceMayInvoke(this.stack.iam, 'apigateway.amazonaws.com', fn.arn, sourceArn))) {
        this.problems.push(`${route.key}: no AWS::Lambda::Permission lets API Gateway invoke ${route.functionId} (${sourceArn}): every request answers 500`);
        route.statuses.push(500);
        return apiError(500, 'Internal Server Error');
      }
      if (route.payloadFormat !== '2.0') throw new Error(`${route.key}: payload format ${route.payloadFormat} is not built by verify:shipped`);
      const event = this.event(req, url, route, params, body);
      let result: any;
      try {
        result = await this.stack.lambda.invoke(route.functionId, event);
      } catch (error) {
        if (!(error instanceof FunctionError)) throw error;
        this.problems.push(`${route.key}: ${error.message}\n${fn.logs.slice(-15).join('\n')}`);
        route.statuses.push(500);
        return apiError(500, 'Internal Server Error');
      }
      // Payload 2.0: a result without statusCode is a JSON body of 200.
      const structured = result && typeof result === 'object' && 'statusCode' in result;
      const status = structured ? Number(result.statusCode) : 200;
      const headers: Record<string, string | string[]> = structured ? { ...(result.headers ?? {}) } : { 'content-type': 'application/json' };
      if (structured && result.cookies?.length) headers['set-cookie'] = result.cookies;
      const out = structured ? (result.body === undefined ? undefined : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8')) : JSON.stringify(result);
      route.statuses.push(status);
      send(status, headers, out);
    } catch (error) {
      this.problems.push(`HTTP API stand-in: ${(error as Error).stack}`);
      apiError(500, 'Internal Server Error');
    }
  }

  /** The payload 2.0 event: what API Gateway adds to the client's request and how it encodes the body. */
  private event(req: IncomingMessage, url: URL, route: GatewayRoute, params: Record<string, string>, body: Buffer) {
    const headers: Record<string, string> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!.toLowerCase();
      if (name === 'cookie' || name === 'connection') continue;
      headers[name] = headers[name] === undefined ? req.rawHeaders[i + 1]! : `${headers[name]},${req.rawHeaders[i + 1]}`;
    }
    const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
    Object.assign(headers, {
      host: this.domainName,
      'x-forwarded-for': headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${sourceIp}` : sourceIp,
      'x-forwarded-port': '443',
      'x-forwarded-proto': 'https',
      'x-amzn-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    });
    const text = body.length === 0 || TEXT_TYPES.test(headers['content-type'] ?? '');
    const event = apiGatewayEvent({ method: route.method as Method, path: route.path }, params, {
      url,
      headers,
      cookies: req.headers.cookie?.split(';').map((part) => part.trim()).filter(Boolean),
      sourceIp,
      body: body.length ? body.toString(text ? 'utf8' : 'base64') : undefined,
      protocol: `HTTP/${req.httpVersion}`,
    });
    event.isBase64Encoded = !text;
    event.routeKey = route.key;
    Object.assign(event.requestContext, {
      accountId: LOCAL_ACCOUNT.accountId,
      apiId: this.stack.values.ref(this.apiId),
      domainName: this.domainName,
      domainPrefix: this.domainName.split('.')[0],
      routeKey: route.key,
    });
    return event;
  }
}
