import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { routeTable, type RouteSpec } from '../../functions/http/route-table';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { dynamoWriteGuard, type DynamoWriteGuard } from '../support/dynamo-write-guard';
import { call } from '../../harness/http';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';

/**
 * A read never writes: every GET route of the route table, served by the shipped handlers, answers
 * while the table refuses every write. The data is there to make each route do its whole work: an
 * event with codes (one watched), a live session, a revoked code, a session that timed out in the
 * live-sessions listing, an audit trail, a publish lease whose ingest died (run out, not released),
 * and a background job halfway through.
 */
let api: ApiHarness;
let guard: DynamoWriteGuard;
/** The media bucket the watermark route reads the recording index from. */
let s3: EmbeddedS3;
let eventId: string;
let jobId: string;
let watchedId: string;
let cookie: string;
/** A buyer's checkout, not paid yet: its status route reads the checkout and looks for its order. */
const sessionId = 'cs_test_readsonly';

beforeAll(async () => {
  guard = dynamoWriteGuard();
  s3 = await startEmbeddedS3({ buckets: ['stagedoor-media'] });
  api = await startApi({ MEDIA_BUCKET: 'stagedoor-media' }, { dynamoVia: guard.via, s3Endpoint: s3.endpoint });
  cookie = await api.login();
  const now = Date.now();
  const event = await api.admin('POST', '/api/admin/events', {
    title: 'Reads only',
    startsAt: new Date(now - 3_600_000).toISOString(),
    endsAt: new Date(now + 3_600_000).toISOString(),
  });
  eventId = event.body.id;
  const [watched, revoked, forgotten] = (await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 3, label: 'reads' })).body.tokens;
  watchedId = watched.id;
  expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code: watched.code } })).status).toBe(200);
  expect((await api.admin('PATCH', `/api/admin/tokens/${revoked.id}/revoke`)).status).toBe(200);

  const stores = dynamoStores(dynamoDocumentClient(api.wiring.aws), api.wiring.config.tableName);
  // A laptop closed mid-show: its session stopped heartbeating long ago and was never released.
  const long = new Date(now - 600_000).toISOString();
  await stores.codes.claimSession({
    code: forgotten.code,
    expectedRevision: 0,
    session: { id: 'closed-laptop', startedAt: long, heartbeatAt: long },
    endedSessions: [],
    toEdge: false,
    redeemed: null,
    now: long,
  });
  // An ingest that died a minute ago: its lease ran out without a release.
  await stores.events.acquireStreamLease(eventId, { holder: 'dead-ingest', now: new Date(now - 75_000).toISOString(), expiresAt: new Date(now - 60_000).toISOString() });
  // A generation job one step in (its worker is not part of this test: the record is what the reads show).
  jobId = 'readsonlyjob00000001';
  await stores.jobs.createJob({
    id: jobId,
    kind: 'generate-codes',
    eventId,
    status: 'running',
    done: 1000,
    total: 2000,
    createdAt: new Date(now - 5_000).toISOString(),
    startedAt: new Date(now - 4_000).toISOString(),
    finishedAt: null,
    error: null,
    result: null,
    params: { count: 2000, label: 'reads' },
    secret: 'c2VjcmV0',
    lanes: [
      { step: 1, finished: true, cursor: null, error: null, failed: false },
      { step: 0, finished: false, cursor: null, error: null, failed: false },
    ],
    startedBy: { actor: 'admin', clientIp: '127.0.0.1' },
    endAudited: null,
  });

  await stores.orders.createCheckout({ sessionId, eventId, email: 'reader@example.com', quantity: 1, status: 'held', createdAt: long, updatedAt: long });

  guard.refuseWrites();
});

afterAll(async () => {
  await api?.close();
  await guard?.close();
  await s3?.close();
});

/** What a caller of the route sends: its path with the seeded ids, the query it needs, its credential. */
function requestOf(route: RouteSpec): { url: string; headers: Record<string, string> } {
  // `{id}` is an event's, except under /tokens/, where it is a code's.
  const path = route.path.replace('{id}', route.path.startsWith('/api/admin/tokens/') ? watchedId : eventId).replace('{jobId}', jobId).replace('{sessionId}', sessionId);
  const query = route.path === '/api/revocations' ? `?since=${encodeURIComponent(new Date(0).toISOString())}` : '';
  const headers: Record<string, string> =
    route.guard === 'admin' ? { cookie } : route.guard === 'internal' ? { 'x-internal-api-key': api.internalApiKey } : {};
  return { url: `${api.url}${path}${query}`, headers };
}

describe('GET routes', () => {
  const gets = routeTable.filter((route) => route.method === 'GET');

  it.each(gets.map((route) => [`${route.method} ${route.path}`, route] as const))('%s answers without writing', async (_name, route) => {
    const { url, headers } = requestOf(route);
    guard.refused.length = 0;
    const res = await call('GET', url, { headers });
    expect(res.status, res.text).toBe(200);
    expect(guard.refused).toEqual([]);
  });

  it('tells a show whose ingest died as `recording`: the sweep, not the read, finalizes it', async () => {
    guard.refused.length = 0;
    const res = await call('GET', `${api.url}/api/events/${eventId}/status`);
    expect(res.body).toMatchObject({ eventId, status: 'recording' });
    expect(guard.refused).toEqual([]);
  });

  it('covers every GET route of the table', () => {
    expect(gets.map((route) => route.path)).toContain('/api/events/{id}/status');
    expect(gets.every((route) => !/\{(?!id\}|jobId\}|sessionId\})/.test(route.path))).toBe(true);
  });
});
