/**
 * Revocation propagation through the local system (`npm start`'s program, run
 * as a child process): time from the admin's revoke answering 200 to the first
 * 403 of the media server for that code's playback token; median over 20 tries
 * (aim ≤ 1 s). The way there is AWS's: the table's stream into edge-sync, which
 * writes the edge's KeyValueStore. Each try unrevokes afterwards and waits until
 * playback works again.
 *   npx tsx bench/edge-revocation-propagation.ts
 */
import { startLocalSystem } from '../harness/local-system';
import { viewerOfNewEvent } from '../harness/viewer-scenario';
import { benchmark } from './lib/cleanup';

const TRIES = 20;
const PROBE_EVERY_MS = 10;
/** Bound of one wait; a try that exceeds it is reported as lost. */
const WAIT_LIMIT_MS = 10_000;
/** Tries start at random moments within this, so none lines up with a timer of the system's. */
const SPREAD_MS = 500;

await benchmark(async (defer) => {
  const system = await startLocalSystem();
  defer(() => system.stop());
  const viewer = await viewerOfNewEvent(system, 'Propagation bench');
  // Nothing is published, so an allowed request ends in 404 and a denied one in 403.
  const probe = async () => (await fetch(viewer.manifestUrl, { headers: { authorization: `Bearer ${viewer.playbackToken}` } })).status;

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
    await new Promise((resolve) => setTimeout(resolve, Math.random() * SPREAD_MS));
    await system.admin('PATCH', `/api/admin/tokens/${viewer.tokenId}/revoke`);
    const elapsed = await waitFor(403);
    if (elapsed === null) lost++;
    else samples.push(elapsed);
    await system.admin('PATCH', `/api/admin/tokens/${viewer.tokenId}/unrevoke`);
    if ((await waitFor(404)) === null) throw new Error('unrevoke did not reach the media server');
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(samples.length * q))]!;
  console.log(`revocation propagation, admin revoke → first 403 (${samples.length} of ${TRIES} tries)`);
  console.log(`  median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, max ${samples[samples.length - 1]!.toFixed(0)} ms (aim: median ≤ 1000 ms)`);
  if (lost > 0) console.log(`  ${lost} tries saw no 403 within ${WAIT_LIMIT_MS} ms`);
});
