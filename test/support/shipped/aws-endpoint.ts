import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudFrontApiStandIn, escapeXml, xmlError } from './cloudfront-api';
import type { Authorization, Caller, Decision, IamModel } from './iam';
import { KeyValueStoreStandIn } from './key-value-store';
import { jsonError, SecretsManagerStandIn, type ServiceAnswer } from './secrets-manager';
import { LOCAL_ACCOUNT } from './stack-values';

export interface ServiceRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One AWS service as the endpoint serves it: what a request asks IAM for, and its answer. */
interface Service {
  operation(request: ServiceRequest): string;
  authorizations(request: ServiceRequest): Authorization[];
  answer(request: ServiceRequest): Promise<ServiceAnswer>;
  denied(message: string): ServiceAnswer;
}

/** One request a caller sent, with what IAM said to each permission it needed. */
export interface AwsCall {
  caller: Caller;
  service: string;
  operation: string;
  checks: { authorization: Authorization; decision: Decision }[];
}

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

export interface AwsEndpoint {
  /** `AWS_ENDPOINT_URL` for every SDK client of a caller. */
  url: string;
  /** The KeyValueStore client puts the account id in front of the host: a name under `localhost`. */
  hostUrl: string;
  secrets: SecretsManagerStandIn;
  keyValueStores: KeyValueStoreStandIn;
  cloudfront: CloudFrontApiStandIn;
  calls: AwsCall[];
  /** Requests no stand-in could serve: a service or operation verify:shipped does not know yet. */
  problems: string[];
  /** A queue's URL in the local account: on this endpoint, where the SDK sends a queue's requests. */
  queueUrl(name: string): string;
  /** Credentials that identify `caller` on every request it signs. */
  credentialsFor(caller: Caller): Credentials;
  /** An ECS container credentials URI (AWS_CONTAINER_CREDENTIALS_FULL_URI) handing out the caller's credentials. */
  containerCredentialsUri(caller: Caller): string;
  close(): Promise<void>;
}

/**
 * The one AWS endpoint every local caller talks to (`AWS_ENDPOINT_URL`): it reads who signed the
 * request (each role's session has its own access key) and the service from the signature's
 * scope, asks the IAM model for every permission the request needs, answers AccessDenied as AWS
 * would when one is missing, and otherwise serves it: DynamoDB, S3 and SQS by forwarding to their
 * stand-ins, Secrets Manager, the KeyValueStore API and CloudFront's invalidations itself.
 */
