import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';
import { startMediaServer, type MediaServer } from '../../local/media-server';
import type { RevocationFeed } from '../../functions/domain/revocation-feed';
import { signPlaybackToken } from '../../functions/domain/playback-token';
import { freePort } from '../../local/free-port';

/**
 * The media server on its own: real embedded S3, and a small HTTP server
 * standing in for the API's revocation feed so the test controls what it says.
 */
const BUCKET = 'stagedoor-media';
const INTERNAL_KEY = `ik-${randomBytes(8).toString('hex')}`;
const secret = randomBytes(32);
const signingKeys = JSON.stringify({ activeKid: 'k1', keys: { k1: secret.toString('base64url') } });
const SEGMENT = Buffer.from('segment-bytes-'.repeat(100));

let s3: EmbeddedS3;
let s3Client: S3Client;
let media: MediaServer;

// The fake feed: every poll gets each subject's latest state (valid under the feed contract).
const feedState = { revoked: new Set<string>(), unrevoked: new Set<string>(), deactivated: new Set<string>(), up: true };
let feedServer: Server;
let feedUrl: string;
let feedPolls = 0;
const sinceSeen: string[] = [];

function currentFeed(): RevocationFeed {
  const at = new Date().toISOString();
  return {
    revocations: [...feedState.revoked].map((code) => ({ code, revokedAt: at })),
    unrevocations: [...feedState.unrevoked].map((code) => ({ code, unrevokedAt: at })),
    eventDeactivations: [...feedState.deactivated].map((eventId) => ({ eventId, deactivatedAt: at, tokenCodes: [] })),
    eventReactivations: [],
    endedSessions: [],
    serverTime: at,
  };
}

/** Resolves once a poll that started after now has completed: polls never overlap, so the change is applied. */
async function feedApplied(): Promise<void> {
  const target = feedPolls + 2;
  while (feedPolls < target) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function token(claims: { code?: string; eid?: string; sid?: string } = {}): Promise<string> {
  const grant = { code: claims.code ?? 'CODE1', eventId: claims.eid ?? 'evt-a', sessionId: claims.sid ?? 'sid-1' };
  const keys = { activeKid: 'k1', keys: new Map([['k1', new Uint8Array(secret)]]) };
  return (await signPlaybackToken(grant, keys, new Date())).token;
}

const get = (path: string, jwt?: string, init: RequestInit = {}) =>
  fetch(`${media.url}${path}`, { ...init, headers: { ...(jwt ? { authorization: `Bearer ${jwt}` } : {}), ...init.headers } });

beforeAll(async () => {
  s3 = await startEmbeddedS3({ buckets: [BUCKET] });
  s3Client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const put = (key: string, body: string | Buffer) => s3Client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  await put('streams/evt-a/index.m3u8', '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg-00000.ts\n');
  await put('streams/evt-a/seg-00000.ts', SEGMENT);
  await put('streams/evt-a/seg-00001.ts', SEGMENT);
  await put('streams/evt-b/index.m3u8', '#EXTM3U\n');

  feedServer = createServer((req, res) => {
    const url = new URL(req.url!, 'http://feed');
    if (url.pathname !== '/api/revocations' || req.headers['x-internal-api-key'] !== INTERNAL_KEY || !feedState.up) {
      res.writeHead(feedState.up ? 401 : 503).end();
      return;
    }
    sinceSeen.push(url.searchParams.get('since') ?? '');
    feedPolls++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(currentFeed()));
  });
  await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}`;

  media = await startMediaServer({
    port: 0,
    bucket: BUCKET,
    s3Client,
    apiUrl: feedUrl,
    internalApiKey: INTERNAL_KEY,
    playbackSigningKeys: signingKeys,
    pollIntervalMs: 20,
    log: () => {},
  });
  expect(await media.synced).toBe(true);
});

afterAll(async () => {
  await media?.close();
  await new Promise((resolve) => feedServer?.close(resolve));
  await s3?.close();
});

describe('media server: delivery', () => {
  it('serves a manifest with its content type, no caching, and CORS', async () => {
    const response = await get('/streams/evt-a/index.m3u8', await token());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.text()).toContain('#EXTM3U');
  });

  it('serves a segment as immutable MPEG-TS, also for a token in the query', async () => {
    const response = await get(`/streams/evt-a/seg-00000.ts?token=${await token()}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('video/mp2t');
    expect(response.headers.get('cache-control')).toContain('immutable');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(SEGMENT);
  });

  it('answers HEAD without a body', async () => {
    const response = await get('/streams/evt-a/seg-00000.ts', await token(), { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(SEGMENT.length));
    expect(await response.text()).toBe('');
  });

  it('404 for a missing manifest', async () => {
    const response = await get('/streams/evt-a/missing.m3u8', await token());
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'Not found' });
  });

  it('401 without a token, 403 for a token of another event', async () => {
    const anonymous = await get('/streams/evt-a/index.m3u8');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).toBe('{"error":"Authorization required"}');
    const otherEvent = await get('/streams/evt-b/index.m3u8', await token({ eid: 'evt-a' }));
    expect(otherEvent.status).toBe(403);
    expect(await otherEvent.json()).toEqual({ error: 'Access denied' });
  });

  it('answers the player\'s CORS preflight', async () => {
    const response = await get('/streams/evt-a/index.m3u8', undefined, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:3000', 'access-control-request-headers': 'authorization' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
  });
});

