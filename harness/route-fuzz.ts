/**
 * Property-based requests over the whole route table (fast-check), sent as
 * raw HTTP to the API as `npm start` serves it (the local adapter in front of
 * the shipped handlers). Shared by the bounded test in `npm test` and the
 * 10,000-case run in bench/.
 */
import { request as httpRequest } from 'node:http';
import * as fc from 'fast-check';
import { routeTable, type RouteSpec } from '../functions/http/route-table';
import { startEmbeddedS3 } from '../local/embedded-s3';
import { createJobQueues } from '../local/job-queues';
import { startApi } from './api-harness';
import { httpServer } from './http-server';

export interface FuzzTargets {
  url: string;
  /** A valid admin cookie (`name=value`). */
  cookie: string;
  internalApiKey: string;
  /** Ids and names that exist, so some cases get past the lookups. */
  eventId: string;
  tokenId: string;
  username: string;
}

/**
 * What the fuzz aims at: the API on the embedded DynamoDB, with an event and a code that exist and a
 * signed-in admin. The admin's "clear media cache" needs the media server's admin endpoint: a stub that says yes;
 * starting a job needs the jobs queue (on the embedded SQS; no worker runs its steps), and an export
 * its bucket (on the embedded S3).
 */
export async function startFuzzTarget(): Promise<{ targets: FuzzTargets; close(): Promise<void> }> {
  const mediaAdmin = await httpServer((_body, _req, res) => res.writeHead(204).end());
  const aws = await startEmbeddedS3({ buckets: ['fuzz-exports'] });
  const { queueUrl } = await createJobQueues(aws.endpoint);
  const api = await startApi(
    {
      MEDIA_ADMIN_URL: mediaAdmin.url,
      JOBS_QUEUE_URL: queueUrl,
      EXPORT_BUCKET: 'fuzz-exports',
      ORDER_WEBHOOK_SECRET: 'a secret the fuzz never signs with',
      STRIPE_WEBHOOK_SECRET: 'whsec_the_fuzz_never_signs_with',
      // Its event is not on sale: a checkout is refused before it would reach Stripe (nothing listens here).
      STRIPE_SECRET_KEY: 'sk_test_the_fuzz_never_reaches_stripe',
      STRIPE_API_URL: 'http://127.0.0.1:9',
    },
    { sqsEndpoint: aws.endpoint, s3Endpoint: aws.endpoint },
  );
  const event = (
    await api.admin('POST', '/api/admin/events', {
      title: 'Fuzz',
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    })
  ).body;
  const token = (await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1 })).body.tokens[0];
  const username = 'fuzz.staff';
  await api.admin('POST', '/api/admin/accounts', { username, role: 'box-office', password: 'a fuzzing password' });
  return {
    targets: { url: api.url, cookie: await api.login('127.0.0.252'), internalApiKey: api.internalApiKey, eventId: event.id, tokenId: token.id, username },
    async close() {
      await api.close();
      await aws.close();
      await mediaAdmin.close();
    },
  };
}

export interface FuzzRequest {
  route: RouteSpec;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface FuzzAnswer {
  status: number;
  body: string;
}

const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '..', '%', '%zz', '%E0%A4%A', '%00', '%2F', 'a/b', '😀', '\u0000', 'null', '-1', '__proto__', 'constructor'),
  fc.integer({ min: 0, max: 5000 }).map((n) => 'a'.repeat(n)),
);

