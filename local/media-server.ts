import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { S3Client } from '@aws-sdk/client-s3';
import { isDenyKey } from '../functions/adapters/kvs-scheme';
import { isEdgeResponse, loadEdgeValidator, sendEdgeResponse, toCloudFrontRequest } from './media-edge-runtime';
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
  /** What the edge knows: the KeyValueStore that edge-sync keeps (local/edge-sync-triggers.ts). */
  edge: MediaEdgeState;
  /** Byte bound of the in-memory segment cache. */
  cacheMaxBytes?: number;
  /** `false` serves without the edge validator: only for the benchmark that measures its cost. */
  validate?: boolean;
  log?: (line: string) => void;
}

/** The edge's KeyValueStore and how current it is, as edge-sync keeps them. */
export interface MediaEdgeState {
  readonly entries: ReadonlyMap<string, string>;
  /** `Date.now()` before which every table change is in `entries`; null until it was filled once. */
  syncedUpTo(): number | null;
}

export interface MediaServer {
  url: string;
  close(): Promise<void>;
}

/** Health says `stale` once the edge lags the table by more than this. */
const STALE_AFTER_MS = 5_000;
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
 * CloudFront Function) against the in-memory KeyValueStore that edge-sync fills
 * from the table, as it fills CloudFront's in AWS.
 */
export async function startMediaServer(options: MediaServerOptions): Promise<MediaServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`media: ${line}\n`));
  const validate = options.validate ?? true;
  const startedAt = Date.now();

  const edge = loadEdgeValidator(options.edge.entries);
  const readObject = createS3Origin(options.s3Client, options.bucket);
  const readMedia = async (key: string) => toCached(key, await readObject(key));
  const segments = createSegmentCache(options.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES, readMedia);

  function health() {
    const syncedUpTo = options.edge.syncedUpTo();
    const ageMs = Math.max(0, Date.now() - (syncedUpTo ?? startedAt));
    let denied = 0;
    for (const key of options.edge.entries.keys()) if (isDenyKey(key)) denied++;
    return {
      status: syncedUpTo === null ? 'starting' : ageMs > STALE_AFTER_MS ? 'stale' : 'ok',
      mode: validate ? 'validating' : 'open',
      // Revoked codes, deactivated events and ended sessions the edge denies.
      revocationCacheSize: denied,
      // How far the edge lags the table; before the first sync, the time since start-up.
      lastSyncAgoSeconds: Math.floor(ageMs / 1000),
    };
  }

  async function serveStream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    let uri = url.pathname;
    if (validate) {
      // Fail closed until the revocation state is known.
      if (options.edge.syncedUpTo() === null) return sendJson(res, 503, { error: 'Revocation state not loaded yet' });
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

  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
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
