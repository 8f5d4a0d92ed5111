import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';
import type { RevocationFeed } from '../../functions/domain/access';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

let ip = 2;
async function setup(count = 2) {
  const event = (
    await api.admin('POST', '/api/admin/events', {
      title: 'Feed',
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    })
  ).body as { id: string };
  const tokens = (await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count })).body.tokens as { id: string; code: string }[];
  return { event, tokens };
}

const feed = async (since: string): Promise<RevocationFeed> => {
  const res = await call('GET', `${api.url}/api/revocations?since=${encodeURIComponent(since)}`, {
    headers: { 'x-internal-api-key': api.internalApiKey },
  });
  expect(res.status).toBe(200);
  return res.body;
};

describe('GET /api/revocations', () => {
  it('requires the internal key and a since parameter', async () => {
    expect(await call('GET', `${api.url}/api/revocations?since=2020-01-01T00:00:00Z`)).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect(
      await call('GET', `${api.url}/api/revocations?since=2020-01-01T00:00:00Z`, { headers: { 'x-internal-api-key': 'wrong' } }),
    ).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect(
      await call('GET', `${api.url}/api/revocations`, { headers: { 'x-internal-api-key': api.internalApiKey } }),
    ).toMatchObject({ status: 400, body: { error: 'since parameter required' } });
  });

  it('follows revoke, unrevoke, deactivate and reactivate, polling with serverTime', async () => {
    const { event, tokens } = await setup();
    const [a, b] = tokens as [{ id: string; code: string }, { id: string; code: string }];
    let since = (await feed(new Date().toISOString())).serverTime;

    await api.admin('PATCH', `/api/admin/tokens/${a.id}/revoke`);
    let page = await feed(since);
    expect(page.revocations).toContainEqual({ code: a.code, revokedAt: expect.any(String), until: expect.any(String) });
    since = page.serverTime;

    await api.admin('PATCH', `/api/admin/tokens/${a.id}/unrevoke`);
    page = await feed(since);
    expect(page.unrevocations).toContainEqual({ code: a.code, unrevokedAt: expect.any(String) });
    expect(page.revocations.map((r) => r.code)).not.toContain(a.code);
    since = page.serverTime;

    await api.admin('PATCH', `/api/admin/events/${event.id}/deactivate`);
    page = await feed(since);
    const deactivation = page.eventDeactivations.find((d) => d.eventId === event.id)!;
    expect(deactivation).toEqual({
      eventId: event.id,
      deactivatedAt: expect.any(String),
      tokenCodes: expect.arrayContaining([a.code, b.code]),
      until: expect.any(String),
    });
    since = page.serverTime;

    await api.admin('PATCH', `/api/admin/events/${event.id}/activate`);
    page = await feed(since);
    expect(page.eventReactivations).toContainEqual({ eventId: event.id, reactivatedAt: expect.any(String) });
    expect(page.eventDeactivations.map((d) => d.eventId)).not.toContain(event.id);
  });

  it('does not list a plain release: its short-lived JWT simply expires', async () => {
    const { tokens } = await setup(1);
    const since = new Date(Date.now() - 1000).toISOString();
    const validated = await call('POST', `${api.url}/api/tokens/validate`, { json: { code: tokens[0]!.code }, from: `127.2.0.${ip++}` });
    const jwt = validated.body.playbackToken as string;
    const sid = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).sid;
    await call('POST', `${api.url}/api/playback/release`, { headers: { authorization: `Bearer ${jwt}` } });
    expect((await feed(since)).endedSessions.map((ended) => ended.sessionId)).not.toContain(sid);
  });

  it('keeps serverTime a little behind the clock, so the next poll overlaps', async () => {
    const page = await feed('2020-01-01T00:00:00Z');
    const lag = Date.now() - Date.parse(page.serverTime);
    expect(lag).toBeGreaterThanOrEqual(4000);
    expect(lag).toBeLessThan(60_000);
  });

  it('shows a deleted event as deactivated', async () => {
    const { event } = await setup(1);
    const since = new Date(Date.now() - 1000).toISOString();
    await api.admin('DELETE', `/api/admin/events/${event.id}`);
    expect((await feed(since)).eventDeactivations.map((d) => d.eventId)).toContain(event.id);
  });
});

