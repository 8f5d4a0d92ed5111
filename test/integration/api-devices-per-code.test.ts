import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { bearer, call } from '../../harness/http';

const IN_USE = { error: 'This access code is currently in use on another device', inUse: true };

/** An event letting `devicesPerCode` devices watch on a code, and one code of it. */
async function codeOf(api: ApiHarness, devicesPerCode: number) {
  const event = await api.admin('POST', '/api/admin/events', {
    title: 'Devices',
    startsAt: new Date(Date.now() - 3_600_000).toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    devicesPerCode,
  });
  expect(event).toMatchObject({ status: 201, body: { devicesPerCode } });
  const tokens = await api.admin('POST', `/api/admin/events/${event.body.id}/tokens`, { count: 1 });
  return { eventId: event.body.id as string, code: tokens.body.tokens[0].code as string, tokenId: tokens.body.tokens[0].id as string };
}

const validate = (api: ApiHarness, code: string, from: string) => call('POST', `${api.url}/api/tokens/validate`, { json: { code }, from });

// The default 90 s session timeout: no device can time out while the race runs, however slow the machine.
describe('devices per code through the API, devices beating', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api?.close());

  it('takes devicesPerCode on create and PUT, refuses 0 or 6 naming it, and shows it in the details', async () => {
    const { eventId } = await codeOf(api, 3);
    expect(await api.admin('PUT', `/api/admin/events/${eventId}`, { devicesPerCode: 6 })).toMatchObject({ status: 400, body: { error: 'devicesPerCode: must be at most 5' } });
    expect(await api.admin('PUT', `/api/admin/events/${eventId}`, { devicesPerCode: 0 })).toMatchObject({ status: 400, body: { error: 'devicesPerCode: must be at least 1' } });
    expect(await api.admin('PUT', `/api/admin/events/${eventId}`, { devicesPerCode: 4 })).toMatchObject({ status: 200, body: { devicesPerCode: 4 } });
    expect(await api.admin('GET', `/api/admin/events/${eventId}`)).toMatchObject({ status: 200, body: { devicesPerCode: 4 } });
  });

  it('gives exactly 2 of 20 parallel validations the code with N = 2, the rest 409 inUse; a release frees a slot; a revoke cuts both', async () => {
    const { eventId, code, tokenId } = await codeOf(api, 2);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => validate(api, code, `127.4.0.${i + 2}`)));
    const granted = results.filter((r) => r.status === 200);
    expect(granted).toHaveLength(2);
    for (const r of results.filter((r) => r.status !== 200)) expect(r).toMatchObject({ status: 409, body: IN_USE });
    const sessions = await api.admin('GET', `/api/admin/events/${eventId}/sessions`);
    expect(sessions.body.sessions).toHaveLength(2);
    expect(await validate(api, code, '127.4.1.1')).toMatchObject({ status: 409, body: IN_USE });

    const [first, second] = granted.map((r) => r.body.playbackToken as string);
    expect(await call('POST', `${api.url}/api/playback/release`, { headers: bearer(first!) })).toMatchObject({ status: 200, body: { released: true } });
    const third = await validate(api, code, '127.4.1.2');
    expect(third.status).toBe(200);
    expect(await validate(api, code, '127.4.1.3')).toMatchObject({ status: 409, body: IN_USE });

    expect(await api.admin('PATCH', `/api/admin/tokens/${tokenId}/revoke`)).toMatchObject({ status: 200 });
    for (const token of [second!, third.body.playbackToken as string]) {
      expect(await call('POST', `${api.url}/api/playback/refresh`, { headers: bearer(token) })).toMatchObject({ status: 403, body: { error: 'Access has been revoked' } });
    }
  });

  it('lists each device of a code and ends one on "End session", the other watching on; the code\'s row counts its slots', async () => {
    const { eventId, code } = await codeOf(api, 3);
    const devices = [await validate(api, code, '127.4.2.1'), await validate(api, code, '127.4.2.2')];
    const listed = await api.admin('GET', `/api/admin/events/${eventId}/sessions`);
    expect(listed.body.sessions.map((row: { slot: number }) => row.slot).sort()).toEqual([1, 2]);
    expect((await api.admin('GET', `/api/admin/events/${eventId}/tokens`)).body.tokens[0]).toMatchObject({ devices: { inUse: 2, of: 3 } });

    const second = listed.body.sessions.find((row: { slot: number }) => row.slot === 2);
    expect(await api.admin('POST', `/api/admin/events/${eventId}/sessions/end`, { code, sessionId: second.sessionId })).toMatchObject({ status: 200, body: { ended: true } });
    expect(await call('POST', `${api.url}/api/playback/heartbeat`, { headers: bearer(devices[1]!.body.playbackToken) })).toMatchObject({ status: 404, body: { reason: 'ended-by-admin' } });
    expect(await call('POST', `${api.url}/api/playback/heartbeat`, { headers: bearer(devices[0]!.body.playbackToken) })).toMatchObject({ status: 200 });
    expect((await api.admin('GET', `/api/admin/events/${eventId}/sessions`)).body.sessions).toHaveLength(1);
    expect((await api.admin('GET', `/api/admin/events/${eventId}/tokens`)).body.tokens[0]).toMatchObject({ devices: { inUse: 1, of: 3 } });
  });
});

// A 2 s session timeout, so that a device stops counting soon after its last beat.
describe('devices per code through the API, a device gone silent', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ SESSION_TIMEOUT_SECONDS: '2' });
  });
  afterAll(() => api?.close());

  it('reclaims a timed-out slot for a new device, and the device taken over is told so and fed to the edge', async () => {
    const { code } = await codeOf(api, 2);
    const first = await validate(api, code, '127.5.0.2');
    const second = await validate(api, code, '127.5.0.3');
    expect([first.status, second.status]).toEqual([200, 200]);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const since = new Date().toISOString();
    const third = await validate(api, code, '127.5.0.4');
    expect(third.status).toBe(200);
    // The first free-or-stale slot is slot 1: the first device's.
    expect(await call('POST', `${api.url}/api/playback/refresh`, { headers: bearer(first.body.playbackToken) })).toMatchObject({ status: 401, body: { reason: 'taken-over' } });
    const feed = await call('GET', `${api.url}/api/revocations?since=${encodeURIComponent(new Date(Date.parse(since) - 1000).toISOString())}`, {
      headers: { 'x-internal-api-key': api.internalApiKey },
    });
    const sid = JSON.parse(Buffer.from((first.body.playbackToken as string).split('.')[1]!, 'base64url').toString()).sid;
    expect(feed.body.endedSessions.map((ended: { sessionId: string }) => ended.sessionId)).toContain(sid);
  });
});
