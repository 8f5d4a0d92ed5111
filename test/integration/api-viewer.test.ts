import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { bearer, call } from '../../harness/http';
import { withinOneWindow } from '../support/rate-window';

let api: ApiHarness;
let nextIp = 10;
/** A fresh client address for each viewer, so the per-IP validation limit does not interfere. */
const freshIp = () => `127.0.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 2}`;

beforeAll(async () => {
  api = await startApi({ SESSION_TIMEOUT_SECONDS: '2' });
});
afterAll(() => api?.close());

async function newEvent(overrides: Record<string, unknown> = {}) {
  const res = await api.admin('POST', '/api/admin/events', {
    title: 'Live show',
    description: 'desc',
    startsAt: new Date(Date.now() - 3_600_000).toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    posterUrl: 'https://example.com/poster.jpg',
    ...overrides,
  });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

async function newCodes(eventId: string, count = 1) {
  const res = await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count, label: 'test' });
  expect(res.status).toBe(201);
  return res.body.tokens as { id: string; code: string }[];
}

const validate = (code: unknown, from = freshIp(), headers: Record<string, string> = {}) =>
  call('POST', `${api.url}/api/tokens/validate`, { json: { code }, from, headers });

/** Splits a `playbackUrl`: `<origin>/streams/<eventId>/~<kid>.<sid>.<exp base36>.<sealed code>.<mac>/index.m3u8`. */
function credentialOf(playbackUrl: string, eventId: string) {
  const url = new URL(playbackUrl);
  const match = new RegExp(`^/streams/${eventId}/~([^/]+)/index\\.m3u8$`).exec(url.pathname);
  expect(match, playbackUrl).not.toBeNull();
  const [kid, sid, exp, sealed, mac] = match![1]!.split('.');
  expect(mac).toHaveLength(22);
  return { origin: url.origin, kid, sid, exp: parseInt(exp!, 36), sealed, length: match![1]!.length };
}

async function watching(overrides: Record<string, unknown> = {}) {
  const event = await newEvent(overrides);
  const [token] = await newCodes(event.id);
  const res = await validate(token!.code);
  expect(res.status).toBe(200);
  return { event, token: token!, jwt: res.body.playbackToken as string };
}

