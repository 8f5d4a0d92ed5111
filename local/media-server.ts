import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { S3Client } from '@aws-sdk/client-s3';
import { parseSigningKeys } from '../functions/domain/signing-keys';
import { isEdgeResponse, loadEdgeValidator, type CloudFrontRequest, type CloudFrontResponse, type CloudFrontValue } from './media-edge-runtime';
import { createMediaEdgeStore } from './media-edge-store';
import { followRevocations, type RevocationFollower } from './media-revocation-follower';
import { createS3Origin } from './media-s3-origin';
import { createSegmentCache, type CachedObject } from './media-segment-cache';

export interface MediaServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** Like the API: all interfaces, so that a device on the LAN can play what the API hands out. */
  host?: string;
  /** Bucket holding `streams/<eventId>/…` (MEDIA_BUCKET). */
  bucket: string;
  /** A client of the S3 (stand-in) holding the bucket. */
  s3Client: S3Client;
  /** Base URL of the access API, for the revocation feed. */
  apiUrl: string;
  internalApiKey: string;
  /** The PLAYBACK_SIGNING_KEYS JSON of docs/contracts.md. */
  playbackSigningKeys: string;
  pollIntervalMs?: number;
  /** Bound of `synced`: how long to wait for the first successful feed poll. */
  startupSyncWaitMs?: number;
  /** Byte bound of the in-memory segment cache. */
  cacheMaxBytes?: number;
  /** `false` serves without the edge validator: only for the benchmark that measures its cost. */
  validate?: boolean;
  log?: (line: string) => void;
}

export interface MediaServer {
  url: string;
  /**
   * True once the revocation state is loaded, false if the feed did not answer
   * within `startupSyncWaitMs` (media requests get 503 until it does). Not
   * awaited inside `startMediaServer`: await it before announcing `ready`.
   */
  synced: Promise<boolean>;
  close(): Promise<void>;
}

const DEFAULT_POLL_INTERVAL_MS = 500;
const DEFAULT_STARTUP_SYNC_WAIT_MS = 30_000;
const DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;
const CONTENT_TYPES: Record<string, string> = {
  m3u8: 'application/vnd.apple.mpegurl',
  ts: 'video/mp2t',
  m4s: 'video/iso.segment',
  mp4: 'video/mp4',
};
// Live playlists change every segment; segments never change once written.
const MANIFEST_CACHE_CONTROL = 'no-cache';
const SEGMENT_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** Reads only: no page of another site may be let to send anything else (`DELETE /admin/cache/<id>`). */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, HEAD, OPTIONS',
  'access-control-allow-headers': 'Authorization, Range',
  'access-control-max-age': '600',
};

/**
 * The local stand-in for CloudFront in front of the media bucket: every
 * `/streams/…` request goes through `edge/validate-request.js` (the shipped
 * CloudFront Function) against an in-memory KeyValueStore (media-edge-store.ts)
 * holding the signing keys and what the revocation feed reported.
 */
