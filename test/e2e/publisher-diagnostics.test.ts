/**
 * What the event page tells a streamer about their encoder, through the
 * admin event API of `npm start`'s program: the keyframe interval the ingest
 * measured (with a warning when keyframes are further apart than the 1 s
 * segments) and the publish attempts it refused, with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../harness/http';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { publish, until, type Run } from '../support/ingest';

describe('publisher diagnostics on the event', () => {
  let system: LocalSystem;
  const publishers: Run[] = [];

  const createEvent = async (title: string) => {
    const now = Date.now();
    const event = await system.admin('POST', '/api/admin/events', {
      title,
      startsAt: new Date(now - 3_600_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
    });
    return event.id as string;
  };
  const details = (eventId: string) => system.admin('GET', `/api/admin/events/${eventId}`);
  const isLive = async (eventId: string) => (await call('GET', `${system.urls.api}/api/events/${eventId}/status`)).body.status === 'live';

  beforeAll(async () => {
    system = await startLocalSystem();
  }, 90_000);

  afterAll(async () => {
    await Promise.all(publishers.filter((p) => p.running()).map((p) => p.stop()));
    await system?.stop();
  });

  it('re-encodes keyframes 4 s apart and says so, with the latency viewers get and the OBS fix', async () => {
    const eventId = await createEvent('Long GOP');
    const { ingest } = await details(eventId);
    expect(ingest).toMatchObject({ video: null, keyframeWarning: null, refusals: [] });
    const publisher = publish(`${ingest.server}/${ingest.streamKey}`, undefined, { gop: 100 });
    publishers.push(publisher);
    const measured = await until(async () => {
      const fresh = (await details(eventId)).ingest;
      return fresh.video ? fresh : undefined;
    }, 500);
    expect(measured.video).toMatchObject({ keyframeIntervalSeconds: 4, segmentSeconds: 1, reencoding: true });
    expect(measured.video.frameRate).toBeGreaterThan(20);
    expect(measured.keyframeWarning).toMatch(/^Re-encoding: keyframes every 4 s\. .* viewers stay about 3 s behind live/);
    expect(measured.keyframeWarning).toContain('Output Mode “Advanced”');
    expect(measured.keyframeWarning).toContain('Keyframe Interval 1 s');
    // The stream keeps working: still live.
    expect(await isLive(eventId)).toBe(true);
    await publisher.stop();
  }, 120_000);

  it('shows no warning when keyframes come every second', async () => {
    const eventId = await createEvent('Short GOP');
    const { ingest } = await details(eventId);
    const publisher = publish(`${ingest.server}/${ingest.streamKey}`, undefined, { gop: 25 });
    publishers.push(publisher);
    const measured = await until(async () => {
      const fresh = (await details(eventId)).ingest;
      return fresh.video ? fresh : undefined;
    }, 500);
    expect(measured.video).toMatchObject({ keyframeIntervalSeconds: 1, reencoding: false });
    expect(measured.keyframeWarning).toBeNull();
    await publisher.stop();
  }, 120_000);

  it('lists refused publishes, newest first: wrong key, rotated key, inactive event, already publishing', async () => {
    const eventId = await createEvent('Refusals');
    const first = (await details(eventId)).ingest;
    await publish(`${first.server}/${eventId}?token=not-the-key`, 1).done;
    const rotated = (await system.admin('POST', `/api/admin/events/${eventId}/ingest-key`)).ingest;
    await publish(`${first.server}/${first.streamKey}`, 1).done;

    const live = publish(`${rotated.server}/${rotated.streamKey}`);
    publishers.push(live);
    await until(() => isLive(eventId), 250);
    await publish(`${rotated.server}/${rotated.streamKey}`, 1).done;
    await until(async () => ((await details(eventId)).ingest.refusals.length === 3 ? true : undefined), 250);
    await live.stop();

    await system.admin('PATCH', `/api/admin/events/${eventId}/deactivate`);
    await publish(`${rotated.server}/${rotated.streamKey}`, 1).done;

    const { refusals } = (await details(eventId)).ingest;
    expect(refusals.map((r: { reason: string }) => r.reason)).toEqual(['event-inactive', 'already-publishing', 'rotated-key', 'wrong-key']);
    for (const refusal of refusals) {
      expect(refusal.remoteAddr).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(Date.parse(refusal.at)).not.toBeNaN();
      expect(refusal.message).toEqual(expect.any(String));
    }
    expect(refusals[2].message).toContain('replaced by “New stream key”');
  }, 120_000);
});