describe('POST /api/tokens/validate', () => {
  it('trades a code for a playback token, stream path and viewer event', async () => {
    const event = await newEvent();
    const [token] = await newCodes(event.id);
    const res = await call('POST', `${api.url.replace('127.0.0.1', 'localhost')}/api/tokens/validate`, { json: { code: token!.code } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      event: { title: 'Live show', description: 'desc', posterUrl: 'https://example.com/poster.jpg', isLive: false },
      playbackBaseUrl: 'http://localhost:4000',
      streamPath: `/streams/${event.id}/`,
      tokenExpiresIn: 600,
    });
    expect(Date.parse(res.body.expiresAt)).toBeGreaterThan(Date.now());
    const header = decodeProtectedHeader(res.body.playbackToken);
    expect(header).toMatchObject({ alg: 'HS256', kid: 'test-1' });
    const claims = decodeJwt(res.body.playbackToken);
    expect(claims).toMatchObject({ code: token!.code, eid: event.id, path: `/streams/${event.id}/`, aud: 'stagedoor-playback' });
    expect(claims.exp! - claims.iat!).toBe(600);
    expect(credentialOf(res.body.playbackUrl, event.id)).toMatchObject({
      origin: 'http://localhost:4000',
      kid: 'test-1',
      sid: claims.sid,
      exp: claims.exp,
    });
  });

  it('accepts the code in lower case', async () => {
    const event = await newEvent();
    const [token] = await newCodes(event.id);
    expect((await validate(token!.code.toLowerCase())).status).toBe(200);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['not alphanumeric', 'ABC-123'],
    ['not a string', 12345],
  ])('answers 400 when the code is %s', async (_, code) => {
    const res = await validate(code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Access code is required' });
  });

  it('answers 400 with a clear message for malformed JSON', async () => {
    const res = await call('POST', `${api.url}/api/tokens/validate`, { body: '{"code":', from: freshIp() });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Request body must be valid JSON' });
  });

  it('answers 401 for an unknown code', async () => {
    expect(await validate('UNKNOWNCODE99')).toMatchObject({ status: 401, body: { error: 'Invalid access code' } });
  });

  it('answers 403 for a revoked code and for a deactivated event, 410 after access ends', async () => {
    const event = await newEvent();
    const [revoked, other] = await newCodes(event.id, 2);
    await api.admin('PATCH', `/api/admin/tokens/${revoked!.id}/revoke`);
    expect(await validate(revoked!.code)).toMatchObject({ status: 403, body: { error: 'Access code has been revoked' } });
    await api.admin('PATCH', `/api/admin/events/${event.id}/deactivate`);
    expect(await validate(other!.code)).toMatchObject({ status: 403, body: { error: 'This event is not currently available' } });

    const past = await newEvent({
      startsAt: new Date(Date.now() - 7_200_000).toISOString(),
      endsAt: new Date(Date.now() - 3_600_000).toISOString(),
      accessWindowHours: 0,
    });
    const [expired] = await newCodes(past.id);
    expect(await validate(expired!.code)).toMatchObject({ status: 410, body: { error: 'Access code has expired' } });
  });

  it('lets another device in once the session times out, and the old device loses it', async () => {
    const { token, jwt } = await watching();
    expect((await validate(token.code)).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 2200));
    const second = await validate(token.code);
    expect(second.status).toBe(200);
    expect(await call('POST', `${api.url}/api/playback/heartbeat`, { headers: bearer(jwt) })).toMatchObject({
      status: 404,
      body: { error: 'Session not found' },
    });
    expect((await call('POST', `${api.url}/api/playback/refresh`, { headers: bearer(jwt) })).status).toBe(401);
  });

  it('frees the code at once on release', async () => {
    const { token, jwt } = await watching();
    expect(await call('POST', `${api.url}/api/playback/release`, { headers: bearer(jwt) })).toMatchObject({
      status: 200,
      body: { released: true },
    });
    expect((await validate(token.code)).status).toBe(200);
  });

  it('limits validation to 5 a minute per client address, with Retry-After, ignoring X-Forwarded-For', async () => {
    await withinOneWindow(60);
    const from = freshIp();
    for (let i = 0; i < 5; i++) {
      expect((await validate('NOSUCHCODE22', from, { 'x-forwarded-for': `10.0.0.${i}` })).status).toBe(401);
    }
    const limited = await validate('NOSUCHCODE22', from, { 'x-forwarded-for': '10.9.9.9' });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Too many requests. Please try again later.' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await validate('NOSUCHCODE22', freshIp())).status).toBe(401);
  });

  it('counts only failed validations: a crowd behind one address all get in', async () => {
    await withinOneWindow(60);
    const from = freshIp();
    const event = await newEvent();
    const tokens = await newCodes(event.id, 12);
    for (const token of tokens) expect((await validate(token.code, from)).status).toBe(200);
    // Malformed and unknown codes do count; the fifth failure fills the window.
    expect((await validate('!!', from)).status).toBe(400);
    for (let i = 0; i < 4; i++) expect((await validate('NOSUCHCODE22', from)).status).toBe(401);
    expect((await validate('NOSUCHCODE22', from)).status).toBe(429);
  });

  it('refuses even a valid code from an address whose failures filled the window', async () => {
    await withinOneWindow(60);
    const from = freshIp();
    const event = await newEvent();
    const [token] = await newCodes(event.id);
    for (let i = 0; i < 5; i++) expect((await validate('NOSUCHCODE22', from)).status).toBe(401);
    const refused = await validate(token!.code, from);
    expect(refused).toMatchObject({ status: 429, body: { error: 'Too many requests. Please try again later.' } });
    expect((await validate(token!.code, freshIp())).status).toBe(200);
  });

  it('records the connection address as redeemedIp, not a forwarded header', async () => {
    const event = await newEvent();
    const [token] = await newCodes(event.id);
    const from = freshIp();
    expect((await validate(token!.code, from, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(200);
    const list = await api.admin('GET', `/api/admin/events/${event.id}/tokens`);
    expect(list.body.tokens[0]).toMatchObject({ redeemedIp: from, status: 'redeemed' });
    expect(list.body.tokens[0].redeemedAt).toEqual(expect.any(String));
  });
});

describe('playback refresh, heartbeat and release', () => {
  const post = (path: string, jwt?: string) =>
    call('POST', `${api.url}/api/playback/${path}`, { headers: jwt ? bearer(jwt) : {} });

  it('refreshes while the session is live', async () => {
    const { jwt } = await watching();
    const res = await post('refresh', jwt);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ playbackToken: expect.any(String), playbackUrl: expect.any(String), tokenExpiresIn: 600 });
    const claims = decodeJwt(res.body.playbackToken);
    expect(claims.sid).toBe(decodeJwt(jwt).sid);
    expect(credentialOf(res.body.playbackUrl, claims.eid as string)).toMatchObject({ sid: claims.sid, exp: claims.exp });
  });

  it('hands out a long-lived playback URL for the session: until access ends, at most 12 h, code not readable', async () => {
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    const { event, token, jwt } = await watching({ endsAt, accessWindowHours: 2 });
    const res = await post('url', jwt);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ playbackUrl: expect.any(String), expiresAt: expect.any(String), expiresIn: expect.any(Number) });
    const credential = credentialOf(res.body.playbackUrl, event.id);
    expect(credential).toMatchObject({ sid: decodeJwt(jwt).sid, exp: Math.floor(Date.parse(res.body.expiresAt) / 1000) });
    expect(Date.parse(res.body.expiresAt)).toBe(Date.parse(endsAt) + 2 * 3_600_000 - (Date.parse(endsAt) % 1000));
    expect(credential.length).toBeLessThan(100);
    expect(res.body.playbackUrl).not.toContain(token.code);

    const farEvent = await watching({ endsAt: new Date(Date.now() + 48 * 3_600_000).toISOString() });
    const far = await post('url', farEvent.jwt);
    expect(far.body.expiresIn).toBeGreaterThan(12 * 3600 - 5);
    expect(far.body.expiresIn).toBeLessThanOrEqual(12 * 3600);
  });

  it('refuses a long-lived URL without a live session, for a revoked code and without a token', async () => {
    expect(await post('url')).toMatchObject({ status: 401, body: { error: 'Valid playback token required' } });
    const released = await watching();
    await post('release', released.jwt);
    expect(await post('url', released.jwt)).toMatchObject({ status: 401, body: { error: 'Valid playback token required' } });
    const revoked = await watching();
    expect((await api.admin('PATCH', `/api/admin/tokens/${revoked.token.id}/revoke`)).status).toBe(200);
    expect(await post('url', revoked.jwt)).toMatchObject({ status: 403, body: { error: 'Access has been revoked' } });
  });

  it('keeps the session alive by heartbeat', async () => {
    const { jwt } = await watching();
    expect(await post('heartbeat', jwt)).toMatchObject({ status: 200, body: { ok: true } });
  });

  it.each(['refresh', 'heartbeat', 'release'])('%s answers 401 without a valid token', async (path) => {
    expect(await post(path)).toMatchObject({ status: 401, body: { error: 'Valid playback token required' } });
    expect(await post(path, 'not.a.jwt')).toMatchObject({ status: 401, body: { error: 'Valid playback token required' } });
  });

  it("adds each heartbeat's quality report to the session: absurd numbers clamped, a wrong type refused with 400 and not applied", async () => {
    const { token, jwt } = await watching();
    const beat = (body: unknown, bearerJwt: string | null = jwt) =>
      call('POST', `${api.url}/api/playback/heartbeat`, { headers: bearerJwt ? bearer(bearerJwt) : {}, json: body });
    const first = { playingMs: 20_000, stalledMs: 5_000, stalls: 2, startupMs: 1_500, bitrateKbps: 800, droppedFrames: 3, errors: { count: 1 } };
    expect(await beat({ qoe: first })).toMatchObject({ status: 200, body: { ok: true } });
    // Playing time far beyond one beat is cut to 120 s, a negative stall to 0, counts to 1,000; the first start-up time stays.
    expect(await beat({ qoe: { playingMs: 1e12, stalledMs: -5, stalls: 5_000, startupMs: 9_000, errors: { lastFatal: 'manifest Load<Error>!' } } })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    // A report with a field of the wrong type is dropped whole, never the beat: the viewer keeps the seat.
    expect(await beat({ qoe: { playingMs: 'lots', stalls: 400 } })).toMatchObject({ status: 200, body: { ok: true } });
    expect(await beat({ qoe: [1] })).toMatchObject({ status: 200, body: { ok: true } });
    // The token comes first: without one the answer is the spec's 401, whatever the body.
    expect(await beat({ qoe: { playingMs: 'lots' } }, null)).toMatchObject({ status: 401, body: { error: 'Valid playback token required' } });
    expect(await beat({ qoe: null })).toMatchObject({ status: 200, body: { ok: true } });

    const watched = await api.admin('GET', `/api/admin/tokens/${token.id}/watching`);
    expect(watched.status).toBe(200);
    expect(watched.body).toMatchObject({
      sessions: 1,
      watchMinutes: 2.4,
      stalls: 1_002,
      errors: 1,
      lastError: 'manifestLoadError',
      watchingNow: { startupMs: 1_500, bitrateKbps: 800 },
    });
  });

  it('refuses refresh and heartbeat once the code is revoked', async () => {
    const { token, jwt } = await watching();
    await api.admin('PATCH', `/api/admin/tokens/${token.id}/revoke`);
    expect(await post('refresh', jwt)).toMatchObject({ status: 403, body: { error: 'Access has been revoked' } });
    expect(await post('heartbeat', jwt)).toMatchObject({ status: 403, body: { error: 'Access has been revoked' } });
  });

  it('refuses refresh and heartbeat once the event is deactivated', async () => {
    const { event, jwt } = await watching();
    await api.admin('PATCH', `/api/admin/events/${event.id}/deactivate`);
    expect(await post('refresh', jwt)).toMatchObject({ status: 403, body: { error: 'Access has been revoked' } });
    expect(await post('heartbeat', jwt)).toMatchObject({ status: 403, body: { error: 'Access has been revoked' } });
  });

  it('answers 410 to a refresh with an expired token', async () => {
    const { jwt } = await watching();
    const claims = decodeJwt(jwt);
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ ...claims, iat: now - 700, nbf: now - 700, exp: now - 100 })
      .setProtectedHeader({ alg: 'HS256', kid: 'test-1' })
      .sign(api.signingKey);
    expect(await post('refresh', expired)).toMatchObject({ status: 410, body: { error: 'Access has expired' } });
    expect((await post('heartbeat', expired)).status).toBe(401);
    expect(await post('release', expired)).toMatchObject({ status: 200, body: { released: true } });
  });

  it('answers 410 when the event access window is over', async () => {
    const { event, jwt } = await watching();
    await api.admin('PUT', `/api/admin/events/${event.id}`, {
      startsAt: new Date(Date.now() - 7_200_000).toISOString(),
      endsAt: new Date(Date.now() - 3_600_000).toISOString(),
      accessWindowHours: 0,
    });
    expect(await post('refresh', jwt)).toMatchObject({ status: 410, body: { error: 'Access has expired' } });
  });

  it('limits refresh to 12 an hour per code', async () => {
    await withinOneWindow(3600);
    const { jwt } = await watching();
    // A heartbeat before each refresh keeps the session (2 s timeout in this file) live on a slow machine.
    for (let i = 0; i < 12; i++) {
      expect((await post('heartbeat', jwt)).status).toBe(200);
      expect((await post('refresh', jwt)).status).toBe(200);
    }
    const limited = await post('refresh', jwt);
    expect(limited).toMatchObject({ status: 429, body: { error: 'Too many refresh requests' } });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('release succeeds again when the session is already gone', async () => {
    const { jwt } = await watching();
    expect((await post('release', jwt)).body).toEqual({ released: true });
    expect((await post('release', jwt)).body).toEqual({ released: true });
    expect(await post('heartbeat', jwt)).toMatchObject({ status: 404, body: { error: 'Session not found' } });
  });
});

