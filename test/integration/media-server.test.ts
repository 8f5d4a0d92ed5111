import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { SESSION_TIMEOUT_SECONDS, type AppConfig } from '../../functions/domain/config';
import { setCodeRevoked } from '../../functions/domain/codes';
import { setEventActive } from '../../functions/domain/codes';
import { signPlaybackToken } from '../../functions/domain/access';
import { endSession } from '../../functions/domain/access';
import type { Stores } from '../../functions/compose/stores';
import { validateCode } from '../../functions/domain/access';
import type { AccessDeps } from '../../functions/compose/stores';
import { startEdgeSync, type LocalEdge } from '../../local/edge-sync-triggers';
import { edgeSyncOn, HARNESS_WATERMARK_SECRET } from '../../harness/edge-sync-on';
import { markBit, markKeyOf } from '../../functions/domain/watermark';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../local/embedded-dynamodb';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';
import { startMediaServer, type MediaServer } from '../../local/media-server';
import { sampleCode, sampleEvent } from '../support/store-records';
import { actor } from '../support/domain-fixture';
import { updateEvent } from '../../functions/domain/events';

/**
 * The media server as `npm start` runs it: real embedded S3, and the edge's store filled by
 * edge-sync from the embedded DynamoDB's stream. The test changes access through the domain's use
 * cases on that table, as the API does, and watches the edge follow.
 */
const BUCKET = 'stagedoor-media';
const TABLE = 'stagedoor';
const secret = new Uint8Array(randomBytes(32));
const signingKeys = { activeKid: 'k1', keys: new Map([['k1', secret]]) };
const SEGMENT = Buffer.from('segment-bytes-'.repeat(100));

let s3: EmbeddedS3;
let s3Client: S3Client;
let dynamo: EmbeddedDynamo;
let stores: Stores;
let deps: AccessDeps;
let edge: LocalEdge;
let media: MediaServer;

const put = (key: string, body: string | Buffer) => s3Client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));

/** An event with a manifest and two segments, and a viewer watching it with a code of its own. */
async function show() {
  const event = sampleEvent();
  await stores.events.createEvent(event);
  const code = sampleCode(event.id);
  await stores.codes.createCode(code);
  await put(`streams/${event.id}/index.m3u8`, '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg-00000.ts\n');
  await put(`streams/${event.id}/seg-00000.ts`, SEGMENT);
  await put(`streams/${event.id}/seg-00001.ts`, SEGMENT);
  const { playbackToken } = await validateCode(deps, { code: code.code, ip: '198.51.100.7', playbackBaseUrl: media.url });
  const session = (await stores.codes.getCode(code.code))!.session!;
  return { event, code, token: playbackToken, sessionId: session.id, manifest: `/streams/${event.id}/index.m3u8` };
}

const get = (path: string, jwt?: string, init: RequestInit = {}) =>
  fetch(`${media.url}${path}`, { ...init, headers: { ...(jwt ? { authorization: `Bearer ${jwt}` } : {}), ...init.headers } });
const status = async (path: string, jwt: string) => (await get(path, jwt)).status;
const health = async () => (await fetch(`${media.url}/health`)).json();

beforeAll(async () => {
  s3 = await startEmbeddedS3({ buckets: [BUCKET] });
  s3Client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  dynamo = await startEmbeddedDynamo({ tableName: TABLE });
  stores = dynamoStores(
    dynamoDocumentClient({ region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, endpoints: { dynamodb: dynamo.endpoint } }),
    TABLE,
  );
  const config: AppConfig = {
    playbackBaseUrl: null,
    mediaPort: 4000,
    ingestRtmpUrl: null,
    ingestRtmpPort: 1935,
    segmentSeconds: 1,
    signingKeys,
    internalApiKey: '',
    originVerifySecret: null,
    watermarkSecret: HARNESS_WATERMARK_SECRET,
    siteOrigin: null,
    sessionTimeoutSeconds: SESSION_TIMEOUT_SECONDS,
  };
  deps = { stores, config, now: () => new Date() };
  edge = startEdgeSync({ stream: dynamo.stream, compose: edgeSyncOn(stores.codes, signingKeys, stores.events), log: () => {} });
  media = await startMediaServer({ port: 0, bucket: BUCKET, s3Client, edge, log: () => {} });
  expect(await edge.firstSync).toBe(true);
});

