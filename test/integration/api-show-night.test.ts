/**
 * The show-night admin endpoints through real HTTP on the embedded DynamoDB:
 * the preview token, the live sessions list and ending sessions, the audit log.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { AUDIT_RETENTION_DAYS } from '../../functions/domain/audit';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { bearer, call } from '../../harness/http';

let api: ApiHarness;
let nextIp = 10;
const freshIp = () => `127.7.${Math.floor(nextIp / 250)}.${(nextIp++ % 250) + 2}`;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const CHROME_ANDROID =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

async function newEvent(title = 'Show night') {
  const res = await api.admin('POST', '/api/admin/events', {
    title,
    startsAt: new Date(Date.now() - 3_600_000).toISOString(),
    endsAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; title: string };
}

async function newCodes(eventId: string, count: number, label = 'box office') {
  const res = await api.admin('POST', `/api/admin/events/${eventId}/tokens`, { count, label });
  expect(res.status).toBe(201);
  return res.body.tokens as { id: string; code: string }[];
}

async function watch(code: string, from = freshIp(), userAgent = CHROME_ANDROID) {
  const res = await call('POST', `${api.url}/api/tokens/validate`, { json: { code }, from, headers: { 'user-agent': userAgent } });
  expect(res.status, res.text).toBe(200);
  return res.body as { playbackToken: string };
}

describe('POST /api/admin/events/:id/preview', () => {
  it('issues a short-lived playback token marked as preview, for the event stream', async () => {
    const event = await newEvent();
    const res = await api.admin('POST', `/api/admin/events/${event.id}/preview`, {});
    expect(res).toMatchObject({
      status: 200,
      body: {
        playbackToken: expect.any(String),
        playbackBaseUrl: 'http://127.0.0.1:4000',
        streamPath: `/streams/${event.id}/`,
        tokenExpiresIn: 300,
        status: 'not-started',
      },
    });
    const claims = decodeJwt(res.body.playbackToken);
    expect(claims).toMatchObject({ prv: true, eid: event.id, path: `/streams/${event.id}/`, code: 'preview' });
    expect(claims.exp! - claims.iat!).toBe(300);
  });

  it('is not a viewer: refresh, heartbeat, release and the RTMP play check refuse it, and nobody is counted', async () => {
    const event = await newEvent();
    const { body } = await api.admin('POST', `/api/admin/events/${event.id}/preview`, {});
    const headers = bearer(body.playbackToken);
    for (const path of ['refresh', 'heartbeat', 'release']) {
      const res = await call('POST', `${api.url}/api/playback/${path}`, { headers });
      expect(res, path).toMatchObject({ status: 401, body: { error: 'Valid playback token required' } });
    }
    const play = await call('POST', `${api.url}/api/internal/rtmp-auth`, {
      json: { action: 'play', app: 'live', stream_name: event.id, stream_key: event.id, token: body.playbackToken, remote_addr: '127.0.0.1' },
      headers: { 'x-internal-api-key': api.internalApiKey },
    });
    expect(play.status).toBe(403);
    const details = await api.admin('GET', `/api/admin/events/${event.id}`);
    expect(details.body.stats.activeViewers).toBe(0);
    expect((await api.admin('GET', `/api/admin/events/${event.id}/sessions`)).body.total).toBe(0);
  });

  it('answers 404 for an unknown event, 409 for a deactivated one, 401 without a session', async () => {
    expect(await api.admin('POST', '/api/admin/events/nope/preview', {})).toMatchObject({ status: 404, body: { error: 'Event not found' } });
    const event = await newEvent();
    await api.admin('PATCH', `/api/admin/events/${event.id}/deactivate`);
    expect(await api.admin('POST', `/api/admin/events/${event.id}/preview`, {})).toMatchObject({
      status: 409,
      body: { error: 'Event is deactivated: activate it to preview the stream' },
    });
    expect(await call('POST', `${api.url}/api/admin/events/${event.id}/preview`, { json: {} })).toMatchObject({
      status: 401,
      body: { error: 'Authentication required' },
    });
  });
});

describe('live sessions', () => {
  it('lists live sessions newest first with code, label, times, address and device, paged', async () => {
    const event = await newEvent();
    const [first, second, idle] = await newCodes(event.id, 3);
    await watch(first!.code, '127.7.200.1', CHROME_ANDROID);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await watch(second!.code, '127.7.200.2', SAFARI_IPHONE);

    const res = await api.admin('GET', `/api/admin/events/${event.id}/sessions`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.sessions.map((s: { code: string }) => s.code)).toEqual([second!.code, first!.code]);
    expect(res.body.sessions[0]).toEqual({
      sessionId: expect.any(String),
      slot: 1,
      tokenId: second!.id,
      code: second!.code,
      label: 'box office',
      startedAt: expect.any(String),
      lastHeartbeatAt: expect.any(String),
      clientIp: '127.7.200.2',
      userAgent: 'Safari 17 on iPhone',
    });
    expect(res.body.sessions[1]).toMatchObject({ clientIp: '127.7.200.1', userAgent: 'Chrome 131 on Android' });
    expect(res.body.sessions.some((s: { code: string }) => s.code === idle!.code)).toBe(false);

    const page1 = await api.admin('GET', `/api/admin/events/${event.id}/sessions?limit=1`);
    expect(page1.body).toMatchObject({ total: 2, nextCursor: expect.any(String) });
    expect(page1.body.sessions.map((s: { code: string }) => s.code)).toEqual([second!.code]);
    const page2 = await api.admin('GET', `/api/admin/events/${event.id}/sessions?limit=1&cursor=${page1.body.nextCursor}`);
    expect(page2.body.sessions.map((s: { code: string }) => s.code)).toEqual([first!.code]);
    expect(page2.body.nextCursor).toBeNull();
  });

  it('counts the viewers by the presence estimate: a session ended twice (release after release, or after an admin) is uncounted once', async () => {
    const event = await newEvent();
    const [a, b, c] = await newCodes(event.id, 3);
    const grants = [await watch(a!.code), await watch(b!.code), await watch(c!.code)];
    const list = async () => (await api.admin('GET', `/api/admin/events/${event.id}/sessions`)).body;
    expect(await list()).toMatchObject({ total: 3, nextCursor: null });

    for (let i = 0; i < 2; i++) {
      expect((await call('POST', `${api.url}/api/playback/release`, { headers: bearer(grants[0]!.playbackToken) })).status).toBe(200);
    }
    const session = (await list()).sessions.find((s: { code: string }) => s.code === b!.code);
    await api.admin('POST', `/api/admin/events/${event.id}/sessions/end`, { code: b!.code, sessionId: session.sessionId });
    // The ended player's own release (a page closed before it heard of the end) changes nothing.
    expect((await call('POST', `${api.url}/api/playback/release`, { headers: bearer(grants[1]!.playbackToken) })).status).toBe(200);

    const after = await list();
    expect(after.total).toBe(1);
    expect(after.sessions.map((s: { code: string }) => s.code)).toEqual([c!.code]);
    expect((await api.admin('GET', `/api/admin/events/${event.id}`)).body.stats.activeViewers).toBe(1);
  });

  it('answers 400 to a bad cursor or limit, 404 for an unknown event', async () => {
    const event = await newEvent();
    expect(await api.admin('GET', `/api/admin/events/${event.id}/sessions?cursor=bogus`)).toMatchObject({
      status: 400,
      body: { error: 'cursor: is invalid' },
    });
    expect((await api.admin('GET', `/api/admin/events/${event.id}/sessions?limit=0`)).status).toBe(400);
    expect((await api.admin('GET', `/api/admin/events/${event.id}/sessions?limit=201`)).status).toBe(400);
    expect(await api.admin('GET', '/api/admin/events/nope/sessions')).toMatchObject({ status: 404, body: { error: 'Event not found' } });
  });

  it('ends one session: its token stops (saying an admin did it) and the code works at once on another device', async () => {
    const event = await newEvent();
    const [code] = await newCodes(event.id, 1);
    const grant = await watch(code!.code);
    const busy = await call('POST', `${api.url}/api/tokens/validate`, { json: { code: code!.code }, from: freshIp() });
    expect(busy.status).toBe(409);

    const { body } = await api.admin('GET', `/api/admin/events/${event.id}/sessions`);
    const session = body.sessions[0];
    const end = await api.admin('POST', `/api/admin/events/${event.id}/sessions/end`, { code: session.code, sessionId: session.sessionId });
    expect(end).toMatchObject({ status: 200, body: { ended: true, sessionId: session.sessionId, code: code!.code } });

    const refresh = await call('POST', `${api.url}/api/playback/refresh`, { headers: bearer(grant.playbackToken) });
    expect(refresh).toMatchObject({ status: 401, body: { error: 'Valid playback token required', endedBy: 'admin' } });
    const heartbeat = await call('POST', `${api.url}/api/playback/heartbeat`, { headers: bearer(grant.playbackToken) });
    expect(heartbeat).toMatchObject({ status: 404, body: { error: 'Session not found' } });
    const feed = await call('GET', `${api.url}/api/revocations?since=${new Date(Date.now() - 60_000).toISOString()}`, {
      headers: { 'x-internal-api-key': api.internalApiKey },
    });
    expect(feed.body.endedSessions).toContainEqual(expect.objectContaining({ sessionId: session.sessionId, code: code!.code }));

    await watch(code!.code);
    expect(await api.admin('POST', `/api/admin/events/${event.id}/sessions/end`, { code: session.code, sessionId: session.sessionId })).toMatchObject({
      status: 404,
      body: { error: 'Session not found' },
    });
  });

  it('refuses to end a session of another event, a malformed body, an unknown event', async () => {
    const event = await newEvent();
    const other = await newEvent('Other show');
    const [code] = await newCodes(event.id, 1);
    await watch(code!.code);
    const { body } = await api.admin('GET', `/api/admin/events/${event.id}/sessions`);
    const session = body.sessions[0];
    expect(await api.admin('POST', `/api/admin/events/${other.id}/sessions/end`, { code: session.code, sessionId: session.sessionId })).toMatchObject({
      status: 404,
      body: { error: 'Session not found' },
    });
    expect(await api.admin('POST', `/api/admin/events/${event.id}/sessions/end`, { code: session.code })).toMatchObject({
      status: 400,
      body: { error: 'sessionId: is required' },
    });
    expect(await api.admin('POST', `/api/admin/events/nope/sessions/end`, { code: session.code, sessionId: session.sessionId })).toMatchObject({
      status: 404,
      body: { error: 'Event not found' },
    });
    expect(await api.admin('POST', '/api/admin/events/nope/sessions/end-all', {})).toMatchObject({ status: 404, body: { error: 'Event not found' } });
    expect((await api.admin('GET', `/api/admin/events/${event.id}/sessions`)).body.total).toBe(1);
  });

  it('ends every session of the event and no other', async () => {
    const event = await newEvent();
    const other = await newEvent('Other show');
    const codes = await newCodes(event.id, 3);
    const [otherCode] = await newCodes(other.id, 1);
    for (const code of codes) await watch(code.code);
    await watch(otherCode!.code);
    const activeViewers = async () => (await api.admin('GET', `/api/admin/events/${event.id}`)).body.stats.activeViewers;
    expect(await activeViewers()).toBe(3);
    const res = await api.admin('POST', `/api/admin/events/${event.id}/sessions/end-all`, {});
    expect(res).toMatchObject({ status: 200, body: { ended: 3 } });
    expect(await activeViewers()).toBe(0);
    expect((await api.admin('GET', `/api/admin/events/${event.id}/sessions`)).body).toMatchObject({ total: 0, sessions: [] });
    expect((await api.admin('GET', `/api/admin/events/${other.id}/sessions`)).body.total).toBe(1);
    for (const code of codes) await watch(code.code);
  });
});

describe('audit log', () => {
  it('records each admin action with time, action, target and client address, newest first', async () => {
    const from = '127.7.250.9';
    const cookie = await api.login(from);
    const as = (method: string, path: string, json?: unknown) => call(method, `${api.url}${path}`, { json, from, headers: { cookie } });
    const created = await as('POST', '/api/admin/events', {
      title: 'Audited show',
      startsAt: new Date(Date.now() - 3_600_000).toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const eventId = created.body.id as string;
    await as('PUT', `/api/admin/events/${eventId}`, { description: 'Now with words' });
    const generated = await as('POST', `/api/admin/events/${eventId}/tokens`, { count: 3, label: 'press' });
    const [a, b, c] = generated.body.tokens as { id: string; code: string }[];
    await as('PATCH', `/api/admin/tokens/${a!.id}/revoke`);
    await as('PATCH', `/api/admin/tokens/${a!.id}/unrevoke`);
    await as('POST', '/api/admin/tokens/bulk-revoke', { tokenIds: [b!.id, c!.id] });
    await as('PATCH', `/api/admin/events/${eventId}/deactivate`);
    await as('PATCH', `/api/admin/events/${eventId}/activate`);
    await as('PATCH', `/api/admin/events/${eventId}/archive`);
    await as('PATCH', `/api/admin/events/${eventId}/unarchive`);
    await as('POST', `/api/admin/events/${eventId}/ingest-key`, {});
    const grant = await watch(a!.code);
    const sessions = await as('GET', `/api/admin/events/${eventId}/sessions`);
    await as('POST', `/api/admin/events/${eventId}/sessions/end`, { code: a!.code, sessionId: sessions.body.sessions[0].sessionId });
    await watch(a!.code);
    await as('POST', `/api/admin/events/${eventId}/sessions/end-all`, {});
    expect(grant.playbackToken).toBeTruthy();

    const log = await as('GET', `/api/admin/events/${eventId}/audit`);
    expect(log.status).toBe(200);
    expect(log.body.entries.map((entry: { action: string }) => entry.action)).toEqual([
      'sessions.end-all',
      'session.end',
      'ingest-key.rotate',
      'event.unarchive',
      'event.archive',
      'event.activate',
      'event.deactivate',
      'codes.bulk-revoke',
      'code.unrevoke',
      'code.revoke',
      'codes.generate',
      'event.update',
      'event.create',
    ]);
    for (const entry of log.body.entries) {
      expect(entry).toMatchObject({ id: expect.any(String), at: expect.any(String), eventId, eventTitle: 'Audited show', clientIp: from, target: expect.any(String) });
    }
    const byAction = (action: string) => log.body.entries.find((entry: { action: string }) => entry.action === action);
    expect(byAction('event.create').target).toBe('Audited show');
    // What changed, with the value before and after.
    expect(byAction('event.update').changes).toEqual({ description: { from: '', to: 'Now with words' } });
    expect(byAction('codes.generate')).toMatchObject({ target: '3 codes', details: { count: 3, label: 'press' } });
    expect(byAction('code.revoke').target).toBe(a!.code);
    expect(byAction('codes.bulk-revoke')).toMatchObject({ target: '2 codes' });
    expect([...byAction('codes.bulk-revoke').details.codes].sort()).toEqual([b!.code, c!.code].sort());
    expect(byAction('session.end').target).toBe(a!.code);
    expect(byAction('sessions.end-all').target).toBe('1 session');

    const filtered = await as('GET', `/api/admin/events/${eventId}/audit?action=code.revoke`);
    expect(filtered.body.entries.map((entry: { action: string }) => entry.action)).toEqual(['code.revoke']);

    const page1 = await as('GET', `/api/admin/events/${eventId}/audit?limit=5`);
    expect(page1.body.entries).toHaveLength(5);
    const page2 = await as('GET', `/api/admin/events/${eventId}/audit?limit=5&cursor=${page1.body.nextCursor}`);
    const page3 = await as('GET', `/api/admin/events/${eventId}/audit?limit=5&cursor=${page2.body.nextCursor}`);
    expect([...page1.body.entries, ...page2.body.entries, ...page3.body.entries]).toEqual(log.body.entries);
    expect(page3.body.nextCursor).toBeNull();

    const all = await as('GET', '/api/admin/audit?limit=200');
    expect(all.body.entries.filter((entry: { eventId: string }) => entry.eventId === eventId)).toEqual(log.body.entries);
    expect(all.body.entries).toContainEqual(expect.objectContaining({ action: 'admin.login', actor: 'owner', clientIp: from, target: 'Admin console' }));
    // Every entry names the account that acted: here the owner, signed in by the harness.
    expect(log.body.entries.every((entry: { actor: string }) => entry.actor === 'owner')).toBe(true);
    const times = all.body.entries.map((entry: { at: string }) => entry.at);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('keeps an event\'s log after the event is deleted, for 400 days, in the console-wide log', async () => {
    const event = await newEvent('Short-lived');
    await newCodes(event.id, 1);
    expect((await api.admin('GET', `/api/admin/events/${event.id}/audit`)).body.entries).toHaveLength(2);
    await api.admin('DELETE', `/api/admin/events/${event.id}`);
    expect(await api.admin('GET', `/api/admin/events/${event.id}/audit`)).toMatchObject({ status: 404, body: { error: 'Event not found' } });
    const deletions = await api.admin('GET', '/api/admin/audit?action=event.delete');
    expect(deletions.body.entries).toContainEqual(
      expect.objectContaining({ action: 'event.delete', eventId: event.id, eventTitle: 'Short-lived', target: 'Short-lived' }),
    );
    const all = await api.admin('GET', '/api/admin/audit?limit=200');
    expect(all.body.entries.filter((entry: { eventId: string }) => entry.eventId === event.id).map((e: { action: string }) => e.action)).toEqual([
      'event.delete',
      'codes.generate',
      'event.create',
    ]);
    // Each entry is collected by TTL only at the end of its retention.
    const items = await dynamoDocumentClient(api.wiring.aws).send(
      new QueryCommand({ TableName: 'stagedoor', KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `AUDIT#${event.id}` } }),
    );
    expect(items.Items).toHaveLength(3);
    for (const item of items.Items!) {
      expect(Number(item.ttl) * 1000 - Date.parse(String(item.at))).toBeGreaterThan((AUDIT_RETENTION_DAYS - 1) * 86_400_000);
    }
  });

  it('shows codes to roles that may read them, and to others only their last 4 characters', async () => {
    const event = await newEvent('Masked');
    const [a, b, c] = await newCodes(event.id, 3);
    await api.admin('PATCH', `/api/admin/tokens/${a!.id}/revoke`);
    await api.admin('PATCH', `/api/admin/tokens/${a!.id}/unrevoke`);
    await api.admin('POST', '/api/admin/tokens/bulk-revoke', { tokenIds: [b!.id, c!.id] });
    const grant = await watch(a!.code);
    const sessionId = (decodeJwt(grant.playbackToken) as { sid: string }).sid;
    await api.admin('POST', `/api/admin/events/${event.id}/sessions/end`, { code: a!.code, sessionId });
    const logOf = async (role: string) => {
      const username = `audit-${role}`;
      await api.admin('POST', '/api/admin/accounts', { username, role, password: 'a long enough password' });
      const login = await call('POST', `${api.url}/api/admin/login`, { json: { username, password: 'a long enough password' }, from: freshIp() });
      const cookie = String((login.headers['set-cookie'] as string[])[0]).split(';')[0]!;
      return (await call('GET', `${api.url}/api/admin/events/${event.id}/audit`, { headers: { cookie } })).body.entries as {
        action: string;
        target: string;
        details?: { codes?: string[] };
      }[];
    };
    const tech = await logOf('stream-tech');
    const byAction = (entries: typeof tech, action: string) => entries.find((entry) => entry.action === action)!;
    for (const action of ['code.revoke', 'code.unrevoke', 'session.end']) expect(byAction(tech, action).target, action).toBe(`…${a!.code.slice(-4)}`);
    expect([...byAction(tech, 'codes.bulk-revoke').details!.codes!].sort()).toEqual([`…${b!.code.slice(-4)}`, `…${c!.code.slice(-4)}`].sort());
    expect(JSON.stringify(tech)).not.toContain(a!.code);
    // One stored entry serves every role: a role that may read codes sees them whole.
    const reader = await logOf('read-only');
    expect(byAction(reader, 'code.revoke').target).toBe(a!.code);
    expect([...byAction(reader, 'codes.bulk-revoke').details!.codes!].sort()).toEqual([b!.code, c!.code].sort());
  });

  it('records sign-out in the console-wide log', async () => {
    const from = '127.7.250.10';
    const cookie = await api.login(from);
    await call('POST', `${api.url}/api/admin/logout`, { from, headers: { cookie } });
    const logins = await api.admin('GET', '/api/admin/audit?action=admin.logout');
    expect(logins.body.entries[0]).toMatchObject({ action: 'admin.logout', actor: 'owner', eventId: null, clientIp: from, target: 'Admin console' });
  });

  it('answers 400 to an unknown action filter or a bad cursor, 404 for an unknown event, 401 without a session', async () => {
    expect(await api.admin('GET', '/api/admin/audit?action=nope')).toMatchObject({ status: 400 });
    expect(await api.admin('GET', '/api/admin/audit?cursor=eyJ4IjoxfQ')).toMatchObject({ status: 400, body: { error: 'cursor: is invalid' } });
    const event = await newEvent();
    const other = await newEvent();
    const page = await api.admin('GET', `/api/admin/events/${event.id}/audit?limit=1`);
    expect(page.body.nextCursor).toBeNull();
    const all = await api.admin('GET', '/api/admin/audit?limit=1');
    expect(await api.admin('GET', `/api/admin/events/${other.id}/audit?cursor=${all.body.nextCursor}`)).toMatchObject({
      status: 400,
      body: { error: 'cursor: is invalid' },
    });
    expect(await api.admin('GET', '/api/admin/events/nope/audit')).toMatchObject({ status: 404 });
    expect((await call('GET', `${api.url}/api/admin/audit`)).status).toBe(401);
  });
});
