import cf from 'cloudfront';

// Viewer-request CloudFront Function (runtime cloudfront-js-2.0) guarding /streams/*.
// The local media server runs this very file. KeyValueStore keys, the scheme of
// functions/adapters/kvs-scheme.ts (kept as literals here: a function imports nothing;
// test/unit/edge-kvs-scheme.test.ts checks them against it):
//   k:<kid> -> base64url HMAC key; c:<code>, e:<eventId>, s:<sessionId> -> present = revoked;
//   g:<eventId> -> country rule, "a:FR,BE" (only these) or "d:RU" (all but these), against the
//   cloudfront-viewer-country header (absent = unknown: in no list);
//   w:<eventId> -> base64url mark key of a watermarked event (markedUri).
// Two credentials: the playback JWT (Bearer header or `token` query), and for players
// that send no header, one in the path: /streams/<eid>/~<kid>.<sid>.<exp>.<code>.<mac>/…
// (exp base36; code XOR an HMAC keystream, so the URL does not show it; mac = first 22
// base64url chars of HMAC(key, "p1.<eid>.<sid>.<exp>.<code>")). It is removed from the
// URI before the cache key and the origin, so every viewer shares one cached copy.
const crypto = require('crypto');
const kvs = cf.kvs();

const ISSUER = 'stagedoor';
const AUDIENCE = 'stagedoor-playback';
// Tolerated clock difference between the API that signs and the edge, for nbf only.
const NBF_LEEWAY_SECONDS = 5;
const MEDIA_URI = /^\/streams\/([A-Za-z0-9_-]+)\/[A-Za-z0-9_.\/-]*\.(m3u8|ts|m4s|mp4)$/;
// Ids end up in KVS keys: a strict alphabet keeps them short and unambiguous.
const ID = /^[A-Za-z0-9_-]{1,128}$/;
// `~` may arrive percent-encoded from a client that escapes it.
const PATH_CREDENTIAL = /^\/streams\/([A-Za-z0-9_-]+)\/(?:~|%7[Ee])([^\/]+)(\/.*)$/;
const B64URL = /^[A-Za-z0-9_-]+$/;
// A segment of a watermarked part: <part>_<n>[.<v>].w.ts in playlists, .a.ts/.b.ts in storage.
const WM_SEGMENT = /\/([A-Za-z0-9_-]+)_([0-9]{1,9})(\.[0-9]+)?\.([wab])\.ts$/;
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
  const inPath = PATH_CREDENTIAL.exec(request.uri);
  if (!token && !inPath) return reply(401, 'Authorization required');
  try {
    if (inPath ? await isPathAllowed(inPath, request) : await isAllowed(token, request)) return request;
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

async function isAllowed(token, request) {
  const uri = request.uri;
  const match = MEDIA_URI.exec(uri);
  if (!match || uri.indexOf('..') !== -1) return false;

  const parts = token.split('.');
  if (parts.length !== 3) return false;
  const header = decodeJson(parts[0]);
  if (header.alg !== 'HS256' || !isId(header.kid)) return false;
  const key = await keyOf(header.kid);
  if (!safeEqual(hmac(key, parts[0] + '.' + parts[1]).toString('base64url'), parts[2])) return false;

  const claims = decodeJson(parts[1]);
  const now = Math.floor(Date.now() / 1000);
  if (claims.iss !== ISSUER || claims.aud !== AUDIENCE) return false;
  if (typeof claims.exp !== 'number' || claims.exp <= now) return false;
  if (typeof claims.nbf !== 'number' || claims.nbf > now + NBF_LEEWAY_SECONDS) return false;
  if (!isId(claims.eid) || !isId(claims.code) || !isId(claims.sid)) return false;
  if (claims.eid !== match[1] || claims.path !== '/streams/' + claims.eid + '/') return false;

  return (await isLive(claims.code, claims.eid, claims.sid, request)) && mark(request, claims.eid, claims.sid);
}

// The path credential: checked, then cut out of the URI (relative playlist URIs keep it).
async function isPathAllowed(match, request) {
  const eid = match[1];
  const uri = '/streams/' + eid + match[3];
  const p = match[2].split('.');
  if (p.length !== 5 || !MEDIA_URI.test(uri) || uri.indexOf('..') !== -1) return false;
  if (!isId(p[0]) || !isId(p[1]) || !/^[0-9a-z]{1,10}$/.test(p[2]) || !B64URL.test(p[3])) return false;
  const key = await keyOf(p[0]);
  const mac = hmac(key, 'p1.' + eid + '.' + p[1] + '.' + p[2] + '.' + p[3]).toString('base64url');
  if (!safeEqual(mac.slice(0, 22), p[4])) return false;
  if (parseInt(p[2], 36) <= Math.floor(Date.now() / 1000)) return false;
  const sealed = Buffer.from(p[3], 'base64url');
  const stream = hmac(key, 'pc.' + p[1] + '.' + p[2]);
  if (sealed.length > stream.length) return false;
  let code = '';
  for (let i = 0; i < sealed.length; i++) code += String.fromCharCode(sealed[i] ^ stream[i]);
  if (!isId(code)) return false;
  if (!(await isLive(code, eid, p[1], request))) return false;
  request.uri = uri;
  return mark(request, eid, p[1]);
}

// The viewer's A or B of a watermarked segment (docs/watermark-design.md, section 2), cache key included.
async function mark(request, eid, sid) {
  const uri = await markedUri(request.uri, eid, sid);
  if (uri) request.uri = uri;
  return !!uri;
}

// Version = bit n mod 256 of HMAC(w:<eid>, "wm1.<sid>.<part>.<n div 256>"): per session and moment, the
// same in every rendition (functions/domain/watermark/mark-bit.ts). Null for a version named directly,
// or a restreamer could fetch all A and carry no mark; a missing w: rejects (denied).
async function markedUri(uri, eid, sid) {
  const m = WM_SEGMENT.exec(uri);
  if (!m) return uri;
  if (m[4] !== 'w') return null;
  const n = parseInt(m[2], 10);
  // Awaited apart: njs (and cloudfront-js-2.0) refuse `await` inside call arguments.
  const key = await kvs.get('w:' + eid);
  const d = hmac(Buffer.from(key, 'base64url'), 'wm1.' + sid + '.' + m[1] + '.' + Math.floor(n / 256));
  return uri.slice(0, -4) + ((d[(n % 256) >> 3] >> (n % 8)) & 1 ? 'b' : 'a') + '.ts';
}

// get() rejects for a missing key, so an unknown kid ends in the caller's catch: denied.
async function keyOf(kid) {
  const key = await kvs.get('k:' + kid);
  return Buffer.from(key, 'base64url');
}

function hmac(key, data) {
  return crypto.createHmac('sha256', key).update(data).digest();
}

// Neither the code revoked, the event deactivated nor the session ended, and the country allowed.
// Sequential awaits: CloudFront advises against Promise.all on KVS reads (memory quota).
async function isLive(code, eid, sid, request) {
  if (await kvs.exists('c:' + code)) return false;
  if (await kvs.exists('e:' + eid)) return false;
  if (await kvs.exists('s:' + sid)) return false;
  if (!(await kvs.exists('g:' + eid))) return true;
  // exists first: get() rejects for a missing key, which must not be told from an unreadable store.
  const rule = await kvs.get('g:' + eid);
  const c = request.headers['cloudfront-viewer-country'];
  const listed = !!c && /^[A-Z]{2}$/.test(c.value) && (',' + rule.slice(2) + ',').indexOf(',' + c.value + ',') !== -1;
  return rule[1] === ':' && (rule[0] === 'a' ? listed : rule[0] === 'd' && !listed);
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
