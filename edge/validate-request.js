import cf from 'cloudfront';

// Viewer-request CloudFront Function (runtime cloudfront-js-2.0) guarding /streams/*.
// The local media server runs this very file. KeyValueStore keys (docs/delivery.md):
//   k:<kid> -> base64url HMAC key; c:<code>, e:<eventId>, s:<sessionId> -> present = revoked.
const crypto = require('crypto');
const kvs = cf.kvs();

const ISSUER = 'stagedoor';
const AUDIENCE = 'stagedoor-playback';
// Tolerated clock difference between the API that signs and the edge, for nbf only.
const NBF_LEEWAY_SECONDS = 5;
const MEDIA_URI = /^\/streams\/([A-Za-z0-9_-]+)\/[A-Za-z0-9_.\/-]*\.(m3u8|ts|m4s|mp4)$/;
// Ids end up in KVS keys: a strict alphabet keeps them short and unambiguous.
const ID = /^[A-Za-z0-9_-]{1,128}$/;
const CORS = {
  'access-control-allow-origin': { value: '*' },
  'access-control-allow-methods': { value: 'GET, HEAD, OPTIONS' },
  'access-control-allow-headers': { value: 'Authorization, Range' },
  'access-control-max-age': { value: '600' },
};

async function handler(event) {
  const request = event.request;
  if (request.method === 'OPTIONS') return preflight();
  if (request.method !== 'GET' && request.method !== 'HEAD') return reply(405, 'Method not allowed');

  const token = takeToken(request);
  if (!token) return reply(401, 'Authorization required');
  try {
    if (await isAllowed(token, request.uri)) return request;
  } catch (e) {
    // A malformed token or an unreadable KeyValueStore: fail closed.
  }
  return reply(403, 'Access denied');
}

// Bearer header first; else the `token` query parameter (players that cannot set
// headers), removed so that it neither reaches the origin nor splits the cache.
function takeToken(request) {
  const query = request.querystring || {};
  const fromQuery = query.token ? query.token.value : '';
  delete query.token;
  const auth = request.headers.authorization;
  if (auth && /^Bearer\s+\S/i.test(auth.value)) return auth.value.replace(/^Bearer\s+/i, '').trim();
  return fromQuery;
}

async function isAllowed(token, uri) {
  const match = MEDIA_URI.exec(uri);
  if (!match || uri.indexOf('..') !== -1) return false;

  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const header = decodeJson(parts[0]);
  if (header.alg !== 'HS256' || !isId(header.kid)) return false;
  // get() rejects for a missing key, so an unknown kid ends in the caller's catch: denied.
  const key = await kvs.get('k:' + header.kid);
  const expected = crypto
    .createHmac('sha256', Buffer.from(key, 'base64url'))
    .update(parts[0] + '.' + parts[1])
    .digest('base64url');
  if (!safeEqual(expected, parts[2])) return false;

  const claims = decodeJson(parts[1]);
  const now = Math.floor(Date.now() / 1000);
  if (claims.iss !== ISSUER || claims.aud !== AUDIENCE) return false;
  if (typeof claims.exp !== 'number' || claims.exp <= now) return false;
  if (typeof claims.nbf !== 'number' || claims.nbf > now + NBF_LEEWAY_SECONDS) return false;
  if (!isId(claims.eid) || !isId(claims.code) || !isId(claims.sid)) return false;
  if (claims.eid !== match[1] || claims.path !== '/streams/' + claims.eid + '/') return false;

  // Sequential awaits: CloudFront advises against Promise.all on KVS reads (memory quota).
  if (await kvs.exists('c:' + claims.code)) return false;
  if (await kvs.exists('e:' + claims.eid)) return false;
  if (await kvs.exists('s:' + claims.sid)) return false;
  return true;
}

// RegExp.test would turn a missing claim into the string "undefined".
function isId(value) {
  return typeof value === 'string' && ID.test(value);
}

function decodeJson(part) {
  const value = JSON.parse(Buffer.from(part, 'base64url').toString());
  if (!value || typeof value !== 'object') throw new Error('not an object');
  return value;
}

// Constant time over the signature: the length of an HS256 base64url MAC is public.
function safeEqual(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function preflight() {
  return { statusCode: 204, statusDescription: 'No Content', headers: CORS };
}

function reply(status, message) {
  const headers = {
    'content-type': { value: 'application/json' },
    'cache-control': { value: 'no-store' },
    'access-control-allow-origin': { value: '*' },
  };
  if (status === 401) headers['www-authenticate'] = { value: 'Bearer' };
  if (status === 405) headers.allow = { value: 'GET, HEAD, OPTIONS' };
  return {
    statusCode: status,
    statusDescription: status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Method Not Allowed',
    headers: headers,
    body: { encoding: 'text', data: JSON.stringify({ error: message }) },
  };
}
