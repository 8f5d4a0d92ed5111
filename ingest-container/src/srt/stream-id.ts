import querystring from 'node:querystring';

/** SRT's reject reasons we answer with (libsrt's access_control.h). */
export const REJECT = {
  badRequest: 1400,
  unauthorized: 1401,
  forbidden: 1403,
  badMode: 1405,
  conflict: 1409,
  unavailable: 1503,
} as const;

export type StreamIdResult =
  | { ok: true; app: string; streamName: string; token: string | undefined }
  | { ok: false; reject: (typeof REJECT)[keyof typeof REJECT]; why: string };

/** node-media-server's rule for app and stream names; the remux publishes under them. */
const SAFE_NAME = /^[A-Za-z0-9_-]+$/;
const ACCESS_CONTROL_PREFIX = '#!::';

/**
 * The stream id an SRT caller sends, in either form:
 * - the RTMP stream key's own: `<app>/<name>?token=<token>`;
 * - SRT Access Control: `#!::r=<app>/<name>,m=publish,token=<token>` (other keys ignored).
 * Only publishing is taken: `m=request` (play) and `m=bidirectional` are refused; a missing `m`
 * counts as publish (encoders that only send never mean to play). ffmpeg 5.1 passes the URL's
 * `streamid=` on without decoding it, so a percent-encoded id is decoded first.
 */
export function parseStreamId(raw: string): StreamIdResult {
  const text = decodedStreamId(raw);
  if (text.startsWith(ACCESS_CONTROL_PREFIX)) return accessControlForm(text.slice(ACCESS_CONTROL_PREFIX.length));
  const queryAt = text.indexOf('?');
  const path = queryAt === -1 ? text : text.slice(0, queryAt);
  const query = querystring.parse(queryAt === -1 ? '' : text.slice(queryAt + 1));
  return resource(path, firstToken(query.token));
}

function decodedStreamId(raw: string): string {
  if (raw.startsWith(ACCESS_CONTROL_PREFIX) || !/%[0-9A-Fa-f]{2}/.test(raw)) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function accessControlForm(body: string): StreamIdResult {
  const keys = new Map<string, string>();
  for (const pair of body.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) return { ok: false, reject: REJECT.badRequest, why: 'stream id: malformed key=value pair' };
    const key = pair.slice(0, at).trim();
    // The first value wins, as for a repeated RTMP `token`.
    if (!keys.has(key)) keys.set(key, pair.slice(at + 1));
  }
  const mode = keys.get('m') ?? 'publish';
  if (mode !== 'publish') return { ok: false, reject: REJECT.badMode, why: `stream id: mode ${mode} refused (publish only)` };
  const token = keys.get('token');
  return resource(keys.get('r') ?? '', token === '' ? undefined : token);
}

function resource(path: string, token: string | undefined): StreamIdResult {
  const parts = path.split('/');
  if (parts.length !== 2 || !SAFE_NAME.test(parts[0]!) || !SAFE_NAME.test(parts[1]!)) {
    return { ok: false, reject: REJECT.badRequest, why: 'stream id: resource is not <app>/<stream>' };
  }
  return { ok: true, app: parts[0]!, streamName: parts[1]!, token };
}

/** An empty `token=` counts as missing; a repeated one uses its first non-empty value. */
function firstToken(value: string | string[] | undefined): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  return value?.find((token) => token !== '');
}
