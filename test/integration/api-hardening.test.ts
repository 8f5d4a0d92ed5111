/**
 * Holes the API must not have, through the local adapter and the shipped handlers:
 * CSRF on admin mutations, ids that cannot name a record, malformed escapes.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../../harness/api-harness';
import { call } from '../../harness/http';

let api: ApiHarness;
let cookie: string;
beforeAll(async () => {
  api = await startApi();
  cookie = await api.login('127.0.0.251');
});
afterAll(() => api?.close());

const event = {
  title: 'CSRF probe',
  startsAt: new Date(Date.now() + 3_600_000).toISOString(),
  endsAt: new Date(Date.now() + 7_200_000).toISOString(),
};

describe('admin mutations and CSRF', () => {
  const post = (headers: Record<string, string>, body: string) =>
    call('POST', `${api.url}/api/admin/events`, { body, headers: { cookie, 'content-length': String(Buffer.byteLength(body)), ...headers } });

  it('refuses a text/plain or form-encoded body (what a foreign page can send without a preflight)', async () => {
    expect(await post({ 'content-type': 'text/plain' }, JSON.stringify(event))).toMatchObject({
      status: 415,
      body: { error: 'Content-Type must be application/json' },
    });
    expect(await post({ 'content-type': 'application/x-www-form-urlencoded' }, 'title=x')).toMatchObject({ status: 415 });
    const events = (await api.admin('GET', '/api/admin/events')).body.events as { title: string }[];
    expect(events.filter((e) => e.title === 'CSRF probe')).toEqual([]);
  });

  it('refuses a foreign Origin and accepts its own, or none', async () => {
    const json = { 'content-type': 'application/json' };
    expect(await post({ ...json, origin: 'https://evil.example' }, JSON.stringify(event))).toMatchObject({
      status: 403,
      body: { error: 'Cross-origin request refused' },
    });
    expect(await post({ ...json, origin: 'null' }, JSON.stringify(event))).toMatchObject({ status: 403 });
    const own = new URL(api.url).origin;
    const created = await post({ ...json, origin: own }, JSON.stringify(event));
    expect(created.status).toBe(201);
    expect((await post(json, JSON.stringify(event))).status).toBe(201);
    // Bodyless mutations of the console (no content type) still work from the site itself.
    const deactivated = await call('PATCH', `${api.url}/api/admin/events/${created.body.id}/deactivate`, { headers: { cookie, origin: own } });
    expect(deactivated.status).toBe(200);
  });

  it('refuses a JSON body over 64 KiB with 413 before parsing it (API Gateway would pass up to 10 MB)', async () => {
    const big = JSON.stringify({ ...event, description: 'x'.repeat(70 * 1024) });
    expect(await post({ 'content-type': 'application/json' }, big)).toMatchObject({ status: 413, body: { error: 'Request body too large' } });
    const bulk = JSON.stringify({ tokenIds: Array.from({ length: 1000 }, (_, i) => `id${String(i).padStart(20, '0')}`) });
    const revoke = await call('POST', `${api.url}/api/admin/tokens/bulk-revoke`, { body: bulk, headers: { cookie, 'content-type': 'application/json' } });
    expect(revoke).toMatchObject({ status: 200, body: { revoked: 0 } });
  });

  it('leaves reads and the viewer API alone', async () => {
    expect((await call('GET', `${api.url}/api/admin/events`, { headers: { cookie, origin: 'https://evil.example' } })).status).toBe(200);
  });
});

describe('ids that cannot name a record', () => {
  const long = 'a'.repeat(3000);

  it('are a 404 on every path parameter, never a 500', async () => {
    expect(await call('GET', `${api.url}/api/events/${long}/status`)).toMatchObject({ status: 404, body: { error: 'Event not found' } });
    expect(await api.admin('GET', `/api/admin/events/${long}`)).toMatchObject({ status: 404, body: { error: 'Event not found' } });
    expect(await api.admin('PATCH', `/api/admin/tokens/${long}/revoke`)).toMatchObject({ status: 404, body: { error: 'Token not found' } });
    expect(await api.admin('GET', `/api/admin/events/a%20b/tokens`)).toMatchObject({ status: 404 });
    const lease = await call('POST', `${api.url}/api/internal/streams/${long}/lease`, {
      json: { holder: 'ingest-a', action: 'acquire' },
      headers: { 'x-internal-api-key': api.internalApiKey },
    });
    expect(lease).toMatchObject({ status: 404, body: { error: 'Event not found' } });
  });

  it('checks each path parameter with its own rule: a login name with a dot names an account', async () => {
    const created = await api.admin('POST', '/api/admin/accounts', { username: 'j.doe', role: 'box-office', password: 'a long enough password' });
    expect(created).toMatchObject({ status: 201, body: { username: 'j.doe' } });
    expect(await api.admin('PATCH', '/api/admin/accounts/j.doe', { disabled: true })).toMatchObject({ status: 200, body: { username: 'j.doe', disabled: true } });
    expect(await api.admin('POST', '/api/admin/accounts/j.doe/password', { password: 'another long password' })).toMatchObject({ status: 200 });
    expect(await api.admin('POST', '/api/admin/accounts/j.doe/two-factor/reset', {})).toMatchObject({ status: 200 });
    // A name no account can have is that account's 404, not the event's.
    for (const name of [long, 'a%20b', '.dot-first', 'UPPER%2Fslash']) {
      expect(await api.admin('PATCH', `/api/admin/accounts/${name}`, { disabled: true }), name).toMatchObject({ status: 404, body: { error: 'Account not found' } });
    }
    // An event id with a dot is no event id.
    expect(await api.admin('GET', '/api/admin/events/j.doe')).toMatchObject({ status: 404, body: { error: 'Event not found' } });
  });

  it('are a 400 in a query or body, and a refusal in the RTMP callback', async () => {
    expect(await api.admin('GET', `/api/admin/tokens?eventId=${long}`)).toMatchObject({ status: 400, body: { error: 'eventId: is not a valid id' } });
    expect(await api.admin('POST', '/api/admin/tokens/bulk-revoke', { tokenIds: [long] })).toMatchObject({ status: 400 });
    const callback = await call('POST', `${api.url}/api/internal/rtmp-auth`, {
      json: { action: 'publish', app: 'live', stream_name: long, stream_key: `live/${long}`, token: 'x', remote_addr: '127.0.0.1:1' },
      headers: { 'x-internal-api-key': api.internalApiKey },
    });
    expect(callback.status).toBeGreaterThanOrEqual(400);
    expect(callback.status).toBeLessThan(500);
  });

  it('a malformed % escape is a 400 from the local adapter', async () => {
    const raw = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${api.url}/api/events/%E0%A4%A/status`, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.body)).toEqual({ error: 'Malformed request path' });
  });
});
