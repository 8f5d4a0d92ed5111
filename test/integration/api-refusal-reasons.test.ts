/**
 * The machine-readable `reason` of the viewer endpoints' refusals (docs/api.md,
 * "Access API"): each cause the player words differently has its own value,
 * beside the spec's unchanged status and `error` text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { bearer, call } from '../../harness/http';

/** Short, so a takeover needs no long wait; nothing here needs a session to stay live for long. */
const SESSION_TIMEOUT_SECONDS = 3;

let api: ApiHarness;
let nextIp = 10;
const freshIp = () => `127.3.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 2}`;

beforeAll(async () => {
  api = await startApi({ SESSION_TIMEOUT_SECONDS: String(SESSION_TIMEOUT_SECONDS) });
});
afterAll(() => api?.close());

const validate = (code: string) => call('POST', `${api.url}/api/tokens/validate`, { json: { code }, from: freshIp() });
const post = (path: string, jwt: string) => call('POST', `${api.url}/api/playback/${path}`, { headers: bearer(jwt) });

async function newEvent(overrides: Record<string, unknown> = {}) {
  const res = await api.admin('POST', '/api/admin/events', {
    title: 'Reasons',
    startsAt: new Date(Date.now() - 3_600_000).toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    ...overrides,
  });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

async function codeOf(eventId: string) {
  const res = await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 1, label: 'reasons' });
  return res.body.tokens[0] as { id: string; code: string };
}

async function watching() {
  const event = await newEvent();
  const token = await codeOf(event.id);
  const res = await validate(token.code);
  expect(res.status).toBe(200);
  return { event, token, jwt: res.body.playbackToken as string };
}

describe('validate', () => {
  it('tells a revoked code from a deactivated event, and names an expired one', async () => {
    const revoked = await watching();
    await api.admin('PATCH', `/api/admin/tokens/${revoked.token.id}/revoke`);
    expect(await validate(revoked.token.code)).toMatchObject({
      status: 403,
      body: { error: 'Access code has been revoked', reason: 'revoked' },
    });

    const inactive = await newEvent();
    const code = await codeOf(inactive.id);
    await api.admin('PATCH', `/api/admin/events/${inactive.id}/deactivate`);
    expect(await validate(code.code)).toMatchObject({
      status: 403,
      body: { error: 'This event is not currently available', reason: 'event-inactive' },
    });

    const over = await newEvent({
      startsAt: new Date(Date.now() - 7_200_000).toISOString(),
      endsAt: new Date(Date.now() - 3_600_000).toISOString(),
      accessWindowHours: 0,
    });
    expect(await validate((await codeOf(over.id)).code)).toMatchObject({
      status: 410,
      body: { error: 'Access code has expired', reason: 'expired' },
    });
  });

  it('keeps the spec bodies of an unknown code and of a code in use as they are', async () => {
    expect((await validate('NOSUCHCODE99')).body).toEqual({ error: 'Invalid access code' });
    const { token } = await watching();
    expect((await validate(token.code)).body).toEqual({ error: 'This access code is currently in use on another device', inUse: true });
  });
});

describe('refresh and heartbeat', () => {
  it('say revoked or event-inactive behind the same 403 text', async () => {
    const revoked = await watching();
    await api.admin('PATCH', `/api/admin/tokens/${revoked.token.id}/revoke`);
    for (const path of ['refresh', 'heartbeat', 'url']) {
      expect(await post(path, revoked.jwt), path).toMatchObject({ status: 403, body: { error: 'Access has been revoked', reason: 'revoked' } });
    }
    const inactive = await watching();
    await api.admin('PATCH', `/api/admin/events/${inactive.event.id}/deactivate`);
    for (const path of ['refresh', 'heartbeat', 'url']) {
      expect(await post(path, inactive.jwt), path).toMatchObject({
        status: 403,
        body: { error: 'Access has been revoked', reason: 'event-inactive' },
      });
    }
  });

  it('say ended-by-admin after an organiser ended the session', async () => {
    const { event, token, jwt } = await watching();
    const ended = await api.admin('POST', `/api/admin/events/${event.id}/sessions/end`, { code: token.code, sessionId: decodeJwt(jwt).sid });
    expect(ended.status).toBe(200);
    expect(await post('refresh', jwt)).toMatchObject({
      status: 401,
      body: { error: 'Valid playback token required', reason: 'ended-by-admin', endedBy: 'admin' },
    });
    expect(await post('heartbeat', jwt)).toMatchObject({ status: 404, body: { error: 'Session not found', reason: 'ended-by-admin' } });
  });

  it('say session-ended after a release, and taken-over once another device has the code', async () => {
    const { jwt } = await watching();
    expect((await post('release', jwt)).status).toBe(200);
    expect(await post('refresh', jwt)).toMatchObject({ status: 401, body: { error: 'Valid playback token required', reason: 'session-ended' } });
    expect(await post('heartbeat', jwt)).toMatchObject({ status: 404, body: { error: 'Session not found', reason: 'session-ended' } });

    const first = await watching();
    // The first device stops beating; once its session timed out, the next validation takes the code over.
    await expect.poll(async () => (await validate(first.token.code)).status, { timeout: 30_000, interval: 500 }).toBe(200);
    expect(await post('refresh', first.jwt)).toMatchObject({ status: 401, body: { error: 'Valid playback token required', reason: 'taken-over' } });
    expect(await post('heartbeat', first.jwt)).toMatchObject({ status: 404, body: { error: 'Session not found', reason: 'taken-over' } });
  });

  it('say invalid-token for a token that is not a viewer JWT, at every step', async () => {
    for (const path of ['refresh', 'heartbeat', 'release', 'url']) {
      expect(await post(path, 'not.a.jwt'), path).toMatchObject({
        status: 401,
        body: { error: 'Valid playback token required', reason: 'invalid-token' },
      });
    }
  });
});
