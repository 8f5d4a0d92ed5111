import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, S3Client, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { isEdgeResponse, loadCloudFrontFunction, sendEdgeResponse, toCloudFrontRequest, type EdgeHandler } from '../../../local/media-edge-runtime';
import { readBody } from './api-gateway';
import { matchesPattern, type Caller } from './iam';
import type { LocalStack } from './local-stack';
import { LOCAL_ACCOUNT } from './stack-values';

interface ForwardedValues {
  behavior: 'none' | 'whitelist' | 'all' | 'allExcept' | 'allViewer' | 'allViewerAndWhitelistCloudFront';
  names: string[];
}

interface Behavior {
  pattern: string;
  originId: string;
  allowedMethods: string[];
  headers: ForwardedValues;
  cookies: ForwardedValues;
  queryStrings: ForwardedValues;
  viewerRequest?: ViewerFunction;
}

interface ViewerFunction {
  id: string;
  handler: EdgeHandler;
  /** Its KeyValueStore as the stand-in holds it now (empty without one). */
  store: ReadonlyMap<string, string>;
}

/** CloudFront's managed cache policies this stack may name (their documented parameters). */
const MANAGED_CACHE_POLICIES: Record<string, { headers: ForwardedValues; cookies: ForwardedValues; queryStrings: ForwardedValues }> = {
  // CachingOptimized, CachingDisabled: nothing in the key.
  '658327ea-f89d-4fab-a63d-7e88639e58f6': { headers: none(), cookies: none(), queryStrings: none() },
  '4135ea2d-6df8-44a3-9df3-4b5a84be39ad': { headers: none(), cookies: none(), queryStrings: none() },
};

function none(): ForwardedValues {
  return { behavior: 'none', names: [] };
}

const merge = (a: ForwardedValues, b: ForwardedValues): ForwardedValues => {
  const rank = ['none', 'whitelist', 'allExcept', 'all', 'allViewer', 'allViewerAndWhitelistCloudFront'];
  const behavior = rank.indexOf(a.behavior) >= rank.indexOf(b.behavior) ? a.behavior : b.behavior;
  return { behavior, names: [...new Set([...a.names, ...b.names].map((name) => name.toLowerCase()))] };
};

const valuesOf = (config: Record<string, any> | undefined, kind: 'Header' | 'Cookie' | 'QueryString'): ForwardedValues => ({
  behavior: config?.[`${kind}Behavior`] ?? 'none',
  names: (config?.[`${kind}s`] ?? []).map((name: string) => name.toLowerCase()),
});

/**
 * The template's CloudFront distribution on a local port, as configured when CloudFormation made
 * it: behaviors by path pattern, their allowed methods, viewer-request functions (the code inlined
 * in the template, with its KeyValueStore), S3 origins read as CloudFront with Origin Access
 * Control (held to the bucket policy), and custom origins sent only what the cache and origin
 * request policies forward, plus the origin's custom headers (with `{{resolve:…}}` as CloudFormation read it).
 */
export class DistributionStandIn {
  readonly domainName: string;
  readonly arn: string;
  readonly problems: string[] = [];
  private readonly config: Record<string, any>;
  private readonly behaviors: Behavior[];
  private readonly origins: Map<string, Record<string, any>>;
  private readonly reader: Caller;
  private readonly s3: S3Client;
  private server?: Server;
  url = '';

  constructor(
    private readonly stack: LocalStack,
    readonly id: string,
    /** Where a custom origin's host is served locally (the HTTP API stand-in). */
    private readonly localOrigins: Map<string, string>,
  ) {
    const { values } = stack;
    this.domainName = values.getAtt(id, 'DomainName');
    this.arn = `arn:aws:cloudfront::${LOCAL_ACCOUNT.accountId}:distribution/${values.ref(id)}`;
    this.config = (stack.resolvedAtCreation.get(id) as { DistributionConfig: Record<string, any> }).DistributionConfig;
    this.origins = new Map((this.config.Origins as Record<string, any>[]).map((origin) => [origin.Id, origin]));
    this.behaviors = [...(this.config.CacheBehaviors ?? []), { ...this.config.DefaultCacheBehavior, PathPattern: '*' }].map((b) => this.behavior(b));
    this.reader = { name: `${id} (Origin Access Control)`, service: 'cloudfront.amazonaws.com', context: { 'aws:SourceArn': this.arn } };
    this.s3 = new S3Client({ endpoint: stack.endpoint.url, region: LOCAL_ACCOUNT.region, credentials: stack.endpoint.credentialsFor(this.reader), forcePathStyle: true });
  }

  /** The viewer-request function of the behavior that serves `path`. */
  viewerRequestFunction(path: string): { functionId: string; handler: EdgeHandler; store: ReadonlyMap<string, string> } {
    const behavior = this.behaviors.find((b) => matchesPattern(b.pattern, path))!;
    if (!behavior.viewerRequest) throw new Error(`the behavior of ${path} (${behavior.pattern}) runs no viewer-request function`);
    return { functionId: behavior.viewerRequest.id, ...behavior.viewerRequest };
  }

