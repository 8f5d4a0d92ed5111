import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { kvsKey, kvsValue } from '../../functions/adapters/kvs-scheme';
import { PLAYBACK_AUDIENCE, PLAYBACK_ISSUER, streamPathOf } from '../../functions/domain/playback-claims';
import { playbackCredential, type PlaybackUrlGrant } from '../../functions/domain/access';
import { markBit, markKeyOf } from '../../functions/domain/watermark';
import type { CloudFrontRequest, CloudFrontResponse } from '../../local/media-edge-runtime';

/**
 * One table of requests for the edge validator, run in Node (through the same
 * shim as the media server) and under Debian's njs, so both runtimes must agree.
 */
export interface ValidatorCase {
  name: string;
  request: CloudFrontRequest;
  expected: Outcome;
}

/** What a handler result boils down to, comparable across runtimes. */
export type Outcome =
  | { pass: true; uri: string; query: string[] }
  | { status: number; error?: string; cors: boolean };

export function outcomeOf(result: CloudFrontRequest | CloudFrontResponse): Outcome {
  if ('statusCode' in result) {
    const body = result.body ? (JSON.parse(result.body.data) as { error?: string }) : {};
    return {
      status: result.statusCode,
      ...(body.error ? { error: body.error } : {}),
      cors: result.headers?.['access-control-allow-origin']?.value === '*',
    };
  }
  return { pass: true, uri: result.uri, query: Object.keys(result.querystring).sort() };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export interface ValidatorFixture {
  /** KeyValueStore contents, built with functions/adapters/kvs-scheme.ts: the edge must read what writers write. */
  store: Record<string, string>;
  cases: ValidatorCase[];
}

/** Builds keys, store and signed tokens around the current time. */
export async function buildValidatorFixture(): Promise<ValidatorFixture> {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);
  const now = Math.floor(Date.now() / 1000);
  const store = {
    [kvsKey.signingKey('k1')]: kvsValue.signingKey(k1),
    [kvsKey.signingKey('k2')]: kvsValue.signingKey(k2),
    [kvsKey.revokedCode('REVOKED1')]: kvsValue.denyUntil(now - 10),
    [kvsKey.deactivatedEvent('evt-off')]: kvsValue.denyUntil(now - 10),
    [kvsKey.endedSession('sid-ended')]: kvsValue.denyUntil(now - 10),
    [kvsKey.geoRule('evt-fr')]: kvsValue.geoRule({ allow: ['BE', 'FR'] }),
    [kvsKey.geoRule('evt-noru')]: kvsValue.geoRule({ deny: ['RU'] }),
    [kvsKey.markKey('evt-wm')]: kvsValue.markKey(MARK_KEY),
  };

  const base = { code: 'CODE1', eid: 'evt-a', sid: 'sid-1', path: streamPathOf('evt-a') };
  async function sign(
    overrides: Record<string, unknown> = {},
    opts: { key?: Uint8Array; kid?: string; iss?: string; aud?: string; iat?: number; nbf?: number; exp?: number } = {},
  ): Promise<string> {
    const iat = opts.iat ?? now;
    return new SignJWT({ ...base, ...overrides })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: opts.kid ?? 'k1' })
      .setIssuer(opts.iss ?? PLAYBACK_ISSUER)
      .setAudience(opts.aud ?? PLAYBACK_AUDIENCE)
      .setIssuedAt(iat)
      .setNotBefore(opts.nbf ?? iat)
      .setExpirationTime(opts.exp ?? iat + 600)
      .sign(opts.key ?? k1);
  }

  const valid = await sign();
  const [, payload] = valid.split('.');
  const tamperedPayload = b64({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), eid: 'evt-b', path: '/streams/evt-b/' });
  const tampered = valid.split('.').map((part, i) => (i === 1 ? tamperedPayload : part)).join('.');
  const algNone = `${b64({ alg: 'none', typ: 'JWT', kid: 'k1' })}.${payload}.`;

  const get = (uri: string, headers: Record<string, string> = {}, query: Record<string, string> = {}, method = 'GET') => ({
    method,
    uri,
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { value: v }])),
    querystring: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, { value: v }])),
  });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const manifest = '/streams/evt-a/index.m3u8';
  const denied = { status: 403, error: 'Access denied', cors: true } as const;

  const cases: ValidatorCase[] = [
    { name: 'valid bearer token, manifest', request: get(manifest, bearer(valid)), expected: { pass: true, uri: manifest, query: [] } },
    {
      name: 'valid bearer token, HEAD of a segment',
      request: get('/streams/evt-a/720p/seg-00001.ts', bearer(valid), {}, 'HEAD'),
      expected: { pass: true, uri: '/streams/evt-a/720p/seg-00001.ts', query: [] },
    },
    {
      name: 'token in the query parameter is accepted and stripped',
      request: get(manifest, {}, { token: valid, v: '2' }),
      expected: { pass: true, uri: manifest, query: ['v'] },
    },
    {
      name: 'query token is stripped even when a header carries the token',
      request: get(manifest, bearer(valid), { token: 'ignored' }),
      expected: { pass: true, uri: manifest, query: [] },
    },
    { name: 'lower-case bearer scheme', request: get(manifest, { authorization: `bearer ${valid}` }), expected: { pass: true, uri: manifest, query: [] } },
    { name: 'token signed with a second listed key', request: get(manifest, bearer(await sign({}, { key: k2, kid: 'k2' }))), expected: { pass: true, uri: manifest, query: [] } },
    { name: 'no token', request: get(manifest), expected: { status: 401, error: 'Authorization required', cors: true } },
    { name: 'non-bearer authorization', request: get(manifest, { authorization: 'Basic dXNlcjpwYXNz' }), expected: { status: 401, error: 'Authorization required', cors: true } },
    { name: 'bad signature', request: get(manifest, bearer(await sign({}, { key: randomBytes(32) }))), expected: denied },
    { name: 'payload changed after signing', request: get('/streams/evt-b/index.m3u8', bearer(tampered)), expected: denied },
    { name: 'alg none', request: get(manifest, bearer(algNone)), expected: denied },
    { name: 'unknown kid', request: get(manifest, bearer(await sign({}, { kid: 'k9' }))), expected: denied },
    { name: 'expired', request: get(manifest, bearer(await sign({}, { iat: now - 700, exp: now - 100 }))), expected: denied },
    { name: 'nbf in the future', request: get(manifest, bearer(await sign({}, { nbf: now + 120 }))), expected: denied },
    { name: 'wrong audience', request: get(manifest, bearer(await sign({}, { aud: 'someone-else' }))), expected: denied },
    { name: 'wrong issuer', request: get(manifest, bearer(await sign({}, { iss: 'someone-else' }))), expected: denied },
    { name: 'token for event A on the path of event B', request: get('/streams/evt-b/index.m3u8', bearer(valid)), expected: denied },
    { name: 'revoked code', request: get(manifest, bearer(await sign({ code: 'REVOKED1' }))), expected: denied },
    {
      name: 'deactivated event',
      request: get('/streams/evt-off/index.m3u8', bearer(await sign({ eid: 'evt-off', path: '/streams/evt-off/' }))),
      expected: denied,
    },
    { name: 'ended session', request: get(manifest, bearer(await sign({ sid: 'sid-ended' }))), expected: denied },
    { name: 'session claim missing', request: get(manifest, bearer(await sign({ sid: undefined }))), expected: denied },
    { name: 'signature with a trailing =', request: get(manifest, bearer(`${valid}=`)), expected: denied },
    { name: 'signature with a last character that decodes to the same bytes', request: get(manifest, bearer(nonCanonical(valid))), expected: denied },
    { name: 'malformed token', request: get(manifest, bearer('not-a-jwt')), expected: denied },
    { name: 'not a media file', request: get('/streams/evt-a/secret.txt', bearer(valid)), expected: denied },
    { name: 'path traversal', request: get('/streams/evt-a/../evt-b/index.m3u8', bearer(valid)), expected: denied },
    { name: 'POST is refused', request: get(manifest, bearer(valid), {}, 'POST'), expected: { status: 405, error: 'Method not allowed', cors: true } },
    { name: 'CORS preflight is answered without a token', request: get(manifest, {}, {}, 'OPTIONS'), expected: { status: 204, cors: true } },
    ...pathCredentialCases(),
    ...(await geoCases()),
    ...(await watermarkCases()),
  ];

  /**
   * A watermarked event (`w:evt-wm`): each session's `.w.ts` request becomes the `.a.ts` or `.b.ts` of the domain's
   * mark bit, the same in every rendition, for both credentials; a version named directly, or an event without a
   * `w:` entry (`evt-nowm`), is denied.
   */
  async function watermarkCases(): Promise<ValidatorCase[]> {
    const cases: ValidatorCase[] = [];
    const bearerOf = async (eventId: string, sid: string) => bearer(await sign({ eid: eventId, sid, path: streamPathOf(eventId) }));
    const inPath = (eventId: string, sid: string, rest: string) =>
      `/streams/${eventId}/~${playbackCredential({ code: 'CODE1', eventId, sessionId: sid, expiresAt: now + 3600 }, { activeKid: 'k1', keys: new Map([['k1', k1]]) })}/${rest}`;
    const versions = new Set<string>();
    for (const sid of ['sid-1', 'sid-2', 'sid-3', 'sid-4']) {
      const headers = await bearerOf('evt-wm', sid);
      for (const index of [0, 7, 255, 256, 1000]) {
        const moment = `pub1-x_${String(index).padStart(5, '0')}`;
        const version = markBit(MARK_KEY, sid, { part: 'pub1-x', index }) === 0 ? 'a' : 'b';
        versions.add(version);
        for (const rendition of ['', '.2']) {
          const marked = { pass: true as const, uri: `/streams/evt-wm/${moment}${rendition}.${version}.ts`, query: [] };
          cases.push({ name: `watermark: ${sid} segment ${index}${rendition}, bearer`, request: get(`/streams/evt-wm/${moment}${rendition}.w.ts`, headers), expected: marked });
          cases.push({ name: `watermark: ${sid} segment ${index}${rendition}, path credential`, request: get(inPath('evt-wm', sid, `${moment}${rendition}.w.ts`)), expected: marked });
        }
      }
    }
    // The table must show both versions, or a validator that always answers A would pass it.
    if (versions.size !== 2) throw new Error('the watermark cases need sessions that get A and B');
    const headers = await bearerOf('evt-wm', 'sid-1');
    for (const named of ['pub1-x_00001.a.ts', 'pub1-x_00001.b.ts', 'pub1-x_00001.2.a.ts', 'pub1-x_00001.0.b.ts']) {
      cases.push({ name: `watermark: ${named} named directly, bearer`, request: get(`/streams/evt-wm/${named}`, headers), expected: denied });
      cases.push({ name: `watermark: ${named} named directly, path credential`, request: get(inPath('evt-wm', 'sid-1', named)), expected: denied });
    }
    const playlist = '/streams/evt-wm/index-live1.m3u8';
    cases.push({ name: 'watermark: a playlist of a watermarked event is left as it is', request: get(playlist, headers), expected: { pass: true, uri: playlist, query: [] } });
    const noKey = await bearerOf('evt-nowm', 'sid-1');
    cases.push({ name: 'watermark: no w: entry for the event, bearer', request: get('/streams/evt-nowm/pub1_00001.w.ts', noKey), expected: denied });
    cases.push({ name: 'watermark: no w: entry for the event, path credential', request: get(inPath('evt-nowm', 'sid-1', 'pub1_00001.1.w.ts')), expected: denied });
    cases.push({ name: 'watermark: an unmarked segment of an event without w: plays', request: get('/streams/evt-nowm/pub1_00001.ts', noKey), expected: { pass: true, uri: '/streams/evt-nowm/pub1_00001.ts', query: [] } });
    return cases;
  }

  /** Country rules (`g:`) against the cloudfront-viewer-country header, for both credentials. */
  async function geoCases(): Promise<ValidatorCase[]> {
    const country = (code: string) => ({ 'cloudfront-viewer-country': code });
    const cases: ValidatorCase[] = [];
    for (const eventId of ['evt-fr', 'evt-noru']) {
      const uri = `/streams/${eventId}/720p/seg-00001.ts`;
      const token = await sign({ eid: eventId, path: streamPathOf(eventId) });
      const inPath = `/streams/${eventId}/~${playbackCredential({ code: 'CODE1', eventId, sessionId: 'sid-1', expiresAt: now + 3600 }, { activeKid: 'k1', keys: new Map([['k1', k1]]) })}/720p/seg-00001.ts`;
      const admitted = eventId === 'evt-fr' ? ['FR', 'BE'] : ['FR', 'DE', null];
      const refused = eventId === 'evt-fr' ? ['DE', 'RU', null, 'fr'] : ['RU'];
      for (const [code, expected] of [...admitted.map((c) => [c, true] as const), ...refused.map((c) => [c, false] as const)]) {
        const headers = code ? country(code) : {};
        const outcome = expected ? { pass: true as const, uri, query: [] } : denied;
        cases.push({ name: `${eventId} from ${code ?? 'an unknown country'}, bearer`, request: get(uri, { ...bearer(token), ...headers }), expected: outcome });
        cases.push({ name: `${eventId} from ${code ?? 'an unknown country'}, path credential`, request: get(inPath, headers), expected: outcome });
      }
    }
    return cases;
  }

  /** The header-less credential in the path (functions/domain/access/playback-url.ts). */
  function pathCredentialCases(): ValidatorCase[] {
    const grant: PlaybackUrlGrant = { code: 'CODE1', eventId: 'evt-a', sessionId: 'sid-1', expiresAt: now + 3600 };
    const credential = (overrides: Partial<PlaybackUrlGrant> = {}, key: Uint8Array = k1, kid = 'k1') =>
      playbackCredential({ ...grant, ...overrides }, { activeKid: kid, keys: new Map([[kid, key]]) });
    const good = credential();
    const [kid, sid, exp, sealed, mac] = good.split('.');
    const at = (cred: string, rest = 'index.m3u8', event = 'evt-a') => `/streams/${event}/~${cred}/${rest}`;
    const flip = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
    const pass = (uri: string, query: string[] = []) => ({ pass: true as const, uri, query });
    return [
      { name: 'path credential: entry playlist, credential cut from the URI', request: get(at(good)), expected: pass(manifest) },
      { name: 'path credential: variant of the ladder', request: get(at(good, '720p/index.m3u8')), expected: pass('/streams/evt-a/720p/index.m3u8') },
      { name: 'path credential: HEAD of a segment', request: get(at(good, '720p/seg-00001.ts'), {}, {}, 'HEAD'), expected: pass('/streams/evt-a/720p/seg-00001.ts') },
      { name: 'path credential: a percent-encoded ~ is the same', request: get(at(good).replace('/~', '/%7E')), expected: pass(manifest) },
      { name: 'path credential: token query is stripped too', request: get(at(good), {}, { token: 'x', v: '1' }), expected: pass(manifest, ['v']) },
      { name: 'path credential wins over a Bearer header', request: get(at(good), bearer('not-a-jwt')), expected: pass(manifest) },
      { name: 'path credential signed with a second listed key', request: get(at(credential({}, k2, 'k2'))), expected: pass(manifest) },
      { name: 'path credential of event A on the path of event B', request: get(at(good, 'index.m3u8', 'evt-b')), expected: denied },
      { name: 'path credential expired', request: get(at(credential({ expiresAt: now - 1 }))), expected: denied },
      { name: 'path credential with an unknown kid', request: get(at(credential({}, k1, 'k9'))), expected: denied },
      { name: 'path credential signed with another key', request: get(at(credential({}, randomBytes(32)))), expected: denied },
      { name: 'path credential: session id changed', request: get(at([kid, 'sid-2', exp, sealed, mac].join('.'))), expected: denied },
      { name: 'path credential: expiry pushed later', request: get(at([kid, sid, (now + 99999).toString(36), sealed, mac].join('.'))), expected: denied },
      { name: 'path credential: sealed code changed', request: get(at([kid, sid, exp, flip(sealed!), mac].join('.'))), expected: denied },
      { name: 'path credential: mac changed', request: get(at([kid, sid, exp, sealed, flip(mac!)].join('.'))), expected: denied },
      { name: 'path credential: a part missing', request: get(at([kid, sid, exp, mac].join('.'))), expected: denied },
      { name: 'path credential: exp not base36', request: get(at([kid, sid, 'ZZ!', sealed, mac].join('.'))), expected: denied },
      { name: 'path credential: empty is no credential', request: get('/streams/evt-a/~/index.m3u8'), expected: { status: 401, error: 'Authorization required', cors: true } },
      { name: 'path credential: garbage', request: get(at('%00%2e%2e')), expected: denied },
      { name: 'path credential: path traversal after it', request: get(at(good, '../evt-b/index.m3u8')), expected: denied },
      { name: 'path credential: not a media file', request: get(at(good, 'secret.txt')), expected: denied },
      { name: 'path credential: revoked code', request: get(at(credential({ code: 'REVOKED1' }))), expected: denied },
      { name: 'path credential: ended session', request: get(at(credential({ sessionId: 'sid-ended' }))), expected: denied },
      {
        name: 'path credential: deactivated event',
        request: get(at(credential({ eventId: 'evt-off' }), 'index.m3u8', 'evt-off')),
        expected: denied,
      },
      { name: 'path credential not right after the event id is no credential', request: get(`/streams/evt-a/720p/~${good}/index.m3u8`), expected: { status: 401, error: 'Authorization required', cors: true } },
    ];
  }
  return { store, cases };
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The mark key of the watermarked event of the cases, derived as edge-sync derives it. */
const MARK_KEY = markKeyOf('the validator cases\' watermark secret', 'evt-wm');

/**
 * The same JWT with its HS256 signature's last character changed in the bits
 * base64url leaves unused (a 32-byte MAC uses only 4 of the last character's
 * 6 bits): lenient decoders read the same MAC from it.
 */
export function nonCanonical(token: string): string {
  const last = BASE64URL.indexOf(token.at(-1)!);
  return token.slice(0, -1) + BASE64URL[last ^ 1]!;
}