export async function startMediaServer(options: MediaServerOptions): Promise<MediaServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`media: ${line}\n`));
  const validate = options.validate ?? true;
  const startedAt = Date.now();

  const edgeStore = createMediaEdgeStore(parseSigningKeys(options.playbackSigningKeys));
  const edge = loadEdgeValidator(edgeStore.entries);
  const readObject = createS3Origin(options.s3Client, options.bucket);
  const readMedia = async (key: string) => toCached(key, await readObject(key));
  const segments = createSegmentCache(options.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES, readMedia);

  // Started once the port is bound; until its first success media requests get 503.
  let follower: RevocationFollower | undefined;

  function health() {
    const lastSyncAt = follower?.lastSyncAt() ?? null;
    const ageMs = Date.now() - (lastSyncAt ?? startedAt);
    const staleAfterMs = Math.max(5_000, 10 * (options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS));
    return {
      status: lastSyncAt === null ? 'starting' : ageMs > staleAfterMs ? 'stale' : 'ok',
      mode: validate ? 'validating' : 'open',
      revocationCacheSize: edgeStore.denyEntryCount(),
      // Before the first sync this counts from start-up, so it grows just the same while the API is down.
      lastSyncAgoSeconds: Math.floor(ageMs / 1000),
    };
  }

  async function serveStream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    let uri = url.pathname;
    if (validate) {
      // Fail closed until the revocation state is known.
      if (!follower?.lastSyncAt()) return sendJson(res, 503, { error: 'Revocation state not loaded yet' });
      const result = await edge({ version: '1.0', request: toCloudFrontRequest(req, url) });
      if (isEdgeResponse(result)) return sendEdgeResponse(res, result);
      uri = result.uri;
    } else if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendJson(res, 405, { error: 'Method not allowed' });
    }
    const extension = uri.slice(uri.lastIndexOf('.') + 1);
    // Playlists change with every segment; segments never change once written.
    const object = await (extension === 'm3u8' ? readMedia(uri.slice(1)) : segments.get(uri.slice(1)));
    if (!object) return sendJson(res, 404, { error: 'Not found' });
    res.writeHead(200, {
      'content-type': object.contentType,
      'content-length': object.body.length,
      'cache-control': extension === 'm3u8' ? MANIFEST_CACHE_CONTROL : SEGMENT_CACHE_CONTROL,
      'access-control-allow-origin': '*',
    });
    res.end(req.method === 'HEAD' ? undefined : object.body);
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://media.local');
    if (url.pathname.startsWith('/streams/')) return serveStream(req, res, url);
    const admin = url.pathname.startsWith('/admin/');
    if (req.method === 'OPTIONS' && !admin) {
      res.writeHead(204, CORS_HEADERS);
      return void res.end();
    }
    if (url.pathname === '/health' && (req.method === 'GET' || req.method === 'HEAD')) return sendJson(res, 200, health());
    const clear = /^\/admin\/cache\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (clear && req.method === 'DELETE') {
      // The spec leaves this endpoint unauthenticated, to be fenced by the network: here, this machine only,
      // and never a browser (which names the page's origin on every DELETE): only the API calls it.
      if (!isLoopback(req.socket.remoteAddress) || req.headers.origin !== undefined) return sendJson(res, 403, { error: 'Access denied' }, { cors: false });
      const cleared = segments.clearPrefix(`streams/${clear[1]}/`);
      log(`cache cleared for event ${clear[1]} (${cleared} segments)`);
      return sendJson(res, 200, { cleared: true }, { cors: false });
    }
    return sendJson(res, 404, { error: 'Not found' }, { cors: !admin });
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error) => {
      log(`request failed: ${(error as Error).stack ?? error}`);
      if (!res.headersSent) sendJson(res, 502, { error: 'Origin unavailable' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = !options.host || options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  follower = followRevocations({
    apiUrl: options.apiUrl,
    internalApiKey: options.internalApiKey,
    intervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    startupWaitMs: options.startupSyncWaitMs ?? DEFAULT_STARTUP_SYNC_WAIT_MS,
    onFeed: (feed) => edgeStore.applyFeed(feed, new Date()),
    log,
  });
  const synced = follower.firstSync.then((loaded) => {
    if (!loaded) log('no revocation state yet: media requests get 503 until the feed answers');
    return loaded;
  });
  return {
    url,
    synced,
    close: () =>
      new Promise<void>((resolve) => {
        follower?.stop();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

function toCached(key: string, object: { body: Buffer; contentType: string | undefined } | null): CachedObject | null {
  if (!object) return null;
  const extension = key.slice(key.lastIndexOf('.') + 1);
  return { body: object.body, contentType: CONTENT_TYPES[extension] ?? object.contentType ?? 'application/octet-stream' };
}

/**
 * The request as CloudFront hands it to a function: lower-case header names,
 * and for a repeated header or query parameter the first value plus `multiValue`.
 * Read from `rawHeaders`, so Node never assembles `req.headers` for it.
 */
function toCloudFrontRequest(req: IncomingMessage, url: URL): CloudFrontRequest {
  const headers = valueMap();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) addValue(headers, raw[i]!.toLowerCase(), raw[i + 1]!);
  const querystring = valueMap();
  if (url.search) for (const [name, value] of url.searchParams) addValue(querystring, name, value);
  return { method: req.method ?? 'GET', uri: url.pathname, querystring, headers };
}

// No prototype: a header or parameter called `constructor` or `__proto__` is just a name.
function valueMap(): Record<string, CloudFrontValue> {
  return Object.create(null) as Record<string, CloudFrontValue>;
}

function addValue(values: Record<string, CloudFrontValue>, name: string, value: string): void {
  const seen = values[name];
  if (!seen) values[name] = { value };
  else (seen.multiValue ??= [{ value: seen.value }]).push({ value });
}

function sendEdgeResponse(res: ServerResponse, response: CloudFrontResponse): void {
  const headers: Record<string, string> = {};
  for (const [name, { value }] of Object.entries(response.headers ?? {})) headers[name] = value;
  const body = response.body
    ? Buffer.from(response.body.data, response.body.encoding === 'base64' ? 'base64' : 'utf8')
    : undefined;
  res.writeHead(response.statusCode, response.statusDescription, headers);
  res.end(body);
}

/** A JSON answer; readable by any page (`cors`) unless it belongs to the admin endpoint. */
function sendJson(res: ServerResponse, status: number, body: unknown, options: { cors?: boolean } = {}): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(options.cors === false ? {} : { 'access-control-allow-origin': '*' }),
  });
  res.end(JSON.stringify(body));
}