afterAll(async () => {
  await media?.close();
  await edge?.stop();
  await dynamo?.close();
  await s3?.close();
});

describe('media server: delivery', () => {
  it('serves a manifest with its content type, no caching, and CORS', async () => {
    const viewer = await show();
    const response = await get(viewer.manifest, viewer.token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.text()).toContain('#EXTM3U');
  });

  it('serves a segment as immutable MPEG-TS, also for a token in the query', async () => {
    const viewer = await show();
    const response = await get(`/streams/${viewer.event.id}/seg-00000.ts?token=${viewer.token}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('video/mp2t');
    expect(response.headers.get('cache-control')).toContain('immutable');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(SEGMENT);
  });

  it('answers HEAD without a body', async () => {
    const viewer = await show();
    const response = await get(`/streams/${viewer.event.id}/seg-00000.ts`, viewer.token, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(SEGMENT.length));
    expect(await response.text()).toBe('');
  });

  it('404 for a missing manifest', async () => {
    const viewer = await show();
    const response = await get(`/streams/${viewer.event.id}/missing.m3u8`, viewer.token);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'Not found' });
  });

  it('401 without a token, 403 for a token of another event', async () => {
    const [one, other] = [await show(), await show()];
    const anonymous = await get(one.manifest);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toBe('{"error":"Authorization required"}');
    const otherEvent = await get(other.manifest, one.token);
    expect(otherEvent.status).toBe(403);
    expect(await otherEvent.json()).toEqual({ error: 'Access denied' });
  });

  it('answers the player\'s CORS preflight', async () => {
    const viewer = await show();
    const response = await get(viewer.manifest, undefined, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:3000', 'access-control-request-headers': 'authorization' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
  });
});

describe('media server: the edge follows the table through edge-sync', () => {
  it('revoke denies, unrevoke allows again', async () => {
    const viewer = await show();
    expect(await status(viewer.manifest, viewer.token)).toBe(200);
    await setCodeRevoked(deps, actor(), viewer.code.id, true);
    await expect.poll(() => status(viewer.manifest, viewer.token)).toBe(403);
    await setCodeRevoked(deps, actor(), viewer.code.id, false);
    await expect.poll(() => status(viewer.manifest, viewer.token)).toBe(200);
  });

  it('a deactivated event denies every token for it, a reactivated one lets them in again', async () => {
    const viewer = await show();
    await setEventActive(deps, viewer.event.id, false);
    await expect.poll(() => status(viewer.manifest, viewer.token)).toBe(403);
    await setEventActive(deps, viewer.event.id, true);
    await expect.poll(() => status(viewer.manifest, viewer.token)).toBe(200);
  });

  it('a session an organiser ended is denied, while the code itself still works', async () => {
    const viewer = await show();
    await endSession(deps, actor(), viewer.event.id, { code: viewer.code.code, sessionId: viewer.sessionId });
    await expect.poll(() => status(viewer.manifest, viewer.token)).toBe(403);
    const again = await validateCode(deps, { code: viewer.code.code, ip: '198.51.100.7', playbackBaseUrl: media.url });
    expect(await status(viewer.manifest, again.playbackToken)).toBe(200);
  });

  it('a country rule set, changed and dropped during the show reaches the edge within 10 s, as one entry; deleting the event removes it', async () => {
    const viewer = await show();
    const from = (country: string | null) => get(viewer.manifest, viewer.token, { headers: country ? { 'cloudfront-viewer-country': country } : {} }).then((r) => r.status);
    /** Milliseconds until the edge answers `expected`, polled every 20 ms; fails past 10 s. */
    const reaches = async (country: string | null, expected: number) => {
      const start = Date.now();
      while ((await from(country)) !== expected) {
        if (Date.now() - start > 10_000) throw new Error(`${country}: not ${expected} within 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return Date.now() - start;
    };
    expect(await from('RU')).toBe(200);
    const entriesBefore = edge.entries.size;

    await updateEvent(deps, actor(), viewer.event.id, { geo: { allow: ['FR', 'BE'] } });
    const allowMs = await reaches('DE', 403);
    expect(await from('FR')).toBe(200);
    expect(await from(null)).toBe(403);
    expect(edge.entries.get(`g:${viewer.event.id}`)).toBe('a:BE,FR');
    expect(edge.entries.size).toBe(entriesBefore + 1);

    await updateEvent(deps, actor(), viewer.event.id, { geo: { deny: ['RU'] } });
    await reaches('RU', 403);
    expect(await from('DE')).toBe(200);
    expect(await from(null)).toBe(200);

    // A fresh reconciliation (a cold start, the schedule) writes the rule from the table as well.
    const cold = startEdgeSync({ stream: dynamo.stream, compose: edgeSyncOn(stores.codes, signingKeys, stores.events), log: () => {} });
    try {
      expect(await cold.firstSync).toBe(true);
      expect(cold.entries.get(`g:${viewer.event.id}`)).toBe('d:RU');
    } finally {
      await cold.stop();
    }

    await updateEvent(deps, actor(), viewer.event.id, { geo: null });
    await reaches('RU', 200);
    expect(edge.entries.has(`g:${viewer.event.id}`)).toBe(false);

    await updateEvent(deps, actor(), viewer.event.id, { geo: { deny: ['RU'] } });
    await reaches('RU', 403);
    await stores.events.deleteEvent(viewer.event.id, new Date().toISOString());
    await expect.poll(() => edge.entries.has(`g:${viewer.event.id}`)).toBe(false);
    console.log(`geo rule → edge: ${allowMs} ms`);
  });

  it('serves each session of a watermarked event its A or B of a .w.ts segment, read and cached under the rewritten URI; .a.ts/.b.ts refused', async () => {
    const viewer = await show();
    const id = viewer.event.id;
    const other = sampleCode(id);
    await stores.codes.createCode(other);
    const second = await validateCode(deps, { code: other.code, ip: '198.51.100.8', playbackBaseUrl: media.url });
    const secondSession = (await stores.codes.getCode(other.code))!.session!.id;
    const body = (index: number, version: 'a' | 'b') => Buffer.from(`segment ${index} version ${version} `.repeat(40));
    for (let index = 0; index < 16; index++) {
      for (const version of ['a', 'b'] as const) await put(`streams/${id}/pub1_${String(index).padStart(5, '0')}.${version}.ts`, body(index, version));
    }
    const segment = (index: number) => `/streams/${id}/pub1_${String(index).padStart(5, '0')}.w.ts`;
    const read = async (path: string, jwt: string) => Buffer.from(await (await get(path, jwt)).arrayBuffer());

    // Not watermarked yet: no w: entry, so a .w.ts is refused (fail closed).
    expect(await status(segment(0), viewer.token)).toBe(403);
    await updateEvent(deps, actor(), id, { watermark: true });
    await expect.poll(() => edge.entries.get(`w:${id}`), { timeout: 10_000 }).toBe(markKeyOf(HARNESS_WATERMARK_SECRET, id).toString('base64url'));

    const key = markKeyOf(HARNESS_WATERMARK_SECRET, id);
    const versionOf = (sessionId: string, index: number) => (markBit(key, sessionId, { part: 'pub1', index }) === 0 ? 'a' : 'b');
    for (let index = 0; index < 16; index++) expect(await read(segment(index), viewer.token)).toEqual(body(index, versionOf(viewer.sessionId, index)));
    // A segment the two sessions get in different versions: the first read cached one version, the second viewer gets the other.
    const split = Array.from({ length: 16 }, (_, index) => index).find((index) => versionOf(viewer.sessionId, index) !== versionOf(secondSession, index))!;
    expect(split).toBeDefined();
    expect(await read(segment(split), second.playbackToken)).toEqual(body(split, versionOf(secondSession, split)));
    expect(await read(segment(split), viewer.token)).toEqual(body(split, versionOf(viewer.sessionId, split)));

    expect(await status(`/streams/${id}/pub1_00000.a.ts`, viewer.token)).toBe(403);
    expect(await status(`/streams/${id}/pub1_00000.b.ts`, viewer.token)).toBe(403);

    // Turned off, the marked parts still play: the entry stays until the event is deleted.
    await updateEvent(deps, actor(), id, { watermark: false });
    expect(await read(segment(1), viewer.token)).toEqual(body(1, versionOf(viewer.sessionId, 1)));
    expect(edge.entries.has(`w:${id}`)).toBe(true);
    await stores.events.deleteEvent(id, new Date().toISOString());
    await expect.poll(() => edge.entries.has(`w:${id}`), { timeout: 10_000 }).toBe(false);
  });

  it('counts what the edge denies, and reports it in step', async () => {
    const viewer = await show();
    const before = (await health()).revocationCacheSize;
    await setCodeRevoked(deps, actor(), viewer.code.id, true);
    await expect.poll(async () => (await health()).revocationCacheSize).toBe(before + 1);
    expect(await health()).toEqual({ status: 'ok', mode: 'validating', revocationCacheSize: before + 1, lastSyncAgoSeconds: 0 });
  });
});