describe('playback token forgery', () => {
  async function forged(mutate: (claims: Record<string, unknown>) => Promise<string> | string) {
    const { jwt } = await watching();
    const token = await mutate({ ...decodeJwt(jwt) });
    return call('POST', `${api.url}/api/playback/heartbeat`, { headers: bearer(token) });
  }
  const sign = (claims: Record<string, unknown>, key: Uint8Array, header: Record<string, unknown> = { alg: 'HS256', kid: 'test-1' }) =>
    new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign(key);

  it('accepts the genuine token (control)', async () => {
    expect((await forged((claims) => sign(claims, api.signingKey))).status).toBe(200);
  });

  it('rejects a tampered payload', async () => {
    const res = await forged(async (claims) => {
      const [h, , s] = (await sign(claims, api.signingKey)).split('.');
      const payload = Buffer.from(JSON.stringify({ ...claims, eid: 'another-event' })).toString('base64url');
      return `${h}.${payload}.${s}`;
    });
    expect(res.status).toBe(401);
  });

  it('rejects alg none', async () => {
    const res = await forged((claims) => {
      const enc = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      return `${enc({ alg: 'none', typ: 'JWT', kid: 'test-1' })}.${enc(claims)}.`;
    });
    expect(res.status).toBe(401);
  });

  it('rejects a token signed with another key, an unknown kid, or another HMAC algorithm', async () => {
    expect((await forged((claims) => sign(claims, new Uint8Array(32).fill(7)))).status).toBe(401);
    expect((await forged((claims) => sign(claims, api.signingKey, { alg: 'HS256', kid: 'unknown' }))).status).toBe(401);
    expect((await forged((claims) => sign(claims, api.signingKey, { alg: 'HS512', kid: 'test-1' }))).status).toBe(401);
  });

  it('rejects an expired token and a token for another audience', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await forged((claims) => sign({ ...claims, exp: now - 1 }, api.signingKey))).status).toBe(401);
    expect((await forged((claims) => sign({ ...claims, aud: 'someone-else' }, api.signingKey))).status).toBe(401);
    expect((await forged((claims) => sign({ ...claims, path: '/streams/other/' }, api.signingKey))).status).toBe(401);
  });
});

