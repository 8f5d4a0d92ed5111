/**
 * With real processes: two ingest processes (`npm run ingest`, the
 * container's program) against one local API and S3 (`npm start`'s program).
 * A second publisher of a live event on the other process is refused; the
 * first process killed with SIGKILL, the show continues on the second once the
 * lease runs out, and the final recording holds both parts with one
 * discontinuity. The only ingest killed mid-show: the status leaves `live` by
 * itself and the recording sweep makes the recording so far play to its end.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { mediaSeconds, newShow, showStatus, videoFrames, watchShow } from '../../harness/show';
import { publish, until } from '../support/ingest';
import { startIngest, type IngestProcess } from '../support/ingest-process';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ingest processes fail over without losing the show', () => {
  let system: LocalSystem;
  const ingests: IngestProcess[] = [];

  beforeAll(async () => {
    system = await startLocalSystem();
  }, 90_000);

  afterAll(async () => {
    for (const ingest of ingests) await ingest.kill();
    await system?.stop();
  });

  it('refuses a second publisher on another process; after a SIGKILL the other process continues the show', async () => {
    const [a, b] = await Promise.all([startIngest(system), startIngest(system)]);
    ingests.push(a!, b!);
    const show = await newShow(system, 'Failover');
    const viewer = await watchShow(system, show.codes[0]!);
    const first = publish(`${a!.url}/${show.streamKey}`);
    await until(async () => (await showStatus(system, show.eventId)) === 'live');
    await until(async () => mediaSeconds(await viewer.playlist()) >= 6, 250);

    const refused = await publish(`${b!.url}/${show.streamKey}`, 5).done;
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('stream already publishing on another ingest');
    // The event page lists it as "Already publishing elsewhere".
    const refusals = await until(async () => {
      const { ingest } = await system.admin('GET', `/api/admin/events/${show.eventId}`);
      return ingest.refusals.length > 0 ? ingest.refusals : undefined;
    }, 250);
    expect(refusals).toEqual([expect.objectContaining({ reason: 'already-publishing', remoteAddr: expect.stringMatching(/^127\.0\.0\.1:\d+$/) })]);
    const s3 = new S3Client({ endpoint: system.urls.s3, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const parts = async () => (await s3.send(new ListObjectsV2Command({ Bucket: 'stagedoor-media', Prefix: `recordings/${show.eventId}/` }))).KeyCount ?? 0;
    expect(await parts()).toBe(1);

    // Process A dies mid-show; its publisher (say OBS) reconnects, now to B, until B may take the show over.
    await a!.kill();
    await first.kill();
    const storedBefore = mediaSeconds(await viewer.playlist());
    let second;
    for (;;) {
      second = await publish(`${b!.url}/${show.streamKey}`, 10).done;
      if (second.code === 0) break;
      expect(second.stderr).toContain('stream already publishing on another ingest');
      await sleep(1_000);
    }
    await until(async () => (await showStatus(system, show.eventId)) === 'recording', 250);
    const recording = (await viewer.playlist())!;
    expect(recording).toMatch(/#EXT-X-ENDLIST\s*$/);
    expect(recording.match(/#EXT-X-DISCONTINUITY\n/g)).toHaveLength(1);
    expect(mediaSeconds(recording)).toBeGreaterThanOrEqual(storedBefore + 9);
    expect(await parts()).toBe(2);
    expect(await videoFrames(viewer.url, viewer.token)).toBeGreaterThanOrEqual(Math.floor((storedBefore + 9) * 25 * 0.9));
  }, 180_000);

  it('the only ingest killed mid-show: the status leaves live by itself and the recording so far plays to its end', async () => {
    const ingest = await startIngest(system);
    ingests.push(ingest);
    const show = await newShow(system, 'Killed');
    const viewer = await watchShow(system, show.codes[0]!);
    const publisher = publish(`${ingest.url}/${show.streamKey}`);
    await until(async () => (await showStatus(system, show.eventId)) === 'live');
    await until(async () => mediaSeconds(await viewer.playlist()) >= 6, 250);
    await ingest.kill();
    const killedAt = Date.now();
    await publisher.kill();

    await until(async () => (await showStatus(system, show.eventId)) !== 'live', 1_000);
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    expect(await showStatus(system, show.eventId)).toBe('recording');
    // The recording sweep (every minute, as in AWS) writes the final playlists; no status read does.
    const recording = await until(async () => {
      const playlist = await viewer.playlist();
      return playlist?.includes('#EXT-X-PLAYLIST-TYPE:VOD') ? playlist : undefined;
    }, 1_000);
    expect(recording).toMatch(/#EXT-X-ENDLIST\s*$/);
    expect(await showStatus(system, show.eventId)).toBe('recording');
    expect(await videoFrames(viewer.url, viewer.token)).toBeGreaterThanOrEqual(Math.floor(mediaSeconds(recording) * 25 * 0.9));
  }, 180_000);
});