  private behavior(b: Record<string, any>): Behavior {
    const { values } = this.stack;
    const policyOf = (type: string, id: string | undefined) => values.idsOf(type).find((logicalId) => values.ref(logicalId) === id);
    const cacheId = policyOf('AWS::CloudFront::CachePolicy', b.CachePolicyId);
    const cacheParams = cacheId
      ? (values.resolve(values.resource(cacheId).Properties) as any).CachePolicyConfig.ParametersInCacheKeyAndForwardedToOrigin
      : undefined;
    const managed = b.CachePolicyId ? MANAGED_CACHE_POLICIES[b.CachePolicyId] : undefined;
    if (b.CachePolicyId && !cacheId && !managed) this.problems.push(`behavior ${b.PathPattern}: cache policy ${b.CachePolicyId} is neither in the template nor known to verify:shipped`);
    const requestId = policyOf('AWS::CloudFront::OriginRequestPolicy', b.OriginRequestPolicyId);
    if (b.OriginRequestPolicyId && !requestId) this.problems.push(`behavior ${b.PathPattern}: origin request policy ${b.OriginRequestPolicyId} is not in the template (managed policies are not modelled)`);
    const originRequest = requestId ? (values.resolve(values.resource(requestId).Properties) as any).OriginRequestPolicyConfig : undefined;
    const association = (b.FunctionAssociations ?? []).find((f: { EventType: string }) => f.EventType === 'viewer-request');
    return {
      pattern: b.PathPattern,
      originId: b.TargetOriginId,
      allowedMethods: b.AllowedMethods ?? ['GET', 'HEAD'],
      headers: merge(managed?.headers ?? valuesOf(cacheParams?.HeadersConfig, 'Header'), valuesOf(originRequest?.HeadersConfig, 'Header')),
      cookies: merge(managed?.cookies ?? valuesOf(cacheParams?.CookiesConfig, 'Cookie'), valuesOf(originRequest?.CookiesConfig, 'Cookie')),
      queryStrings: merge(managed?.queryStrings ?? valuesOf(cacheParams?.QueryStringsConfig, 'QueryString'), valuesOf(originRequest?.QueryStringsConfig, 'QueryString')),
      ...(association ? { viewerRequest: this.viewerFunction(association.FunctionARN) } : {}),
    };
  }