describe('POST /api/internal/streams/:eventId/lease', () => {
  const lease = (eventId: string, body: unknown, key = api.internalApiKey) =>
    call('POST', `${api.url}/api/internal/streams/${eventId}/lease`, { json: body, headers: { 'x-internal-api-key': key } });
  const status = async (eventId: string) => (await call('GET', `${api.url}/api/events/${eventId}/status`)).body.status;

  it('one holder at a time: taken, renewed, refused to another, released; live while held', async () => {
    const { event } = await setup(1);
    expect((await lease(event.id, { holder: 'a', action: 'acquire' }, 'wrong')).status).toBe(401);
    expect(await lease(event.id, { holder: 'bad holder', action: 'acquire' })).toMatchObject({ status: 400 });
    expect(await lease('nope', { holder: 'a', action: 'acquire' })).toMatchObject({ status: 404, body: { error: 'Event not found' } });

    const taken = await lease(event.id, { holder: 'ingest-a', action: 'acquire' });
    expect(taken).toMatchObject({ status: 200, body: { eventId: event.id, holder: 'ingest-a' } });
    expect(Date.parse(taken.body.expiresAt) - Date.now()).toBeGreaterThan(5_000);
    expect(await status(event.id)).toBe('live');
    expect(await lease(event.id, { holder: 'ingest-b', action: 'acquire' })).toMatchObject({
      status: 409,
      body: { error: 'Stream is on air on another ingest' },
    });
    expect((await lease(event.id, { holder: 'ingest-a', action: 'acquire' })).status).toBe(200);
    // Someone else's release changes nothing.
    expect((await lease(event.id, { holder: 'ingest-b', action: 'release' })).status).toBe(200);
    expect(await status(event.id)).toBe('live');

    expect(await lease(event.id, { holder: 'ingest-a', action: 'release' })).toMatchObject({ status: 200, body: { released: true } });
    expect(await status(event.id)).toBe('recording');
    expect((await lease(event.id, { holder: 'ingest-b', action: 'acquire' })).status).toBe(200);
  });

  it('puts a show\'s start, stop and take-over in the event\'s audit log by the ingest; renewals are not entries', async () => {
    const { event } = await setup(0);
    const log = async () =>
      ((await api.admin('GET', `/api/admin/events/${event.id}/audit?limit=200`)).body.entries as { action: string; actor: string }[]).filter(
        (entry) => entry.actor === 'ingest',
      );
    await lease(event.id, { holder: 'ingest-a', action: 'acquire' });
    for (let i = 0; i < 3; i++) await lease(event.id, { holder: 'ingest-a', action: 'acquire' });
    await lease(event.id, { holder: 'ingest-b', action: 'release' });
    await lease(event.id, { holder: 'ingest-a', action: 'release' });
    // ingest-b's lease runs out mid-show (it died); ingest-c takes the show over.
    const events = dynamoStores(dynamoDocumentClient(api.wiring.aws), 'stagedoor').events;
    const past = new Date(Date.now() - 60_000);
    await events.acquireStreamLease(event.id, { holder: 'ingest-b', now: past.toISOString(), expiresAt: new Date(past.getTime() + 15_000).toISOString() });
    await lease(event.id, { holder: 'ingest-c', action: 'acquire' });
    const entries = await log();
    expect(entries.map((entry) => entry.action)).toEqual(['stream.takeover', 'stream.stop', 'stream.start']);
    for (const entry of entries) {
      expect(entry).toMatchObject({ actor: 'ingest', eventId: event.id, eventTitle: 'Feed', target: 'Feed', clientIp: expect.any(String) });
    }
    expect(entries[0]).toMatchObject({ details: { ingest: 'ingest-c' } });
  });

  it('the other encoder stands by on another process; the holder hands over without the event leaving live', async () => {
    const { event } = await setup(0);
    expect(await lease(event.id, { holder: 'ingest-a', action: 'acquire', role: 'primary' })).toMatchObject({ status: 200, body: { onAir: true, role: 'primary', standby: null } });
    // The same encoder twice is refused; the other one stands by.
    expect(await lease(event.id, { holder: 'ingest-b', action: 'acquire', role: 'primary' })).toMatchObject({ status: 409 });
    expect(await lease(event.id, { holder: 'ingest-b', action: 'acquire', role: 'backup' })).toMatchObject({ status: 200, body: { onAir: false, role: 'backup', onAirRole: 'primary' } });
    // A second standby is refused while the first is fresh.
    expect(await lease(event.id, { holder: 'ingest-c', action: 'acquire', role: 'backup' })).toMatchObject({ status: 409 });
    expect(await lease(event.id, { holder: 'ingest-a', action: 'acquire', role: 'primary' })).toMatchObject({ status: 200, body: { standby: { holder: 'ingest-b', role: 'backup' } } });
    // Only the holder hands over.
    expect((await lease(event.id, { holder: 'ingest-b', action: 'handover' })).status).toBe(409);
    expect(await lease(event.id, { holder: 'ingest-a', action: 'handover' })).toMatchObject({ status: 200, body: { holder: 'ingest-b', role: 'backup' } });
    expect(await status(event.id)).toBe('live');
    expect(await lease(event.id, { holder: 'ingest-b', action: 'acquire', role: 'backup' })).toMatchObject({ status: 200, body: { onAir: true, role: 'backup' } });
    // The primary back on A waits as standby: no flip-flop.
    expect(await lease(event.id, { holder: 'ingest-a', action: 'acquire', role: 'primary' })).toMatchObject({ status: 200, body: { onAir: false } });
    const entries = (await api.admin('GET', `/api/admin/events/${event.id}/audit?limit=200`)).body.entries as { action: string; details: Record<string, unknown> }[];
    expect(entries.find((entry) => entry.action === 'stream.failover')).toMatchObject({ details: { from: 'primary', to: 'backup', ingest: 'ingest-b' } });
  });

  it('a holder with both encoders keeps the standby place: the same encoder elsewhere is refused until it leaves', async () => {
    const { event } = await setup(0);
    expect((await lease(event.id, { holder: 'ingest-a', action: 'acquire', role: 'primary', standby: 'backup' })).status).toBe(200);
    expect(await lease(event.id, { holder: 'ingest-b', action: 'acquire', role: 'backup' })).toMatchObject({ status: 409 });
    // Its backup gone: the next renewal frees the place.
    expect(await lease(event.id, { holder: 'ingest-a', action: 'acquire', role: 'primary' })).toMatchObject({ status: 200, body: { standby: null } });
    expect(await lease(event.id, { holder: 'ingest-b', action: 'acquire', role: 'backup' })).toMatchObject({ status: 200, body: { onAir: false } });
  });

  it('N concurrent acquisitions by different holders: exactly one wins', async () => {
    const { event } = await setup(1);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => lease(event.id, { holder: `h${i}`, action: 'acquire' })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
  });
});

