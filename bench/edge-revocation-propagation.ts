/**
 * Revocation propagation through the local system (`npm start`'s program, run
 * as a child process): time from the admin's revoke answering 200 to the first
 * 403 of the media server for that code's playback token; median over 20 tries
 * (aim ≤ 1 s). Each try unrevokes afterwards and waits until playback works again.
 *   npx tsx bench/edge-revocation-propagation.ts
 */
import { startLocalSystem } from '../test/support/local-system';

const TRIES = 20;
const PROBE_EVERY_MS = 10;
/** Bound of one wait; a try that exceeds it is reported as lost. */
const WAIT_LIMIT_MS = 10_000;
/** The media server's default, which `npm start` uses. */
const POLL_INTERVAL_MS = 500;

const system = await startLocalSystem();
try {
  const api = system.urls.api!;
  const login = await fetch(`${api}/api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ password: system.adminPassword }),
  });
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
  const admin = (path: string, method: string, body?: unknown) =>
    fetch(`${api}${path}`, {
      method,
      headers: { 'content-type': 'application/json', cookie },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (response) => {
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response.json();
    });

  const now = Date.now();
  const event = await admin('/api/admin/events', 'POST', {
    title: 'Propagation bench',
    startsAt: new Date(now - 3_600_000).toISOString(),
    endsAt: new Date(now + 7_200_000).toISOString(),
  });
  const { tokens } = await admin(`/api/admin/events/${event.id}/tokens`, 'POST', { count: 1, label: 'bench' });
  const grant = await fetch(`${api}/api/tokens/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code: tokens[0].code }),
  }).then((response) => response.json());
  // Nothing is published, so an allowed request ends in 404 and a denied one in 403.
  const manifest = `${system.urls.media}${grant.streamPath}index.m3u8`;
  const probe = async () => (await fetch(manifest, { headers: { authorization: `Bearer ${grant.playbackToken}` } })).status;

  async function waitFor(status: number): Promise<number | null> {
    const start = performance.now();
    while (performance.now() - start < WAIT_LIMIT_MS) {
      if ((await probe()) === status) return performance.now() - start;
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
    return null;
  }

  if ((await waitFor(404)) === null) throw new Error('the playback token is not accepted before the first revoke');
  const samples: number[] = [];
  let lost = 0;
  for (let i = 0; i < TRIES; i++) {
    // The previous wait ended right after a poll; a random pause keeps tries from locking onto the poll cycle.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * POLL_INTERVAL_MS));
    await admin(`/api/admin/tokens/${tokens[0].id}/revoke`, 'PATCH');
    const elapsed = await waitFor(403);
    if (elapsed === null) lost++;
    else samples.push(elapsed);
    await admin(`/api/admin/tokens/${tokens[0].id}/unrevoke`, 'PATCH');
    if ((await waitFor(404)) === null) throw new Error('unrevoke did not reach the media server');
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(samples.length * q))]!;
  console.log(`revocation propagation, admin revoke → first 403 (${samples.length} of ${TRIES} tries, poll interval ${POLL_INTERVAL_MS} ms)`);
  console.log(`  median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, max ${samples[samples.length - 1]!.toFixed(0)} ms (aim: median ≤ 1000 ms)`);
  if (lost > 0) console.log(`  ${lost} tries saw no 403 within ${WAIT_LIMIT_MS} ms`);
} finally {
  await system.stop();
}
