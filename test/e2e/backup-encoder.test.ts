/**
 * The backup encoder on `npm start`'s system (one ingest): both encoders
 * publish at once, viewers get the primary; the primary's ffmpeg SIGKILLed,
 * the backup (another frame size and frame rate) is in the live playlist
 * within 3 s after a discontinuity, with no refused playlist or segment and
 * the status `live` throughout; the primary back waits as standby (no flip);
 * the backup killed, the primary is back on air within 3 s; the recording
 * holds all three parts as one show.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { mediaSeconds, newShow, showStatus, videoFrames, watchShow, type ShowViewer } from '../../harness/show';
import { publish, until, type Run } from '../support/ingest';
import { watchFailover } from '../support/failover-watch';
import { startIngest, type IngestProcess } from '../support/ingest-process';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a backup encoder takes over when the primary fails', () => {
  let system: LocalSystem;
  const runs: Run[] = [];
  const ingests: IngestProcess[] = [];

  beforeAll(async () => {
    system = await startLocalSystem();
  }, 90_000);

  afterAll(async () => {
    for (const run of runs) if (run.running()) await run.kill();
    for (const ingest of ingests) await ingest.kill();
    await system?.stop();
  });

  it('primary killed → backup within 3 s; the primary back stays standby; the backup killed → primary within 3 s', async () => {
    const show = await newShow(system, 'Backup');
    const { ingest } = await system.admin('GET', `/api/admin/events/${show.eventId}`);
    const backupUrl = `${ingest.server}/${ingest.backup.streamKey}`;
    const viewer = await watchShow(system, show.codes[0]!);
    const primary = publish(show.rtmpUrl, undefined, { gop: 25 });
    runs.push(primary);
    await until(async () => (await showStatus(system, show.eventId)) === 'live');
    const backup = publish(backupUrl, undefined, { gop: 30, rate: 30, size: '480x270' });
    runs.push(backup);
    await until(async () => mediaSeconds(await viewer.playlist()) >= 4, 250);
    const encoders = await until(async () => {
      const { ingest: now } = await system.admin('GET', `/api/admin/events/${show.eventId}`);
      return now.encoders.length === 2 ? now.encoders : undefined;
    }, 250);
    expect(encoders).toEqual([
      expect.objectContaining({ role: 'primary', protocol: 'rtmp', connected: true, onAir: true }),
      expect.objectContaining({ role: 'backup', protocol: 'rtmp', connected: true, onAir: false }),
    ]);

    const { toBackup, toPrimary, returned } = await killBothWays({ system, eventId: show.eventId, viewer, primary, backup, primaryUrl: show.rtmpUrl, runs });
    await returned.stop();
    await until(async () => (await showStatus(system, show.eventId)) === 'recording', 250);
    const recording = (await viewer.playlist())!;
    expect(recording).toMatch(/#EXT-X-ENDLIST\s*$/);
    expect(recording.match(/#EXT-X-DISCONTINUITY\n/g)).toHaveLength(2);
    expect(await videoFrames(viewer.url, viewer.token)).toBeGreaterThanOrEqual(Math.floor(mediaSeconds(recording) * 25 * 0.85));
    process.stdout.write(`backup failover: primary→backup ${toBackup} ms, backup→primary ${toPrimary} ms\n`);
  }, 180_000);

  it('the same across two ingest processes on one table: the standby process takes over, and hands back', async () => {
    const [a, b] = await Promise.all([startIngest(system), startIngest(system)]);
    ingests.push(a!, b!);
    const show = await newShow(system, 'Backup across');
    const { ingest } = await system.admin('GET', `/api/admin/events/${show.eventId}`);
    const viewer = await watchShow(system, show.codes[0]!);
    const primary = publish(`${a!.url}/${show.streamKey}`, undefined, { gop: 25 });
    runs.push(primary);
    await until(async () => (await showStatus(system, show.eventId)) === 'live');
    const backup = publish(`${b!.url}/${ingest.backup.streamKey}`, undefined, { gop: 30, rate: 30, size: '480x270' });
    runs.push(backup);
    await until(async () => mediaSeconds(await viewer.playlist()) >= 4, 250);
    await until(async () => {
      const { ingest: now } = await system.admin('GET', `/api/admin/events/${show.eventId}`);
      return now.encoders.filter((encoder: { connected: boolean }) => encoder.connected).length === 2 || undefined;
    }, 250);

    const { toBackup, toPrimary, returned } = await killBothWays({ system, eventId: show.eventId, viewer, primary, backup, primaryUrl: `${a!.url}/${show.streamKey}`, runs });
    await returned.stop();
    await until(async () => (await showStatus(system, show.eventId)) === 'recording', 250);
    const recording = (await viewer.playlist())!;
    expect(recording).toMatch(/#EXT-X-ENDLIST\s*$/);
    expect(await videoFrames(viewer.url, viewer.token)).toBeGreaterThanOrEqual(Math.floor(mediaSeconds(recording) * 25 * 0.85));
    process.stdout.write(`backup failover across processes: primary→backup ${toBackup} ms, backup→primary ${toPrimary} ms\n`);
  }, 180_000);

  it('the on-air ingest process itself killed: the standby process takes over once the lease runs out', async () => {
    const [a, b] = await Promise.all([startIngest(system), startIngest(system)]);
    ingests.push(a!, b!);
    const show = await newShow(system, 'Backup task dies');
    const { ingest } = await system.admin('GET', `/api/admin/events/${show.eventId}`);
    const viewer = await watchShow(system, show.codes[0]!);
    const primary = publish(`${a!.url}/${show.streamKey}`, undefined, { gop: 25 });
    runs.push(primary);
    await until(async () => (await showStatus(system, show.eventId)) === 'live');
    const backup = publish(`${b!.url}/${ingest.backup.streamKey}`, undefined, { gop: 30, rate: 30, size: '480x270' });
    runs.push(backup);
    await until(async () => mediaSeconds(await viewer.playlist()) >= 4, 250);
    const watch = watchFailover(system, show.eventId, viewer);
    await sleep(1_000);
    const before = watch.discontinuities();
    const killedAt = Date.now();
    // Nobody hands over: the lease (15 s, renewed every 5 s) has to run out first.
    await a!.kill();
    const taken = await watch.waitForSwitch(killedAt, before, 30_000);
    expect(taken).toBeLessThan(17_000);
    await sleep(2_000);
    await watch.stop();
    expect(watch.refused).toEqual([]);
    expect(await showStatus(system, show.eventId)).toBe('live');
    process.stdout.write(`backup failover, on-air task killed: ${taken} ms\n`);
  }, 120_000);
});

/**
 * The two-way story both setups share, watched as a viewer: the primary killed → the backup on air
 * within 3 s; the primary back waits as standby (no flip); the backup killed → the primary within 3 s;
 * no refused playlist or segment and the status `live` throughout. The returned primary keeps publishing.
 */
async function killBothWays(args: { system: LocalSystem; eventId: string; viewer: ShowViewer; primary: Run; backup: Run; primaryUrl: string; runs: Run[] }) {
  const { system, eventId, viewer, primary, backup, runs } = args;
  const watch = watchFailover(system, eventId, viewer);
  await sleep(1_000);
  const before = watch.discontinuities();
  let killedAt = Date.now();
  await primary.kill();
  const toBackup = await watch.waitForSwitch(killedAt, before);
  expect(toBackup).toBeLessThan(3_000);

  const returned = publish(args.primaryUrl, undefined, { gop: 25 });
  runs.push(returned);
  await sleep(6_000);
  expect(watch.discontinuities()).toBe(before + 1);

  killedAt = Date.now();
  await backup.kill();
  const toPrimary = await watch.waitForSwitch(killedAt, before + 1);
  expect(toPrimary).toBeLessThan(3_000);
  await sleep(3_000);
  await watch.stop();
  expect(watch.refused).toEqual([]);
  expect([...watch.statuses]).toEqual(['live']);
  return { toBackup, toPrimary, returned };
}