describe('POST /api/internal/rtmp-auth (the ingest callback)', () => {
  const check = (body: Record<string, unknown>, key: string | null = api.internalApiKey) =>
    call('POST', `${api.url}/api/internal/rtmp-auth`, { json: body, headers: key === null ? {} : { 'x-internal-api-key': key } });
  const base = { app: 'live', remote_addr: '127.0.0.1:5000' };
  const denied = { status: 403, body: { error: 'Access denied' } };
  const viewerToken = async (code: string) =>
    (await call('POST', `${api.url}/api/tokens/validate`, { json: { code }, from: `127.2.1.${ip++}` })).body.playbackToken as string;

  it('passes a publish with the ingest key and denies any other, with one uniform refusal', async () => {
    const { event } = await setup(1);
    const details = (await api.admin('GET', `/api/admin/events/${event.id}`)).body;
    const key = details.ingest.streamKey.split('?token=')[1];
    const publish = (token: string, extra: Record<string, unknown> = {}) =>
      check({ ...base, action: 'publish', stream_name: event.id, stream_key: `live/${event.id}`, token, ...extra });
    expect(await publish(key)).toMatchObject({ status: 200, body: { ok: true } });
    expect(await publish('wrong')).toMatchObject(denied);
    expect(await publish('')).toMatchObject(denied);
    // The key of event a does not open app b: only the configured app exists.
    expect(await publish(key, { app: 'other', stream_key: `other/${event.id}` })).toMatchObject(denied);
    expect(await check({ ...base, action: 'publish', stream_name: 'nope', stream_key: 'live/nope', token: 'x' })).toMatchObject(denied);
    await api.admin('PATCH', `/api/admin/events/${event.id}/deactivate`);
    expect(await publish(key)).toMatchObject(denied);
  });

  it('names the encoder: the primary key is the primary, the backup key the backup; each key only over its protocol', async () => {
    const { event } = await setup(0);
    const { ingest } = (await api.admin('GET', `/api/admin/events/${event.id}`)).body;
    expect(ingest.backup).toEqual({
      streamKey: expect.stringMatching(new RegExp(`^${event.id}\\?token=[A-Za-z0-9]{32}$`)),
      srt: { url: expect.stringMatching(/^srt:\/\/.+\?streamid=/), streamId: expect.stringMatching(new RegExp(`^#!::r=live/${event.id},m=publish,token=[A-Za-z0-9]{32}$`)) },
    });
    const primaryKey = ingest.streamKey.split('?token=')[1];
    const backupKey = ingest.backup.streamKey.split('?token=')[1];
    expect(backupKey).not.toBe(primaryKey);
    const publish = (token: string, extra: Record<string, unknown> = {}) =>
      check({ ...base, action: 'publish', stream_name: event.id, stream_key: `live/${event.id}`, token, ...extra });
    expect(await publish(primaryKey)).toMatchObject({ status: 200, body: { ok: true, role: 'primary' } });
    expect(await publish(backupKey)).toMatchObject({ status: 200, body: { ok: true, role: 'backup' } });
    // An RTMP key sniffed off the wire is no SRT stream id token, nor the reverse; each SRT key names its encoder.
    expect(await publish(backupKey, { protocol: 'srt' })).toMatchObject(denied);
    const backupSrtKey = ingest.backup.srt.streamId.split(',token=')[1];
    expect(await publish(backupSrtKey)).toMatchObject(denied);
    expect(await publish(backupSrtKey, { protocol: 'srt' })).toMatchObject({ status: 200, body: { ok: true, role: 'backup', srtPassphrase: ingest.srt.passphrase } });
    expect(await publish(ingest.srt.streamId.split(',token=')[1], { protocol: 'srt' })).toMatchObject({ status: 200, body: { role: 'primary' } });
    // Rotating the stream key rotates the backup's too: the old backup key is refused.
    const rotated = (await api.admin('POST', `/api/admin/events/${event.id}/ingest-key`)).body;
    expect(rotated.ingest.backup.streamKey).not.toBe(ingest.backup.streamKey);
    expect(await publish(backupKey)).toMatchObject(denied);
    expect(await publish(rotated.ingest.backup.streamKey.split('?token=')[1])).toMatchObject({ status: 200, body: { role: 'backup' } });
  });

  it('answers only the ingest: the internal key is required', async () => {
    const { event } = await setup(1);
    const body = { ...base, action: 'publish', stream_name: event.id, stream_key: `live/${event.id}`, token: 'x' };
    expect(await check(body, null)).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect(await check(body, 'not-the-key')).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
  });

  it("passes a play only for that event's live session, and names the session", async () => {
    const { event, tokens } = await setup(1);
    const other = await setup(1);
    const jwt = await viewerToken(tokens[0]!.code);
    const play = (eventId: string, token: string) =>
      check({ ...base, action: 'play', stream_name: eventId, stream_key: `live/${eventId}`, token });
    const passed = await play(event.id, jwt);
    expect(passed).toMatchObject({ status: 200, body: { ok: true, session: expect.any(String) } });
    expect(await play(other.event.id, jwt)).toMatchObject(denied);
    expect(await play(event.id, 'garbage')).toMatchObject(denied);
    await api.admin('PATCH', `/api/admin/tokens/${tokens[0]!.id}/revoke`);
    expect(await play(event.id, jwt)).toMatchObject(denied);
  });

  it('denies a play whose session was released, and counts a play as the session heartbeat', async () => {
    const { event, tokens } = await setup(1);
    const jwt = await viewerToken(tokens[0]!.code);
    const play = (token: string) => check({ ...base, action: 'play', stream_name: event.id, stream_key: `live/${event.id}`, token });
    expect((await play(jwt)).status).toBe(200);
    // While it plays over RTMP, another device cannot take the code.
    expect((await call('POST', `${api.url}/api/tokens/validate`, { json: { code: tokens[0]!.code }, from: `127.2.1.${ip++}` })).status).toBe(409);
    await call('POST', `${api.url}/api/playback/release`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(await play(jwt)).toMatchObject(denied);
  });

  it('a recheck accepts the expired token of a session that is still live; a new play does not', async () => {
    const { event, tokens } = await setup(1);
    const jwt = await viewerToken(tokens[0]!.code);
    const [header, payload] = jwt.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const { SignJWT } = await import('jose');
    const expired = await new SignJWT({ ...claims, iat: claims.iat - 3600, nbf: claims.nbf - 3600, exp: claims.iat - 60 })
      .setProtectedHeader(JSON.parse(Buffer.from(header!, 'base64url').toString()))
      .sign(api.signingKey);
    const body = { ...base, action: 'play', stream_name: event.id, stream_key: `live/${event.id}`, token: expired };
    expect(await check(body)).toMatchObject(denied);
    expect(await check({ ...body, recheck: true })).toMatchObject({ status: 200 });
    await api.admin('PATCH', `/api/admin/events/${event.id}/deactivate`);
    expect(await check({ ...body, recheck: true })).toMatchObject(denied);
  });

  it('answers 400 to a body that is not the callback shape', async () => {
    expect((await check({ action: 'dance' })).status).toBe(400);
  });
});

describe('POST /api/internal/streams/:eventId/encoders and the switch by hand', () => {
  const report = (eventId: string, encoders: unknown[]) =>
    call('POST', `${api.url}/api/internal/streams/${eventId}/encoders`, { json: { encoders }, headers: { 'x-internal-api-key': api.internalApiKey } });
  const encoder = (role: string, onAir: boolean, connected = true) => ({
    role, protocol: 'rtmp', connected, onAir, since: new Date().toISOString(), video: { width: 1280, height: 720, frameRate: 30 },
  });

  it('keeps each encoder as its ingest reports it, and hands an operator\'s switch to the ingest until it is done', async () => {
    const { event } = await setup(0);
    // The primary's ingest and the backup's (another process) report apart; neither overwrites the other.
    expect(await report(event.id, [encoder('primary', true)])).toMatchObject({ status: 200, body: { ok: true, requestedOnAir: null } });
    expect((await report(event.id, [encoder('backup', false)])).status).toBe(200);
    const details = async () => (await api.admin('GET', `/api/admin/events/${event.id}`)).body.ingest.encoders;
    expect(await details()).toEqual([
      expect.objectContaining({ role: 'primary', protocol: 'rtmp', connected: true, onAir: true, video: { width: 1280, height: 720, frameRate: 30 } }),
      expect.objectContaining({ role: 'backup', connected: true, onAir: false }),
    ]);
    expect((await api.admin('POST', `/api/admin/events/${event.id}/on-air`, { role: 'sideways' })).status).toBe(400);
    expect(await api.admin('POST', `/api/admin/events/${event.id}/on-air`, { role: 'backup' })).toMatchObject({ status: 200, body: { requested: 'backup' } });
    expect((await report(event.id, [encoder('primary', true)])).body.requestedOnAir).toBe('backup');
    // Done once a report says the backup is on air.
    expect((await report(event.id, [encoder('backup', true)])).body.requestedOnAir).toBeNull();
    expect((await report(event.id, [encoder('primary', false)])).body.requestedOnAir).toBeNull();
    const entries = (await api.admin('GET', `/api/admin/events/${event.id}/audit?limit=50`)).body.entries as { action: string; details: unknown }[];
    expect(entries.find((entry) => entry.action === 'stream.switch')).toMatchObject({ details: { to: 'backup' } });
    expect((await report('nope', [])).status).toBe(404);
  });
});

describe('POST /api/internal/streams/:eventId/video and /refusals', () => {
  const post = (path: string, json: unknown, key: string | undefined = api.internalApiKey) =>
    call('POST', `${api.url}${path}`, { json, headers: key ? { 'x-internal-api-key': key } : {} });
  const ingestOf = async (id: string) => (await api.admin('GET', `/api/admin/events/${id}`)).body.ingest;

  it('stores the measured video; a long keyframe interval gives a warning with the latency viewers get and the fix', async () => {
    const { event } = await setup(0);
    expect(await ingestOf(event.id)).toMatchObject({ keyframeIntervalSeconds: 1, video: null, keyframeWarning: null, refusals: [] });

    // An ingest that copies (re-encoding off, or from before re-encoding: no field).
    const stored = await post(`/api/internal/streams/${event.id}/video`, { keyframeIntervalSeconds: 8.33, frameRate: 30, segmentSeconds: 1 });
    expect(stored).toMatchObject({ status: 200, body: { keyframeIntervalSeconds: 8.33, frameRate: 30, segmentSeconds: 1, reencoding: false, measuredAt: expect.any(String) } });
    const ingest = await ingestOf(event.id);
    expect(ingest.video).toMatchObject({ keyframeIntervalSeconds: 8.3, frameRate: 30, segmentSeconds: 1, reencoding: false });
    expect(ingest.keyframeWarning).toMatch(/^Keyframes every 8\.3 s, and this ingest does not re-encode: every segment lasts 8\.3 s, so viewers are about 21 s behind live \(Safari and TV apps about 29 s\)/);
    expect(ingest.keyframeWarning).toContain('Keyframe Interval 1 s');

    await post(`/api/internal/streams/${event.id}/video`, { keyframeIntervalSeconds: 8.33, frameRate: 30, segmentSeconds: 1, reencoding: true });
    const reencoded = (await ingestOf(event.id)).keyframeWarning;
    expect(reencoded).toMatch(/^Re-encoding: keyframes every 8\.3 s\. Segments are 1 s, so Stagedoor re-encodes the video with a keyframe every 1 s: viewers stay about 3 s behind live/);
    expect(reencoded).toContain('Keyframe Interval 1 s');

    await post(`/api/internal/streams/${event.id}/video`, { keyframeIntervalSeconds: 1.04, frameRate: 30, segmentSeconds: 1, reencoding: false });
    expect((await ingestOf(event.id)).keyframeWarning).toBeNull();
  });

  it('keeps the last 10 refusals, newest first, trimming older ones', async () => {
    const { event } = await setup(0);
    for (let i = 0; i < 23; i++) {
      expect((await post(`/api/internal/streams/${event.id}/refusals`, { reason: 'already-publishing', remoteAddr: `10.0.0.${i}:5000` })).status).toBe(200);
    }
    const { refusals } = await ingestOf(event.id);
    expect(refusals).toHaveLength(10);
    expect(refusals[0]).toMatchObject({ reason: 'already-publishing', remoteAddr: '10.0.0.22:5000', message: expect.stringContaining('Another encoder') });
    expect(refusals[9].remoteAddr).toBe('10.0.0.13:5000');
  });

  it('records refused publishes of the callback with their reason; a play refusal is not recorded', async () => {
    const { event } = await setup(0);
    const rtmp = (token: string, action = 'publish') =>
      call('POST', `${api.url}/api/internal/rtmp-auth`, {
        json: { action, app: 'live', stream_name: event.id, stream_key: `live/${event.id}`, token, remote_addr: '192.0.2.7:40000' },
        headers: { 'x-internal-api-key': api.internalApiKey },
      });
    const oldKey = /token=(.+)$/.exec((await ingestOf(event.id)).streamKey)![1]!;
    await api.admin('POST', `/api/admin/events/${event.id}/ingest-key`);
    expect((await rtmp('')).status).toBe(403);
    expect((await rtmp('guess')).status).toBe(403);
    expect((await rtmp(oldKey)).status).toBe(403);
    expect((await rtmp('guess', 'play')).status).toBe(403);
    const { refusals } = await ingestOf(event.id);
    expect(refusals.map((r: { reason: string }) => r.reason)).toEqual(['rotated-key', 'wrong-key', 'no-key']);
    expect(refusals[0].remoteAddr).toBe('192.0.2.7:40000');
    // And in the audit log, by the ingest, with the publisher's address.
    await post(`/api/internal/streams/${event.id}/refusals`, { reason: 'already-publishing', remoteAddr: '192.0.2.8:40001' });
    const refused = (await api.admin('GET', `/api/admin/events/${event.id}/audit?action=stream.refused`)).body.entries;
    expect(refused.map((entry: { details: { reason: string } }) => entry.details.reason)).toEqual(['already-publishing', 'rotated-key', 'wrong-key', 'no-key']);
    expect(refused[1]).toMatchObject({ actor: 'ingest', clientIp: '192.0.2.7:40000', target: 'Publish with a replaced stream key', eventTitle: 'Feed' });
  });

  it('answers 401 without the key, 400 for a bad body, 404 for an unknown event', async () => {
    const { event } = await setup(0);
    const good = { keyframeIntervalSeconds: 2, frameRate: 25, segmentSeconds: 1 };
    expect(await post(`/api/internal/streams/${event.id}/video`, good, 'wrong')).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
    expect(await post(`/api/internal/streams/${event.id}/video`, { ...good, frameRate: -1 })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^frameRate: /) } });
    expect(await post(`/api/internal/streams/${event.id}/video`, { ...good, reencoding: 'yes' })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^reencoding: /) } });
    expect(await post(`/api/internal/streams/${event.id}/refusals`, { reason: 'wrong-key', remoteAddr: 'x' })).toMatchObject({ status: 400 });
    expect(await post('/api/internal/streams/nosuchevent0000/video', good)).toMatchObject({ status: 404, body: { error: 'Event not found' } });
  });
});
