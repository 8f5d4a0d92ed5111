import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';
import { withinOneWindow } from '../support/rate-window';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api?.close());

const future = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();
const eventBody = (overrides: Record<string, unknown> = {}) => ({
  title: 'Opening night',
  startsAt: future(-1),
  endsAt: future(2),
  ...overrides,
});

async function createEvent(overrides: Record<string, unknown> = {}) {
  const res = await api.admin('POST', '/api/admin/events', eventBody(overrides));
  expect(res.status).toBe(201);
  return res.body;
}

describe('admin login and session', () => {
  it('logs in with the password and sets a hardened session cookie', async () => {
    const res = await call('POST', `${api.url}/api/admin/login`, { json: { password: api.adminPassword }, from: '127.1.0.1' });
    expect(res).toMatchObject({ status: 200, body: { success: true } });
    const cookie = (res.headers['set-cookie'] as string[])[0]!;
    expect(cookie).toMatch(/^stagedoor_admin=[\w-]+\.[\w-]+\.[\w-]+; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toMatch(/Max-Age=\d+/);
    // Served over plain http locally; API Gateway (https) gets `Secure`.
    expect(cookie).not.toContain('Secure');
    const session = await call('GET', `${api.url}/api/admin/session`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(session).toMatchObject({ status: 200, body: { authenticated: true } });
  });

  it('answers 401 to a wrong password and 429 after 10 attempts a minute', async () => {
    // Each attempt is counted before its password hash runs, so eleven sent at once are all counted within
    // milliseconds, however slow the hashes that follow: only the minute's edge could split them.
    await withinOneWindow(60, 5);
    const from = '127.1.0.2';
    // Other names each time keep each name clear of the sign-in limits while the address fills its window.
    const answers = await Promise.all(
      Array.from({ length: 11 }, (_, i) => call('POST', `${api.url}/api/admin/login`, { json: { username: `nobody-${i}`, password: 'wrong' }, from })),
    );
    expect(answers.filter((res) => res.status === 401)).toHaveLength(10);
    for (const res of answers.filter((each) => each.status === 401)) expect(res.body).toMatchObject({ error: 'Invalid username or password' });
    const limited = answers.filter((res) => res.status === 429);
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({ status: 429, body: { error: 'Too many login attempts' } });
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThan(0);
    const owner = await call('POST', `${api.url}/api/admin/login`, { json: { password: 'wrong' }, from: '127.1.0.6' });
    expect(owner).toMatchObject({ status: 401, body: { error: 'Invalid password' } });
  });

  it("words every login refusal of one address as the spec's limit: eleven wrong passwords, the eleventh 429 Too many login attempts", async () => {
    const from = '127.1.0.5';
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push(await call('POST', `${api.url}/api/admin/login`, { json: { password: 'wrong' }, from }));
    expect(answers[0]).toMatchObject({ status: 401, body: { error: 'Invalid password' } });
    const eleventh = answers[10]!;
    expect(eleventh).toMatchObject({ status: 429, body: { error: 'Too many login attempts' } });
    expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(0);
    for (const refused of answers.filter((answer) => answer.status === 429)) expect(refused.body.error).toBe('Too many login attempts');
  });

  it('answers 400 to a login without a password', async () => {
    const res = await call('POST', `${api.url}/api/admin/login`, { json: {}, from: '127.1.0.3' });
    expect(res).toMatchObject({ status: 400, body: { error: 'password: is required' } });
  });

  it('refuses admin endpoints without a session, with a tampered cookie, and after logout', async () => {
    expect(await call('GET', `${api.url}/api/admin/events`)).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
    const cookie = await api.login('127.1.0.4');
    const [name, value] = cookie.split('=') as [string, string];
    const [h, p, s] = value.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const tampered = `${name}=${h}.${Buffer.from(JSON.stringify({ ...payload, exp: payload.exp + 86400 })).toString('base64url')}.${s}`;
    expect((await call('GET', `${api.url}/api/admin/events`, { headers: { cookie: tampered } })).status).toBe(401);
    expect((await call('GET', `${api.url}/api/admin/events`, { headers: { cookie: `${name}=${h}.${p}.${'A'.repeat(43)}` } })).status).toBe(401);

    expect((await call('GET', `${api.url}/api/admin/events`, { headers: { cookie } })).status).toBe(200);
    const logout = await call('POST', `${api.url}/api/admin/logout`, { headers: { cookie } });
    expect(logout).toMatchObject({ status: 200, body: { success: true } });
    expect((logout.headers['set-cookie'] as string[])[0]).toContain('Max-Age=0');
    expect((await call('GET', `${api.url}/api/admin/events`, { headers: { cookie } })).status).toBe(401);
  });
});

describe('events', () => {
  it('creates an event with defaults and lists it with its token count', async () => {
    const event = await createEvent({ description: 'x', streamUrl: 'rtmp://origin.example.com/live/1' });
    expect(event).toMatchObject({
      id: expect.stringMatching(/^[a-z0-9]+$/),
      title: 'Opening night',
      description: 'x',
      streamUrl: 'rtmp://origin.example.com/live/1',
      posterUrl: null,
      accessWindowHours: 48,
      isActive: true,
      isArchived: false,
      _count: { tokens: 0 },
    });
    await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 3, label: 'a' });
    const list = await api.admin('GET', '/api/admin/events');
    const listed = list.body.events.find((e: { id: string }) => e.id === event.id);
    expect(listed._count).toEqual({ tokens: 3 });
    // Whether it is on air, as the public status says it.
    expect(listed.status).toBe('not-started');
  });

  it.each([
    [{ startsAt: future(1), endsAt: future(2) }, 'title: is required'],
    [eventBody({ startsAt: 'tomorrow' }), 'startsAt: must be an ISO 8601 timestamp with a time zone'],
    [eventBody({ endsAt: future(-2) }), 'endsAt: must be after startsAt'],
    [eventBody({ accessWindowHours: 1.5 }), 'accessWindowHours'],
    [eventBody({ posterUrl: 'javascript:alert(1)' }), 'posterUrl: must be a URL'],
  ])('rejects an invalid event with 400 (%#)', async (body, message) => {
    const res = await api.admin('POST', '/api/admin/events', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
  });

  it('reads one event with status, statistics and OBS settings', async () => {
    const event = await createEvent();
    const res = await api.admin('GET', `/api/admin/events/${event.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: event.id,
      status: 'not-started',
      stats: { tokens: 0, redeemed: 0, revoked: 0, activeViewers: 0 },
      ingest: { server: 'rtmp://127.0.0.1:1935/live', streamKey: expect.stringMatching(new RegExp(`^${event.id}\\?token=[A-Za-z0-9]{32}$`)) },
    });
    const rotated = await api.admin('POST', `/api/admin/events/${event.id}/ingest-key`);
    expect(rotated.body.ingest.streamKey).not.toBe(res.body.ingest.streamKey);
  });

  it('updates, archives, unarchives, deactivates and activates', async () => {
    const event = await createEvent();
    const put = await api.admin('PUT', `/api/admin/events/${event.id}`, { title: 'Renamed', accessWindowHours: 2 });
    expect(put).toMatchObject({ status: 200, body: { title: 'Renamed', accessWindowHours: 2 } });
    expect((await api.admin('PUT', `/api/admin/events/${event.id}`, { endsAt: future(-5) })).status).toBe(400);
    for (const [action, field, value] of [
      ['archive', 'isArchived', true],
      ['unarchive', 'isArchived', false],
      ['deactivate', 'isActive', false],
      ['activate', 'isActive', true],
    ] as const) {
      const res = await api.admin('PATCH', `/api/admin/events/${event.id}/${action}`);
      expect(res.status).toBe(200);
      expect(res.body[field]).toBe(value);
    }
  });

  it('answers 404 for unknown events on every event route', async () => {
    for (const [method, path] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['PATCH', '/activate'],
      ['PATCH', '/deactivate'],
      ['PATCH', '/archive'],
      ['GET', '/tokens'],
      ['POST', '/tokens'],
      ['GET', '/tokens/export'],
    ] as const) {
      const res = await api.admin(method, `/api/admin/events/nope${path}`, method === 'POST' ? { count: 1 } : method === 'PUT' ? { title: 'x' } : undefined);
      expect(res, `${method} ${path}`).toMatchObject({ status: 404, body: { error: 'Event not found' } });
    }
  });

  it('deletes an event with its codes and sessions', async () => {
    const event = await createEvent();
    const { body } = await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 2 });
    const validated = await call('POST', `${api.url}/api/tokens/validate`, { json: { code: body.tokens[0].code }, from: '127.1.1.1' });
    expect(validated.status).toBe(200);
    expect(await api.admin('DELETE', `/api/admin/events/${event.id}`)).toMatchObject({ status: 200, body: { deleted: true } });
    expect((await api.admin('GET', `/api/admin/events/${event.id}`)).status).toBe(404);
    expect((await api.admin('GET', `/api/admin/tokens?eventId=${event.id}`)).status).toBe(404);
    const all = await api.admin('GET', '/api/admin/tokens');
    expect(all.body.tokens.some((t: { eventId: string }) => t.eventId === event.id)).toBe(false);
    const again = await call('POST', `${api.url}/api/tokens/validate`, { json: { code: body.tokens[1].code }, from: '127.1.1.1' });
    expect(again).toMatchObject({ status: 401, body: { error: 'Invalid access code' } });
    const heartbeat = await call('POST', `${api.url}/api/playback/heartbeat`, {
      headers: { authorization: `Bearer ${validated.body.playbackToken}` },
    });
    expect(heartbeat.status).toBe(403);
  });
});

describe('access codes', () => {
  it('generates 500 unique codes of 12 characters in one batch', async () => {
    const event = await createEvent();
    const res = await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 500, label: 'bulk' });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(500);
    const codes = res.body.tokens.map((t: { code: string }) => t.code);
    expect(new Set(codes).size).toBe(500);
    for (const code of codes) expect(code).toMatch(/^[A-HJ-NP-Z2-9]{12}$/);
    expect(res.body.tokens[0]).toMatchObject({
      eventId: event.id,
      label: 'bulk',
      isRevoked: false,
      revokedAt: null,
      redeemedAt: null,
      redeemedIp: null,
      status: 'unused',
    });
  });

  it.each([0, 501, 2.5, '3'])('rejects count %s with 400', async (count) => {
    const event = await createEvent();
    const res = await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^count: /);
  });

  it('revokes, unrevokes and bulk-revokes, and filters by status', async () => {
    const event = await createEvent();
    const { body } = await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 4 });
    const [a, b, c] = body.tokens as { id: string; code: string }[];
    const revoked = await api.admin('PATCH', `/api/admin/tokens/${a!.id}/revoke`);
    expect(revoked).toMatchObject({ status: 200, body: { id: a!.id, isRevoked: true, status: 'revoked' } });
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    const unrevoked = await api.admin('PATCH', `/api/admin/tokens/${a!.id}/unrevoke`);
    expect(unrevoked).toMatchObject({ status: 200, body: { isRevoked: false, revokedAt: null, status: 'unused' } });

    const bulk = await api.admin('POST', '/api/admin/tokens/bulk-revoke', { tokenIds: [a!.id, b!.id, 'missing', a!.id] });
    expect(bulk).toMatchObject({ status: 200, body: { revoked: 2 } });
    expect((await api.admin('POST', '/api/admin/tokens/bulk-revoke', { tokenIds: [a!.id, c!.id] })).body).toEqual({ revoked: 1 });

    const byStatus = async (status: string) =>
      (await api.admin('GET', `/api/admin/events/${event.id}/tokens?status=${status}`)).body.tokens.length;
    expect(await byStatus('revoked')).toBe(3);
    expect(await byStatus('unused')).toBe(1);
    expect(await byStatus('active')).toBe(1);
    const across = await api.admin('GET', `/api/admin/tokens?status=revoked&eventId=${event.id}`);
    expect(across.body.tokens).toHaveLength(3);
    expect((await api.admin('GET', '/api/admin/tokens?status=bogus')).status).toBe(400);
    expect((await api.admin('POST', '/api/admin/tokens/bulk-revoke', { tokenIds: [] })).status).toBe(400);
  });

  it('answers 404 for unknown tokens', async () => {
    expect(await api.admin('PATCH', '/api/admin/tokens/nope/revoke')).toMatchObject({ status: 404, body: { error: 'Token not found' } });
    expect(await api.admin('PATCH', '/api/admin/tokens/nope/unrevoke')).toMatchObject({ status: 404, body: { error: 'Token not found' } });
  });

  it('exports CSV with a header row and cells safe from formula injection', async () => {
    const event = await createEvent();
    await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 2, label: '=HYPERLINK("http://evil","x"),y' });
    const res = await api.admin('GET', `/api/admin/events/${event.id}/tokens/export`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toContain('attachment');
    const lines = res.text.trim().split('\r\n');
    expect(lines[0]).toBe('code,label,status,createdAt,expiresAt,link');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^([A-Z0-9]{12}),"'=HYPERLINK\(""http:\/\/evil"",""x""\),y",unused,\S+,\S+,http:\/\/127\.0\.0\.1:\d+\/\?code=\1$/);
  });

  it("exports times with the organiser's offset and names the file after the event and the day", async () => {
    const event = await createEvent({ title: 'Café Müller / Live: "Night 1"' });
    const { body } = await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1 });
    const created = new Date(body.tokens[0].createdAt);
    // New York in November: UTC−5.
    const res = await api.admin('GET', `/api/admin/events/${event.id}/tokens/export?tz=America%2FNew_York`);
    expect(res.status).toBe(200);
    const [header, row] = res.text.trim().split('\r\n');
    expect(header).toBe('code,label,status,createdAt,expiresAt,link');
    const [, , , createdAt, expiresAt] = row!.split(',');
    expect(createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}-0[45]:00$/);
    expect(Date.parse(createdAt!)).toBe(created.getTime());
    expect(Date.parse(expiresAt!)).toBe(Date.parse(body.tokens[0].expiresAt));
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date());
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="Cafe-Muller-Live-Night-1-codes-${day}.csv"; filename*=UTF-8''${encodeURIComponent(`Café-Müller-Live-Night-1-codes-${day}.csv`)}`,
    );
    // Without a zone: UTC, as before.
    const utc = await api.admin('GET', `/api/admin/events/${event.id}/tokens/export`);
    expect(utc.text.split('\r\n')[1]!.split(',')[3]).toBe(body.tokens[0].createdAt);
    expect(await api.admin('GET', `/api/admin/events/${event.id}/tokens/export?tz=Mars%2FOlympus`)).toMatchObject({
      status: 400,
      body: { error: 'tz: is not a known time zone (use an IANA name such as Europe/Berlin)' },
    });
  });
});

describe('dashboard', () => {
  it('counts events, tokens, redemptions and active viewers', async () => {
    const before = (await api.admin('GET', '/api/admin/dashboard')).body;
    const event = await createEvent();
    const { body } = await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 3 });
    await call('POST', `${api.url}/api/tokens/validate`, { json: { code: body.tokens[0].code }, from: '127.1.2.1' });
    const after = await api.admin('GET', '/api/admin/dashboard');
    expect(after.status).toBe(200);
    expect(after.body).toEqual({
      totalEvents: before.totalEvents + 1,
      activeEvents: before.activeEvents + 1,
      totalTokens: before.totalTokens + 3,
      redeemedTokens: before.redeemedTokens + 1,
      activeViewers: before.activeViewers + 1,
      // None of these events sells tickets here.
      eventsOnSale: [],
    });
  });

  it('counts a viewer as active in the event and on the dashboard alike, and no longer once the code is revoked (again once unrevoked)', async () => {
    const event = await createEvent();
    const { body } = await api.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 2 });
    const [watching, revoked] = body.tokens as { id: string; code: string }[];
    await call('POST', `${api.url}/api/tokens/validate`, { json: { code: watching!.code }, from: '127.1.2.2' });
    await call('POST', `${api.url}/api/tokens/validate`, { json: { code: revoked!.code }, from: '127.1.2.3' });
    const before = (await api.admin('GET', '/api/admin/dashboard')).body.activeViewers;
    expect((await api.admin('PATCH', `/api/admin/tokens/${revoked!.id}/revoke`)).status).toBe(200);
    expect((await api.admin('GET', `/api/admin/events/${event.id}`)).body.stats.activeViewers).toBe(1);
    expect((await api.admin('GET', '/api/admin/dashboard')).body.activeViewers).toBe(before - 1);
    // Unrevoked while its session is still fresh: counted again, as before the revoke.
    expect((await api.admin('PATCH', `/api/admin/tokens/${revoked!.id}/unrevoke`)).status).toBe(200);
    expect((await api.admin('GET', `/api/admin/events/${event.id}`)).body.stats.activeViewers).toBe(2);
  });
});

describe('local HTTP adapter', () => {
  it('answers 404 for unknown API paths and 413 for oversized bodies', async () => {
    expect(await call('GET', `${api.url}/api/nothing-here`)).toMatchObject({ status: 404, body: { error: 'Not found' } });
    const huge = await call('POST', `${api.url}/api/tokens/validate`, { body: JSON.stringify({ code: 'A'.repeat(2 * 1024 * 1024) }), from: '127.1.3.1' });
    expect(huge).toMatchObject({ status: 413, body: { error: 'Request body too large' } });
  });

  it('answers 503 to a cache clear when no media cache is configured', async () => {
    const event = await createEvent();
    expect(await api.admin('DELETE', `/api/admin/events/${event.id}/cache`)).toMatchObject({
      status: 503,
      body: { error: 'Media cache clearing is not configured' },
    });
  });
});
