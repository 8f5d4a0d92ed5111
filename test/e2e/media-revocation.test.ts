import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSystem, type LocalSystem } from '../support/local-system';

/**
 * Revocation reaching the media server through the running local system:
 * admin actions on the API, the media server following the feed. The bucket
 * of the local system is empty, so a request that passes the edge validator
 * ends in 404 `Not found` and a denied one in 403 `Access denied`.
 */
let system: LocalSystem;
let cookie: string;
let eventId: string;
let tokenId: string;
let playbackToken: string;
let manifestUrl: string;

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${system.urls.api}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function mediaStatus(): Promise<number> {
  return (await fetch(manifestUrl, { headers: { authorization: `Bearer ${playbackToken}` } })).status;
}

/** Polls until the media server answers `status`; the test's own timeout bounds the wait. */
async function untilMediaAnswers(status: number): Promise<void> {
  while ((await mediaStatus()) !== status) await new Promise((resolve) => setTimeout(resolve, 50));
}

beforeAll(async () => {
  system = await startLocalSystem();
  // Until start.ts awaits the media server's first sync before `ready`, the first poll may still be under way.
  while ((await (await fetch(`${system.urls.media}/health`)).json()).status !== 'ok') {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const login = await api('/api/admin/login', { method: 'POST', body: { password: system.adminPassword } });
  expect(login.status).toBe(200);
  cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;

  const now = Date.now();
  const created = await api('/api/admin/events', {
    method: 'POST',
    body: { title: 'Media revocation', startsAt: new Date(now - 3_600_000).toISOString(), endsAt: new Date(now + 7_200_000).toISOString() },
  });
  expect(created.status).toBe(201);
  eventId = ((await created.json()) as { id: string }).id;

  const generated = await api(`/api/admin/events/${eventId}/tokens`, { method: 'POST', body: { count: 1, label: 'e2e' } });
  const generatedBody = await generated.text();
  expect(generated.status, generatedBody).toBe(201);
  const { tokens } = JSON.parse(generatedBody) as { tokens: { id: string; code: string }[] };
  tokenId = tokens[0]!.id;

  const validated = await api('/api/tokens/validate', { method: 'POST', body: { code: tokens[0]!.code } });
  expect(validated.status).toBe(200);
  const grant = (await validated.json()) as { playbackToken: string; playbackBaseUrl: string; streamPath: string };
  playbackToken = grant.playbackToken;
  expect(new URL(grant.playbackBaseUrl).port).toBe(new URL(system.urls.media!).port);
  manifestUrl = `${system.urls.media}${grant.streamPath}index.m3u8`;
});

afterAll(async () => {
  await system?.stop();
});

describe('media server in the local system', () => {
  it('is in the ready line and healthy', async () => {
    const health = await (await fetch(`${system.urls.media}/health`)).json();
    expect(health).toMatchObject({ status: 'ok', mode: 'validating' });
  });

  it('lets the playback token through (404: nothing published yet), refuses without it', async () => {
    expect(await mediaStatus()).toBe(404);
    const anonymous = await fetch(manifestUrl);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: 'Authorization required' });
  });

  it('revoke denies, unrevoke allows again', async () => {
    expect((await api(`/api/admin/tokens/${tokenId}/revoke`, { method: 'PATCH' })).status).toBe(200);
    await untilMediaAnswers(403);
    expect((await api(`/api/admin/tokens/${tokenId}/unrevoke`, { method: 'PATCH' })).status).toBe(200);
    await untilMediaAnswers(404);
  });

  it('deactivate denies, activate allows again', async () => {
    expect((await api(`/api/admin/events/${eventId}/deactivate`, { method: 'PATCH' })).status).toBe(200);
    await untilMediaAnswers(403);
    expect((await api(`/api/admin/events/${eventId}/activate`, { method: 'PATCH' })).status).toBe(200);
    await untilMediaAnswers(404);
  });

  it('release ends the session: its token stops working', async () => {
    const released = await fetch(`${system.urls.api}/api/playback/release`, {
      method: 'POST',
      headers: { authorization: `Bearer ${playbackToken}` },
    });
    expect(released.status).toBe(200);
    await untilMediaAnswers(403);
  });

  it('clears an event\'s cache', async () => {
    const response = await fetch(`${system.urls.media}/admin/cache/${eventId}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ cleared: true });
  });
});
