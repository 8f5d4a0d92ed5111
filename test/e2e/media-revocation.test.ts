import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { call } from '../../harness/http';
import { viewerOfNewEvent, type Viewer } from '../../harness/viewer-scenario';

/**
 * Revocation reaching the media server through the running local system:
 * admin actions on the API, edge-sync following the table's stream into the
 * media server's KeyValueStore, as in AWS. The bucket
 * of the local system is empty, so a request that passes the edge validator
 * ends in 404 `Not found` and a denied one in 403 `Access denied`.
 */
let system: LocalSystem;
let viewer: Viewer;

async function mediaStatus(of: Pick<Viewer, 'manifestUrl' | 'playbackToken'> = viewer): Promise<number> {
  return (await fetch(of.manifestUrl, { headers: { authorization: `Bearer ${of.playbackToken}` } })).status;
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

/** Polls until the media server answers `status`; the test's own timeout bounds the wait. */
async function untilMediaAnswers(status: number, of?: Pick<Viewer, 'manifestUrl' | 'playbackToken'>): Promise<void> {
  while ((await mediaStatus(of)) !== status) await pause();
}

beforeAll(async () => {
  // A short session timeout lets the takeover case happen without a long wait.
  system = await startLocalSystem({ SESSION_TIMEOUT_SECONDS: '2' });
  viewer = await viewerOfNewEvent(system, 'Media revocation');
  expect(new URL(viewer.playbackBaseUrl).port).toBe(new URL(system.urls.media!).port);
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
    const anonymous = await fetch(viewer.manifestUrl);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: 'Authorization required' });
  });

  it('revoke denies, unrevoke allows again', async () => {
    await system.admin('PATCH', `/api/admin/tokens/${viewer.tokenId}/revoke`);
    await untilMediaAnswers(403);
    await system.admin('PATCH', `/api/admin/tokens/${viewer.tokenId}/unrevoke`);
    await untilMediaAnswers(404);
  });

  it('deactivate denies, activate allows again', async () => {
    await system.admin('PATCH', `/api/admin/events/${viewer.eventId}/deactivate`);
    await untilMediaAnswers(403);
    await system.admin('PATCH', `/api/admin/events/${viewer.eventId}/activate`);
    await untilMediaAnswers(404);
  });

  it('a plain release costs the edge nothing: its short-lived token runs out on its own', async () => {
    const released = await fetch(`${system.urls.api}/api/playback/release`, {
      method: 'POST',
      headers: { authorization: `Bearer ${viewer.playbackToken}` },
    });
    expect(released.status).toBe(200);
    // Once a later change (another viewer's revocation) has reached the media server, so has everything before it.
    const other = await viewerOfNewEvent(system, 'Media revocation, later change');
    await system.admin('PATCH', `/api/admin/tokens/${other.tokenId}/revoke`);
    await untilMediaAnswers(403, other);
    expect(await mediaStatus()).toBe(404);
  });

  it('a takeover by another device stops the old device\'s token', async () => {
    const first = await viewerOfNewEvent(system, 'Media takeover');
    let second: { status: number; body: { playbackToken?: string } };
    // In use (409) until the first session times out without heartbeats; then the second device gets it.
    do {
      await pause();
      second = await call('POST', `${system.urls.api}/api/tokens/validate`, { json: { code: first.code } });
    } while (second.status === 409);
    expect(second.status).toBe(200);
    await untilMediaAnswers(403, first);
    expect(await mediaStatus({ manifestUrl: first.manifestUrl, playbackToken: second.body.playbackToken! })).toBe(404);
  });

  it('clears an event\'s cache, directly and through the admin API', async () => {
    const response = await fetch(`${system.urls.media}/admin/cache/${viewer.eventId}`, { method: 'DELETE' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ cleared: true });
    expect(await system.admin('DELETE', `/api/admin/events/${viewer.eventId}/cache`)).toEqual({ cleared: true });
  });
});