describe('media server: health and cache', () => {
  it('reports status, mode, revocation cache size and sync age', async () => {
    const response = await fetch(`${media.url}/health`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      status: 'ok',
      mode: 'validating',
      revocationCacheSize: expect.any(Number),
      lastSyncAgoSeconds: expect.any(Number),
    });
    expect(Number.isInteger(body.lastSyncAgoSeconds)).toBe(true);
  });

  it('serves a cached segment until the event\'s cache is cleared', async () => {
    const viewer = await show();
    const segment = `/streams/${viewer.event.id}/seg-00001.ts`;
    expect((await get(segment, viewer.token)).status).toBe(200);
    await s3Client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: segment.slice(1) }));
    expect((await get(segment, viewer.token)).status).toBe(200);

    const clear = await fetch(`${media.url}/admin/cache/${viewer.event.id}`, { method: 'DELETE' });
    expect(clear.status).toBe(200);
    expect(await clear.json()).toEqual({ cleared: true });
    expect((await get(segment, viewer.token)).status).toBe(404);
  });

  it('lets no page of another site clear a cache: the preflight allows no DELETE, a browser\'s DELETE is refused', async () => {
    const preflight = await fetch(`${media.url}/admin/cache/evt-a`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'DELETE' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods') ?? '').not.toContain('DELETE');
    const streams = await fetch(`${media.url}/streams/evt-a/index.m3u8`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(streams.headers.get('access-control-allow-methods') ?? '').not.toContain('DELETE');
    const fromPage = await fetch(`${media.url}/admin/cache/evt-a`, { method: 'DELETE', headers: { origin: 'https://evil.example' } });
    expect(fromPage.status).toBe(403);
    expect(fromPage.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('says stale, and how far behind, when the edge lags the table', async () => {
    const lagging = await startMediaServer({
      port: 0, bucket: BUCKET, s3Client, log: () => {},
      edge: { entries: edge.entries, syncedUpTo: () => Date.now() - 12_000 },
    });
    try {
      expect(await (await fetch(`${lagging.url}/health`)).json()).toMatchObject({ status: 'stale', lastSyncAgoSeconds: 12 });
    } finally {
      await lagging.close();
    }
  });

  it('denies media (503) until edge-sync filled the store once', async () => {
    const failing = { accessChangesSince: async () => Promise.reject(new Error('table unreachable')) };
    const coldEdge = startEdgeSync({ stream: dynamo.stream, compose: edgeSyncOn(failing, signingKeys), startupWaitMs: 0, log: () => {} });
    const cold = await startMediaServer({ port: 0, bucket: BUCKET, s3Client, edge: coldEdge, log: () => {} });
    try {
      expect(await coldEdge.firstSync).toBe(false);
      const { token } = await signPlaybackToken({ code: 'CODE1', eventId: 'evt-a', sessionId: 'sid-1' }, signingKeys, new Date());
      const response = await fetch(`${cold.url}/streams/evt-a/index.m3u8`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: 'Revocation state not loaded yet' });
      expect((await (await fetch(`${cold.url}/health`)).json()).status).toBe('starting');
    } finally {
      await cold.close();
      await coldEdge.stop();
    }
  });
});
