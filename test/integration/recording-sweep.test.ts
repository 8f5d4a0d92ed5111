import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient, s3Client } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { s3RecordingFinalizer } from '../../functions/adapters/recording-finalizer';
import { eventStatus } from '../../functions/domain/event-status';
import type { Stores } from '../../functions/compose/stores';
import { createRecordingSweepHandler } from '../../functions/triggers/recording-sweep';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../local/embedded-dynamodb';
import { startEmbeddedS3, type EmbeddedS3 } from '../../local/embedded-s3';
import type { Logger } from '../../recording/log';
import { Recording } from '../../recording/recording';
import { s3Store, type HlsStore } from '../../recording/store';
import { sampleEvent } from '../support/store-records';

/**
 * The recording sweep (functions/handlers/recording-sweep.ts) on the embedded DynamoDB and S3: the
 * shows whose ingest died (a lease that ran out) get their final playlists from the recording index
 * the ingest wrote (recording/), and leave `live` for good; shows on air are left alone.
 */
const BUCKET = 'stagedoor-media';
const TABLE = 'stagedoor';
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

let dynamo: EmbeddedDynamo;
let s3: EmbeddedS3;
let stores: Stores;
let media: HlsStore;
let sweep: ReturnType<typeof createRecordingSweepHandler>;

/** An event whose ingest stored two segments of a show (as the ingest does) and holds a lease until `expiresAt`. */
async function showOnLease(expiresAt: string) {
  const event = sampleEvent();
  await stores.events.createEvent(event);
  const recording = await Recording.open(media, event.id, quiet, { id: randomUUID(), segmentSeconds: 1, dvrWindowSeconds: 120 });
  recording.add('index.m3u8', [
    { uri: 'seg-0.ts', duration: 1, bytes: 1_000 },
    { uri: 'seg-1.ts', duration: 1, bytes: 1_000 },
  ]);
  await recording.save();
  await recording.putLivePlaylists();
  const holder = `ingest-${randomUUID()}`;
  await stores.events.acquireStreamLease(event.id, { holder, now: iso(-30_000), expiresAt });
  return { event, holder };
}

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ tableName: TABLE });
  s3 = await startEmbeddedS3({ buckets: [BUCKET] });
  const aws = {
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    endpoints: { dynamodb: dynamo.endpoint, s3: s3.endpoint },
    s3ForcePathStyle: true,
  };
  stores = dynamoStores(dynamoDocumentClient(aws), TABLE);
  media = s3Store({ bucket: BUCKET, client: s3Client(aws) });
  sweep = createRecordingSweepHandler({ events: stores.events, recordings: s3RecordingFinalizer(s3Client(aws), BUCKET) });
});

afterAll(async () => {
  await dynamo?.close();
  await s3?.close();
});

describe('recording sweep', () => {
  it('finalizes a show whose lease ran out and ends that lease; a show on air is left alone', async () => {
    const died = await showOnLease(iso(-20_000));
    const onAir = await showOnLease(iso(15_000));
    const live = (await media.get(`streams/${died.event.id}/index.m3u8`))!.toString();
    expect(live).not.toContain('#EXT-X-ENDLIST');

    const { finalized } = await sweep();
    expect(finalized).toContain(died.event.id);
    expect(finalized).not.toContain(onAir.event.id);

    const final = (await media.get(`streams/${died.event.id}/index.m3u8`))!.toString();
    expect(final).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    expect(final).toMatch(/seg-0\.ts\n[\s\S]*seg-1\.ts\n#EXT-X-ENDLIST\n$/);
    const ended = (await stores.events.getEvent(died.event.id))!;
    expect(ended).toMatchObject({ leaseHolder: null, leaseExpiresAt: null, lastLiveEndedAt: expect.any(String) });
    expect(eventStatus(ended, new Date())).toBe('recording');

    expect((await stores.events.getEvent(onAir.event.id))!.leaseHolder).toBe(onAir.holder);
    expect((await media.get(`streams/${onAir.event.id}/index.m3u8`))!.toString()).not.toContain('#EXT-X-ENDLIST');
    // Nothing is left to do at the next run.
    expect((await sweep()).finalized).not.toContain(died.event.id);
  });

  it('writes the final playlists of a show whose ingest died before storing a segment as nothing, and still ends its lease', async () => {
    const event = sampleEvent();
    await stores.events.createEvent(event);
    await stores.events.acquireStreamLease(event.id, { holder: 'ingest-x', now: iso(-30_000), expiresAt: iso(-15_000) });
    expect((await sweep()).finalized).toContain(event.id);
    expect(await media.list(`streams/${event.id}/`)).toEqual([]);
    expect((await stores.events.getEvent(event.id))!.leaseHolder).toBeNull();
  });
});