  private viewerFunction(arn: string): ViewerFunction {
    const { values, endpoint } = this.stack;
    const id = values.idsOf('AWS::CloudFront::Function').find((logicalId) => values.getAtt(logicalId, 'FunctionARN') === arn);
    if (!id) throw new Error(`distribution ${this.id}: function ${arn} is not in the template`);
    const p = values.resolve(values.resource(id).Properties) as Record<string, any>;
    const kvsArn = p.FunctionConfig?.KeyValueStoreAssociations?.[0]?.KeyValueStoreARN;
    const store = kvsArn ? endpoint.keyValueStores.entries(kvsArn) : new Map<string, string>();
    return { id, handler: loadCloudFrontFunction(p.FunctionCode, store), store };
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.s3.destroy();
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', `https://${this.domainName}`);
      const behavior = this.behaviors.find((b) => matchesPattern(b.pattern, url.pathname))!;
      const method = req.method ?? 'GET';
      if (!behavior.allowedMethods.includes(method)) {
        return void res.writeHead(403, { 'content-type': 'text/html', server: 'CloudFront' }).end('This distribution is not configured to allow the HTTP request method that was used for this request.');
      }
      let uri = url.pathname === '/' && this.config.DefaultRootObject ? `/${this.config.DefaultRootObject}` : url.pathname;
      let search = url.search;
      if (behavior.viewerRequest) {
        const request = { ...toCloudFrontRequest(req, url), cookies: {} };
        const viewer = { ip: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '') };
        const context = { distributionDomainName: this.domainName, distributionId: this.stack.values.ref(this.id), eventType: 'viewer-request', requestId: randomUUID() };
        const result = await behavior.viewerRequest.handler({ version: '1.0', context, viewer, request } as never);
        if (isEdgeResponse(result)) return sendEdgeResponse(res, result);
        uri = result.uri;
        const query = Object.entries(result.querystring ?? {}).flatMap(([name, v]) => (v.multiValue ?? [v]).map((item) => `${encodeURIComponent(name)}=${encodeURIComponent(item.value)}`));
        search = query.length ? `?${query.join('&')}` : '';
      }
      const origin = this.origins.get(behavior.originId);
      if (!origin) throw new Error(`behavior ${behavior.pattern} targets origin ${behavior.originId}, which the distribution lacks`);
      if (origin.S3OriginConfig) return await this.fromBucket(res, origin, method, uri);
      await this.fromCustomOrigin(req, res, origin, behavior, method, `${uri}${forwardedQuery(search, behavior.queryStrings)}`);
    } catch (error) {
      this.problems.push(`distribution stand-in: ${(error as Error).stack}`);
      res.writeHead(502, { 'content-type': 'text/plain' }).end('Bad gateway');
    }
  }

  /** S3 through Origin Access Control: CloudFront signs as itself, the bucket policy decides. */
  private async fromBucket(res: ServerResponse, origin: Record<string, any>, method: string, uri: string): Promise<void> {
    if (!origin.OriginAccessControlId) this.problems.push(`origin ${origin.Id}: an S3 origin without Origin Access Control reads the bucket anonymously`);
    const bucket = String(origin.DomainName).replace(/\.s3\.[^.]*\.?amazonaws\.com$/, '').replace(/\.s3\.amazonaws\.com$/, '');
    let object: GetObjectCommandOutput;
    try {
      object = await this.s3.send(new GetObjectCommand({ Bucket: bucket, Key: decodeURIComponent(uri.slice(1)) }));
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 500;
      return void res.writeHead(status, { 'content-type': 'application/xml', server: 'AmazonS3' }).end(`<Error><Code>${(error as Error).name}</Code></Error>`);
    }
    const body = Buffer.from(await object.Body!.transformToByteArray());
    res.writeHead(200, {
      'content-type': object.ContentType ?? 'application/octet-stream',
      'content-length': body.length,
      ...(object.CacheControl ? { 'cache-control': object.CacheControl } : {}),
      ...(object.ETag ? { etag: object.ETag } : {}),
    });
    res.end(method === 'HEAD' ? undefined : body);
  }

  /** A custom origin gets what the policies forward, CloudFront's own headers and the origin's custom headers. */
  private async fromCustomOrigin(req: IncomingMessage, res: ServerResponse, origin: Record<string, any>, behavior: Behavior, method: string, path: string): Promise<void> {
    const local = this.localOrigins.get(origin.DomainName);
    if (!local) throw new Error(`origin ${origin.Id} (${origin.DomainName}) has no local stand-in`);
    const headers: Record<string, string> = {};
    const viewerIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!.toLowerCase();
      const value = req.rawHeaders[i + 1]!;
      // Always forwarded (CloudFront's header table): the body's type and length; Authorization on methods with a body.
      const always = ['content-type', 'content-length'].includes(name) || (name === 'authorization' && !['GET', 'HEAD', 'OPTIONS'].includes(method));
      const byPolicy = name === 'cookie' ? forwardedCookies(value, behavior.cookies) : forwards(behavior.headers, name) ? value : undefined;
      const forwarded = always ? value : byPolicy;
      if (forwarded !== undefined && name !== 'host') headers[name] = headers[name] ? `${headers[name]}, ${forwarded}` : forwarded;
    }
    if (forwards(behavior.headers, 'cloudfront-viewer-address')) headers['cloudfront-viewer-address'] = `${viewerIp}:${req.socket.remotePort}`;
    headers['user-agent'] = forwards(behavior.headers, 'user-agent') ? (headers['user-agent'] ?? '') : 'Amazon CloudFront';
    headers['x-forwarded-for'] = viewerIp;
    headers.via = `2.0 ${randomUUID().replace(/-/g, '').slice(0, 16)}.cloudfront.net (CloudFront)`;
    headers['x-amz-cf-id'] = randomUUID();
    for (const { HeaderName, HeaderValue } of origin.OriginCustomHeaders ?? []) headers[HeaderName.toLowerCase()] = HeaderValue;
    const body = await readBody(req);
    await new Promise<void>((resolve, reject) => {
      const upstream = httpRequest(`${local}${origin.OriginPath ?? ''}${path}`, { method, headers: { ...headers, host: origin.DomainName } }, (answer) => {
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !['connection', 'transfer-encoding'].includes(name)) out[name] = value;
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
        answer.on('end', resolve);
      });
      upstream.on('error', reject);
      upstream.end(body.length ? body : undefined);
    });
  }
}

function forwards(values: ForwardedValues, name: string): boolean {
  switch (values.behavior) {
    case 'all':
    case 'allViewer':
      return !name.startsWith('cloudfront-');
    case 'allViewerAndWhitelistCloudFront':
      return !name.startsWith('cloudfront-') || values.names.includes(name);
    case 'allExcept':
      return !values.names.includes(name);
    case 'whitelist':
      return values.names.includes(name);
    default:
      return false;
  }
}

function forwardedCookies(header: string, cookies: ForwardedValues): string | undefined {
  const kept = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part && forwards(cookies, part.slice(0, part.indexOf('=')).toLowerCase()));
  return kept.length ? kept.join('; ') : undefined;
}

function forwardedQuery(search: string, queryStrings: ForwardedValues): string {
  const kept = [...new URLSearchParams(search)].filter(([name]) => forwards(queryStrings, name.toLowerCase()));
  return kept.length ? `?${new URLSearchParams(kept)}` : '';
}