describe('GET /api/events/:id/status', () => {
  it('reports the public status of an event', async () => {
    const event = await newEvent();
    const res = await call('GET', `${api.url}/api/events/${event.id}/status`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ eventId: event.id, status: 'not-started', startsAt: expect.any(String), endsAt: expect.any(String) });
  });

  it('lets shared caches keep the status for a few seconds, and never an unknown event', async () => {
    const event = await newEvent();
    const res = await call('GET', `${api.url}/api/events/${event.id}/status`);
    expect(res.headers['cache-control']).toBe('public, max-age=0, s-maxage=5');
    const missing = await call('GET', `${api.url}/api/events/nope/status`);
    expect(missing.headers['cache-control']).toBe('no-store');
  });

  it('follows the ingest\'s lease: live while on air, recording after', async () => {
    const event = await newEvent();
    const lease = (action: 'acquire' | 'release') =>
      call('POST', `${api.url}/api/internal/streams/${event.id}/lease`, {
        json: { holder: 'ingest-a', action },
        headers: { 'x-internal-api-key': api.internalApiKey },
      });
    expect(await lease('acquire')).toMatchObject({ status: 200, body: { eventId: event.id, holder: 'ingest-a' } });
    expect((await call('GET', `${api.url}/api/events/${event.id}/status`)).body.status).toBe('live');
    await lease('release');
    expect((await call('GET', `${api.url}/api/events/${event.id}/status`)).body.status).toBe('recording');
  });

  it('answers 404 for an unknown event', async () => {
    expect(await call('GET', `${api.url}/api/events/nope/status`)).toMatchObject({ status: 404, body: { error: 'Event not found' } });
  });
});