/** A path parameter: real ids and login names, plausible ones, odd text; sometimes sent with raw (unescaped) `%`. */
const pathValue = (targets: FuzzTargets) =>
  fc.tuple(
    fc.oneof(
      fc.constantFrom(targets.eventId, targets.tokenId, targets.username, 'owner', 'OWNER', ' j.doe '),
      fc.stringMatching(/^[a-z0-9]{1,64}$/),
      fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,70}$/),
      oddText,
    ),
    fc.boolean(),
  ).map(([value, raw]) => (raw && /^[\x21-\x7e]*$/.test(value) && !/[/?#]/.test(value) ? value : encodeURIComponent(value)));

const jsonValue = fc.jsonValue({ maxDepth: 3 });

/** Bodies the routes expect, with odd values in them, and bodies nobody expects. */
const body = fc.oneof(
  fc.constant(undefined),
  jsonValue.map((value) => JSON.stringify(value)),
  fc
    .record(
      {
        code: oddText, password: oddText, title: oddText, startsAt: oddText, endsAt: oddText, count: fc.oneof(fc.integer(), oddText),
        label: oddText, tokenIds: fc.array(oddText, { maxLength: 5 }), live: fc.oneof(fc.boolean(), oddText),
        action: fc.constantFrom('publish', 'play', 'x'), app: fc.constantFrom('live', 'other', ''), stream_name: oddText,
        stream_key: oddText, token: oddText, remote_addr: oddText, recheck: fc.oneof(fc.boolean(), oddText),
        accessWindowHours: fc.oneof(fc.integer(), fc.double()), description: oddText,
        username: oddText, role: fc.constantFrom('owner', 'box-office', 'chef', ''), disabled: fc.oneof(fc.boolean(), oddText),
        currentPassword: oddText, newPassword: oddText, recoveryCode: oddText, requireTwoFactor: fc.oneof(fc.boolean(), oddText),
        holder: oddText, reason: fc.constantFrom('already-publishing', 'wrong-key', ''), remoteAddr: oddText, sessionId: oddText,
        keyframeIntervalSeconds: fc.oneof(fc.double(), oddText), frameRate: fc.oneof(fc.double(), oddText), segmentSeconds: fc.oneof(fc.double(), oddText),
        type: fc.constantFrom('order.paid', 'order.refunded', 'order.other', ''), orderId: oddText, eventId: oddText, email: oddText,
        quantity: fc.oneof(fc.integer(), oddText),
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
  oddText,
  fc.constantFrom('{', '[1,', '{"a":', '\u0000', '{"__proto__":{"x":1}}', 'x'.repeat(1_100_000)),
);

const headers = (targets: FuzzTargets) =>
  fc
    .record(
      {
        'content-type': fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-8', ''),
        cookie: fc.oneof(fc.constant(targets.cookie), fc.constant('stagedoor_admin=forged.jwt.value'), oddText.map((v) => `stagedoor_admin=${encodeURIComponent(v)}`)),
        'x-internal-api-key': fc.oneof(fc.constant(targets.internalApiKey), oddText.map(encodeURIComponent)),
        authorization: fc.oneof(oddText.map((v) => `Bearer ${encodeURIComponent(v)}`), fc.constant('Bearer a.b.c'), fc.constant('Basic x')),
        origin: fc.constantFrom('https://evil.example', 'null', targets.url, 'not a url'),
        'x-origin-verify': oddText.map(encodeURIComponent),
        'cloudfront-viewer-address': fc.constantFrom('203.0.113.9:1', '2001:db8::1:2', 'garbage', ''),
        'stagedoor-signature': fc.oneof(oddText.map(encodeURIComponent), fc.constant(`t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`)),
        'stripe-signature': fc.oneof(oddText.map(encodeURIComponent), fc.constant(`t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`)),
      },
      { requiredKeys: [] },
    )
    .map((picked) => Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== '')) as Record<string, string>);

export function fuzzRequests(targets: FuzzTargets): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route: fc.constantFrom(...routeTable),
      params: fc.array(pathValue(targets), { minLength: 2, maxLength: 2 }),
      query: fc.array(fc.tuple(fc.constantFrom('status', 'eventId', 'since', 'x', '%'), oddText), { maxLength: 3 }),
      headers: headers(targets),
      body,
      otherMethod: fc.constantFrom(undefined, undefined, undefined, 'GET', 'PUT', 'OPTIONS'),
    })
    .map(({ route, params, query, headers: picked, body: text, otherMethod }) => {
      let n = 0;
      const path = route.path.replace(/\{\w+\}/g, () => params[n++] ?? 'x');
      const search = query.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
      // Logout would revoke the one admin session the other cases use.
      const finalHeaders = route.path === '/api/admin/logout' ? { ...picked, cookie: 'stagedoor_admin=x' } : picked;
      return { route, method: otherMethod ?? route.method, path: search ? `${path}?${search}` : path, headers: finalHeaders, body: text };
    });
}

export function send(url: string, request: FuzzRequest): Promise<FuzzAnswer> {
  return new Promise((resolve, reject) => {
    const headers = request.body === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
    const req = httpRequest(`${url}${request.path}`, { method: request.method, headers, localAddress: randomLoopback() }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(request.body);
  });
}

/** Spreads cases over many client addresses, so the validate/login rate limits do not answer everything. */
function randomLoopback(): string {
  return `127.3.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
}

/** What every answer must be: below 500, and `{ "error": "…" }` when it is an error. */
export function contractProblem(answer: FuzzAnswer): string | null {
  if (answer.status >= 500) return `status ${answer.status}`;
  if (answer.status < 400) return null;
  try {
    const parsed = JSON.parse(answer.body) as { error?: unknown };
    return typeof parsed?.error === 'string' ? null : 'error body without an error string';
  } catch {
    return 'error body is not JSON';
  }
}