export async function startAwsEndpoint(options: { iam: IamModel; dynamodb: string; s3: string }): Promise<AwsEndpoint> {
  const callers = new Map<string, Caller>();
  const containerTokens = new Map<string, Caller>();
  const credentials = new Map<Caller, Credentials>();
  const calls: AwsCall[] = [];
  const problems: string[] = [];
  const secrets = new SecretsManagerStandIn();
  const keyValueStores = new KeyValueStoreStandIn();
  const cloudfront = new CloudFrontApiStandIn();
  let url = '';
  const services: Record<string, Service> = {
    dynamodb: dynamoDb(options.dynamodb),
    s3: s3(options.s3),
    sqs: sqs(options.s3, () => url),
    secretsmanager: secretsManager(secrets),
    'cloudfront-keyvaluestore': keyValueStore(keyValueStores),
    cloudfront: cloudFrontApi(cloudfront),
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const send = (answer: ServiceAnswer) => res.writeHead(answer.status, answer.headers).end(answer.body);
      try {
        const url = new URL(req.url ?? '/', 'http://aws.local');
        const token = /^\/container-credentials\/([a-f0-9]+)$/.exec(url.pathname)?.[1];
        if (token) {
          const caller = containerTokens.get(token);
          if (!caller) return send({ status: 404, body: '' });
          const c = credentials.get(caller)!;
          const expiration = new Date(Date.now() + 6 * 3600_000).toISOString();
          return send({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ AccessKeyId: c.accessKeyId, SecretAccessKey: c.secretAccessKey, Token: c.sessionToken, Expiration: expiration }) });
        }
        const request: ServiceRequest = { method: req.method ?? 'GET', url, headers: req.headers, body: Buffer.concat(chunks) };
        // Signed in the Authorization header, or in the query (a presigned URL: an export's download link).
        const signature = req.headers.authorization ?? (url.searchParams.has('X-Amz-Credential') ? `Credential=${url.searchParams.get('X-Amz-Credential')}` : '');
        const scope = /Credential=([^/,\s]+)\/\d{8}\/(?:[^/,\s]+\/)*?([^/,\s]+)\/aws4_request/.exec(String(signature));
        const service = scope ? services[scope[2]!] : undefined;
        if (!scope || !service) {
          const name = scope?.[2] ?? 'an unsigned request';
          problems.push(`no stand-in for AWS service "${name}" (${request.method} ${url.pathname} ${req.headers['x-amz-target'] ?? ''}): add one to test/support/shipped/aws-endpoint.ts`);
          return send(jsonError(501, 'NotImplemented', `verify:shipped has no stand-in for ${name}`));
        }
        const caller = callers.get(scope[1]!);
        if (!caller) return send(service.denied(`The security token included in the request is invalid (unknown access key ${scope[1]})`));
        if (presignedUrlExpired(url)) return send(service.denied('Request has expired'));
        const operation = service.operation(request);
        const call: AwsCall = { caller, service: scope[2]!, operation, checks: [] };
        calls.push(call);
        for (const authorization of service.authorizations(request)) {
          call.checks.push({ authorization, decision: await options.iam.authorize(caller, authorization) });
        }
        const refused = call.checks.find((check) => !check.decision.allowed);
        if (refused) {
          const { action, resource } = refused.authorization;
          const why = refused.decision.result === 'ExplicitlyDenied' ? 'with an explicit deny' : 'because no identity-based policy allows the action';
          return send(service.denied(`User: ${options.iam.principalArn(caller)} is not authorized to perform: ${action} on resource: ${resource} ${why}`));
        }
        const answer = await service.answer(request);
        // S3 answers a missing key with 404 only to callers who may list the bucket; the others get 403.
        if (call.service === 's3' && answer.status === 404 && ['GetObject', 'HeadObject'].includes(operation)) {
          const bucket = url.pathname.split('/')[1];
          const list = await options.iam.authorize(caller, { action: 's3:ListBucket', resource: `arn:aws:s3:::${bucket}`, context: {} });
          if (!list.allowed) return send(service.denied(`Access Denied (the key does not exist and ${options.iam.principalArn(caller)} may not list the bucket)`));
        }
        send(answer);
      } catch (error) {
        problems.push(`AWS endpoint: ${(error as Error).stack}`);
        send(jsonError(500, 'InternalFailure', String(error)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;
  const credentialsFor = (caller: Caller): Credentials => {
    let found = credentials.get(caller);
    if (!found) {
      found = { accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`, secretAccessKey: randomBytes(20).toString('base64'), sessionToken: randomBytes(32).toString('base64') };
      credentials.set(caller, found);
      callers.set(found.accessKeyId, caller);
    }
    return found;
  };
  return {
    url,
    hostUrl: `http://localhost:${port}`,
    secrets,
    keyValueStores,
    cloudfront,
    calls,
    problems,
    credentialsFor,
    queueUrl: (name) => `${url}/${accountId}/${name}`,
    containerCredentialsUri(caller) {
      credentialsFor(caller);
      const token = randomBytes(12).toString('hex');
      containerTokens.set(token, caller);
      return `${url}/container-credentials/${token}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends the request on to a stand-in server unchanged (its signature is not checked there). */
/** A presigned URL past its `X-Amz-Expires` seconds from `X-Amz-Date` (S3 answers 403). */
function presignedUrlExpired(url: URL): boolean {
  const signedAt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(url.searchParams.get('X-Amz-Date') ?? '');
  const seconds = Number(url.searchParams.get('X-Amz-Expires'));
  if (!signedAt || !seconds) return false;
  const [, year, month, day, hour, minute, second] = signedAt.map(Number) as number[];
  return Date.now() > Date.UTC(year!, month! - 1, day!, hour!, minute!, second!) + seconds * 1000;
}

function forward(target: string, request: ServiceRequest, body: Buffer = request.body): Promise<ServiceAnswer & { body: Buffer }> {
  return new Promise((resolve, reject) => {
    const { host: _host, 'content-length': _length, ...headers } = request.headers;
    const req = httpRequest(`${target}${request.url.pathname}${request.url.search}`, { method: request.method, headers: { ...headers, 'content-length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const outHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined && name !== 'transfer-encoding') outHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: res.statusCode ?? 500, headers: outHeaders, body: raw });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const { accountId, region } = LOCAL_ACCOUNT;
const tableArn = (name: string) => (name.startsWith('arn:') ? name : `arn:aws:dynamodb:${region}:${accountId}:table/${name}`);
/** DynamoDB Local names its streams in its own account and region; IAM sees the local account's ARN. */
export const localStreamArn = (arn: string) => arn.replace(/^arn:aws:dynamodb:[^:]*:[^:]*:/, `arn:aws:dynamodb:${region}:${accountId}:`);

function dynamoDb(endpoint: string): Service {
  // GetRecords names only a shard iterator: remember which stream each iterator came from.
  const iteratorStreams = new Map<string, string>();
  const parse = (request: ServiceRequest) => {
    const [prefix, operation] = String(request.headers['x-amz-target'] ?? '').split('.');
    return { streams: prefix?.startsWith('DynamoDBStreams') ?? false, operation: operation ?? '', input: JSON.parse(request.body.toString('utf8') || '{}') };
  };
  return {
    operation: (request) => parse(request).operation,
    authorizations(request) {
      const { streams, operation, input } = parse(request);
      const on = (action: string, resource: string): Authorization => ({ action: `dynamodb:${action}`, resource, context: {} });
      if (streams) {
        if (operation === 'ListStreams') return [on(operation, '*')];
        const arn = input.StreamArn ?? iteratorStreams.get(input.ShardIterator) ?? '*';
        return [on(operation, localStreamArn(arn))];
      }
      switch (operation) {
        case 'BatchGetItem':
        case 'BatchWriteItem':
          return Object.keys(input.RequestItems ?? {}).map((table) => on(operation, tableArn(table)));
        case 'TransactWriteItems':
          return (input.TransactItems ?? []).map((item: Record<string, { TableName: string }>) => {
            const [kind, spec] = Object.entries(item)[0]!;
            const action = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' }[kind] ?? kind;
            return on(action, tableArn(spec.TableName));
          });
        case 'TransactGetItems':
          return (input.TransactItems ?? []).map((item: { Get: { TableName: string } }) => on('GetItem', tableArn(item.Get.TableName)));
        case 'Query':
        case 'Scan':
          return [on(operation, input.IndexName ? `${tableArn(input.TableName)}/index/${input.IndexName}` : tableArn(input.TableName))];
        default:
          return [on(operation, tableArn(input.TableName ?? '*'))];
      }
    },
    async answer(request) {
      const { streams, input } = parse(request);
      const answer = await forward(endpoint, request);
      if (streams && answer.status === 200) {
        const output = JSON.parse(answer.body.toString('utf8') || '{}');
        const arn = input.StreamArn ?? iteratorStreams.get(input.ShardIterator);
        for (const iterator of [output.ShardIterator, output.NextShardIterator]) if (iterator && arn) iteratorStreams.set(iterator, arn);
      }
      return answer;
    },
    denied: (message) => ({ ...jsonError(400, 'com.amazon.coral.service#AccessDeniedException', message), headers: { 'content-type': 'application/x-amz-json-1.0' } }),
  };
}

function s3(endpoint: string): Service {
  const parse = (request: ServiceRequest) => {
    const [, bucket = '', ...rest] = request.url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const q = request.url.searchParams;
    const { method } = request;
    let operation: string;
    if (!key) operation = method === 'HEAD' ? 'HeadBucket' : method === 'POST' && q.has('delete') ? 'DeleteObjects' : method === 'GET' ? (q.get('list-type') === '2' ? 'ListObjectsV2' : 'ListObjects') : `${method} bucket`;
    else if (method === 'GET') operation = 'GetObject';
    else if (method === 'HEAD') operation = 'HeadObject';
    else if (method === 'DELETE') operation = q.has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
    else if (method === 'POST') operation = q.has('uploads') ? 'CreateMultipartUpload' : 'CompleteMultipartUpload';
    else if (method === 'PUT') operation = q.has('partNumber') ? 'UploadPart' : request.headers['x-amz-copy-source'] ? 'CopyObject' : 'PutObject';
    else operation = `${method} object`;
    return { bucket, key, operation };
  };
  return {
    operation: (request) => parse(request).operation,
    authorizations(request) {
      const { bucket, key, operation } = parse(request);
      const object = (action: string, objectKey = key): Authorization => ({ action: `s3:${action}`, resource: `arn:aws:s3:::${bucket}/${objectKey}`, context: {} });
      const q = request.url.searchParams;
      switch (operation) {
        case 'ListObjectsV2':
        case 'ListObjects':
        case 'HeadBucket': {
          const context: Record<string, string> = {};
          for (const [param, name] of [['prefix', 's3:prefix'], ['delimiter', 's3:delimiter'], ['max-keys', 's3:max-keys']] as const) {
            if (q.has(param)) context[name] = q.get(param)!;
          }
          return [{ action: 's3:ListBucket', resource: `arn:aws:s3:::${bucket}`, context }];
        }
        case 'GetObject':
        case 'HeadObject':
          return [object('GetObject')];
        case 'DeleteObject':
          return [object('DeleteObject')];
        case 'AbortMultipartUpload':
          return [object('AbortMultipartUpload')];
        case 'DeleteObjects':
          return [...request.body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => object('DeleteObject', m[1]!));
        case 'CopyObject': {
          const source = decodeURIComponent(String(request.headers['x-amz-copy-source'])).replace(/^\//, '');
          return [object('PutObject'), { action: 's3:GetObject', resource: `arn:aws:s3:::${source}`, context: {} }];
        }
        default:
          return [object('PutObject')];
      }
    },
    answer: (request) => forward(endpoint, request),
    denied: (message) => ({ status: 403, headers: { 'content-type': 'application/xml' }, body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>${escapeXml(message)}</Message></Error>` }),
  };
}

/**
 * SQS (JSON protocol) on fauxqs, the S3 stand-in's own SQS. fauxqs keeps its queues in its own
 * account (000000000000) at its own address; the stack's callers see them in the local account on
 * this endpoint (the queue URL is where the SDK sends a queue's requests): queue URLs and ARNs are
 * translated both ways, in requests (a redrive policy's target too) and answers.
 */
function sqs(fauxqs: string, endpointUrl: () => string): Service {
  const FAUXQS_ACCOUNT = '000000000000';
  const translations = () => ({
    url: [`${endpointUrl()}/${accountId}/`, `${fauxqs}/${FAUXQS_ACCOUNT}/`],
    arn: [`arn:aws:sqs:${region}:${accountId}:`, `arn:aws:sqs:${region}:${FAUXQS_ACCOUNT}:`],
  });
  const translate = (text: string, toFauxqs: boolean) =>
    Object.values(translations()).reduce((out, [local, theirs]) => (toFauxqs ? out.replaceAll(local!, theirs!) : out.replaceAll(theirs!, local!)), text);
  const parse = (request: ServiceRequest) => ({
    operation: String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '',
    input: JSON.parse(request.body.toString('utf8') || '{}') as { QueueUrl?: string; QueueName?: string },
  });
  // The batch operations need the permission of their single form.
  const actions: Record<string, string> = { SendMessageBatch: 'SendMessage', DeleteMessageBatch: 'DeleteMessage', ChangeMessageVisibilityBatch: 'ChangeMessageVisibility' };
  return {
    operation: (request) => parse(request).operation,
    authorizations(request) {
      const { operation, input } = parse(request);
      const name = input.QueueName ?? input.QueueUrl?.split('/').pop();
      return [{ action: `sqs:${actions[operation] ?? operation}`, resource: name ? `arn:aws:sqs:${region}:${accountId}:${name}` : '*', context: {} }];
    },
    async answer(request) {
      const body = Buffer.from(translate(request.body.toString('utf8'), true));
      const { headers: { 'content-length': _length, ...headers } = {}, ...answer } = await forward(fauxqs, request, body);
      return { ...answer, headers, body: translate(answer.body.toString('utf8'), false) };
    },
    denied: (message) => ({
      status: 403,
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': 'AccessDenied;Sender' },
      body: JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', message }),
    }),
  };
}

function secretsManager(secrets: SecretsManagerStandIn): Service {
  const parse = (request: ServiceRequest) => ({
    operation: String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '',
    input: JSON.parse(request.body.toString('utf8') || '{}') as { SecretId?: string; SecretString?: string },
  });
  return {
    operation: (request) => parse(request).operation,
    authorizations(request) {
      const { operation, input } = parse(request);
      const id = input.SecretId ?? '*';
      const arn = secrets.arnOf(id) ?? (id.startsWith('arn:') ? id : `arn:aws:secretsmanager:${region}:${accountId}:secret:${id}`);
      return [{ action: `secretsmanager:${operation}`, resource: arn, context: {} }];
    },
    answer: async (request) => {
      const { operation, input } = parse(request);
      return secrets.handle(operation, input);
    },
    denied: (message) => jsonError(400, 'AccessDeniedException', message),
  };
}

function keyValueStore(stores: KeyValueStoreStandIn): Service {
  const parse = (request: ServiceRequest) => {
    const match = /^\/key-value-stores\/([^/]+)(\/keys)?(?:\/(.+))?$/.exec(request.url.pathname);
    const arn = match ? decodeURIComponent(match[1]!) : '*';
    const { method } = request;
    const operation = !match?.[2] ? 'DescribeKeyValueStore' : match[3] ? { GET: 'GetKey', PUT: 'PutKey', DELETE: 'DeleteKey' }[method] ?? method : method === 'POST' ? 'UpdateKeys' : 'ListKeys';
    return { arn, operation };
  };
  return {
    operation: (request) => parse(request).operation,
    authorizations(request) {
      const { arn, operation } = parse(request);
      return [{ action: `cloudfront-keyvaluestore:${operation}`, resource: arn, context: {} }];
    },
    answer: async (request) =>
      stores.handle(request.method, request.url, request.headers as Record<string, string>, request.body.toString('utf8')),
    denied: (message) => ({ status: 403, headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'AccessDeniedException' }, body: JSON.stringify({ message }) }),
  };
}

function cloudFrontApi(api: CloudFrontApiStandIn): Service {
  const parse = (request: ServiceRequest) => {
    const match = /^\/2020-05-31\/distribution\/([^/]+)\/invalidation/.exec(request.url.pathname);
    return { distribution: match ? decodeURIComponent(match[1]!) : '*', operation: match && request.method === 'POST' ? 'CreateInvalidation' : `${request.method} ${request.url.pathname}` };
  };
  return {
    operation: (request) => parse(request).operation,
    authorizations(request) {
      const { distribution, operation } = parse(request);
      return [{ action: `cloudfront:${operation}`, resource: `arn:aws:cloudfront::${accountId}:distribution/${distribution}`, context: {} }];
    },
    answer: async (request) => api.handle(request.method, request.url, request.body.toString('utf8')),
    denied: (message) => xmlError(403, 'AccessDenied', message),
  };
}