describe('media server: revocation feed', () => {
  it('polls with serverTime as the next since, starting from the beginning', () => {
    expect(sinceSeen[0]).toBe('1970-01-01T00:00:00.000Z');
    expect(sinceSeen.length).toBeGreaterThan(1);
    expect(Date.parse(sinceSeen[1]!)).toBeGreaterThan(0);
  });

  it('revoke denies, unrevoke allows again', async () => {
    const jwt = await token({ code: 'CODE2' });
    expect((await get('/streams/evt-a/index.m3u8', jwt)).status).toBe(200);
    feedState.revoked.add('CODE2');
    await feedApplied();
    expect((await get('/streams/evt-a/index.m3u8', jwt)).status).toBe(403);
    feedState.revoked.delete('CODE2');
    feedState.unrevoked.add('CODE2');
    await feedApplied();
    expect((await get('/streams/evt-a/index.m3u8', jwt)).status).toBe(200);
  });

  it('a deactivated event denies every token for it', async () => {
    feedState.deactivated.add('evt-b');
    await feedApplied();
    expect((await get('/streams/evt-b/index.m3u8', await token({ eid: 'evt-b', code: 'CODE3' }))).status).toBe(403);
  });

  it('keeps the last known state while the API is down, and reports the growing sync age', async () => {
    feedState.revoked.add('CODE4');
    await feedApplied();
    feedState.up = false;
    let health: { status: string; lastSyncAgoSeconds: number; revocationCacheSize: number } | undefined;
    do {
      await new Promise((resolve) => setTimeout(resolve, 100));
      health = await (await fetch(`${media.url}/health`)).json();
    } while (health!.lastSyncAgoSeconds < 1);
    expect((await get('/streams/evt-a/index.m3u8', await token({ code: 'CODE4' }))).status).toBe(403);
    expect((await get('/streams/evt-a/index.m3u8', await token({ code: 'CODE5' }))).status).toBe(200);
    expect(health!.revocationCacheSize).toBeGreaterThanOrEqual(2);
    feedState.up = true;
    await feedApplied();
  });
});

describe('media server: health and cache', () => {
  it('reports status, mode, revocation cache size and sync age', async () => {
    const response = await fetch(`${media.url}/health`);
    expect(response.status).toBe(200);
    const health = await response.json();
    expect(health).toEqual({
      status: 'ok',
      mode: 'validating',
      revocationCacheSize: expect.any(Number),
      lastSyncAgoSeconds: expect.any(Number),
    });
    expect(Number.isInteger(health.lastSyncAgoSeconds)).toBe(true);
  });

  it('serves a cached segment until the event\'s cache is cleared', async () => {
    const jwt = await token();
    expect((await get('/streams/evt-a/seg-00001.ts', jwt)).status).toBe(200);
    await s3Client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'streams/evt-a/seg-00001.ts' }));
    expect((await get('/streams/evt-a/seg-00001.ts', jwt)).status).toBe(200);

    const clear = await fetch(`${media.url}/admin/cache/evt-a`, { method: 'DELETE' });
    expect(clear.status).toBe(200);
    expect(await clear.json()).toEqual({ cleared: true });
    expect((await get('/streams/evt-a/seg-00001.ts', jwt)).status).toBe(404);
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

  it('denies media (503) until the revocation state was loaded once', async () => {
    const deadUrl = `http://127.0.0.1:${await freePort()}`;
    const cold = await startMediaServer({
      port: 0, bucket: BUCKET, s3Client, apiUrl: deadUrl, internalApiKey: INTERNAL_KEY,
      playbackSigningKeys: signingKeys, pollIntervalMs: 20, startupSyncWaitMs: 0, log: () => {},
    });
    try {
      expect(await cold.synced).toBe(false);
      const response = await fetch(`${cold.url}/streams/evt-a/index.m3u8`, { headers: { authorization: `Bearer ${await token()}` } });
      expect(response.status).toBe(503);
      expect((await (await fetch(`${cold.url}/health`)).json()).status).toBe('starting');
    } finally {
      await cold.close();
    }
  });
});
