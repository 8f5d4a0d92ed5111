import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import {
  CloudFrontKeyValueStoreClient,
  ConflictException,
  DescribeKeyValueStoreCommand,
  ListKeysCommand,
  UpdateKeysCommand,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import { beforeEach, describe, expect, it } from 'vitest';
import { createEdgeSyncHandler } from '../../functions/triggers/edge-sync';
import { createKvsWriter } from '../../functions/adapters/kvs-writer';
import { cloudFrontKeyValueStore } from '../../functions/adapters/kvs-cloudfront';
import { cloudFrontMediaCache } from '../../functions/adapters/cdn-invalidation';
import type { CodeRecord, EventRecord } from '../../functions/domain/records';
import { memoryKvs } from '../support/memory-kvs';
import { kvsKey } from '../../functions/adapters/kvs-scheme';
import type { EventGeoRule } from '../../functions/domain/events';
import { markKeyOf } from '../../functions/domain/watermark';

const KVS_ARN = 'arn:aws:cloudfront::123456789012:key-value-store/0000';
const NOW = new Date('2026-11-21T12:00:00.000Z');
const kvsMock = mockClient(CloudFrontKeyValueStoreClient);
const WATERMARK_SECRET = 'the deployment watermark secret';
/** The `w:` value of an event: its mark key, base64url. */
const markKeyValue = (eventId: string) => markKeyOf(WATERMARK_SECRET, eventId).toString('base64url');

const S = (value: string): AttributeValue => ({ S: value });
const BOOL = (value: boolean): AttributeValue => ({ BOOL: value });

function codeImage(fields: {
  isRevoked?: boolean;
  revokedAt?: string;
  denyUntil?: string;
  ended?: { sessionId: string; endedAt: string; longLivedUntil?: string }[];
}) {
  return {
    pk: S('CODE#ABC123'),
    sk: S('CODE'),
    code: S('ABC123'),
    eventId: S('evt-1'),
    isRevoked: BOOL(fields.isRevoked ?? false),
    revokedAt: fields.revokedAt ? S(fields.revokedAt) : { NULL: true as const },
    denyUntil: fields.denyUntil ? S(fields.denyUntil) : { NULL: true as const },
    endedSessions: {
      L: (fields.ended ?? []).map((e) => ({
        M: { sessionId: S(e.sessionId), endedAt: S(e.endedAt), ...(e.longLivedUntil ? { longLivedUntil: S(e.longLivedUntil) } : {}) },
      })),
    },
  };
}

function eventImage(
  isActive: boolean,
  fields: { accessWindowHours?: number; denyUntil?: string; geo?: AttributeValue; deleted?: boolean; watermark?: boolean; watermarkSince?: string | null } = {},
) {
  return {
    pk: S('EVENT#evt-1'),
    sk: S('EVENT'),
    id: S('evt-1'),
    isActive: BOOL(isActive),
    activeChangedAt: S('2026-11-21T11:59:00.000Z'),
    endsAt: S('2026-11-21T13:00:00.000Z'),
    accessWindowHours: { N: String(fields.accessWindowHours ?? 2) },
    ...(fields.denyUntil ? { denyUntil: S(fields.denyUntil) } : {}),
    ...(fields.geo ? { geo: fields.geo } : {}),
    ...(fields.deleted ? { deleted: BOOL(true) } : {}),
    ...(fields.watermark !== undefined ? { watermark: BOOL(fields.watermark) } : {}),
    ...(fields.watermarkSince !== undefined ? { watermarkSince: fields.watermarkSince ? S(fields.watermarkSince) : { NULL: true as const } } : {}),
  };
}

/** A country rule as the table's stream carries it. */
const geoImage = (kind: 'allow' | 'deny', codes: string[]): AttributeValue => ({ M: { [kind]: { L: codes.map(S) } } });

function record(oldImage?: Record<string, AttributeValue>, newImage?: Record<string, AttributeValue>): DynamoDBRecord {
  return { eventName: newImage ? (oldImage ? 'MODIFY' : 'INSERT') : 'REMOVE', dynamodb: { OldImage: oldImage, NewImage: newImage } };
}

function handlerWith(store: { codes?: CodeRecord[]; events?: EventRecord[]; geoRules?: EventGeoRule[]; watermarked?: string[] } = {}) {
  return createEdgeSyncHandler({
    writer: createKvsWriter({ store: cloudFrontKeyValueStore(new CloudFrontKeyValueStoreClient({ region: 'us-east-1' }), KVS_ARN), retryDelayMs: 0 }),
    codes: { accessChangesSince: async () => ({ codes: store.codes ?? [], events: store.events ?? [] }) },
    events: { listGeoRules: async () => store.geoRules ?? [], listWatermarkedEvents: async () => store.watermarked ?? [] },
    signingKeys: async () => ({ activeKid: 'k1', keys: new Map([['k1', new Uint8Array(32).fill(7)]]) }),
    watermarkSecret: async () => WATERMARK_SECRET,
    now: () => NOW,
  });
}

function updateInputs() {
  return kvsMock.commandCalls(UpdateKeysCommand).map((call) => call.args[0].input);
}

beforeEach(() => {
  kvsMock.reset();
  kvsMock.on(DescribeKeyValueStoreCommand).resolves({ ETag: 'etag-1' });
  kvsMock.on(UpdateKeysCommand).resolves({ ETag: 'etag-2', ItemCount: 1, TotalSizeInBytes: 10 });
});

describe('edge-sync: DynamoDB stream', () => {
  it('a revoke puts c:<code> until its credentials expire, naming the current ETag', async () => {
    const revoked = { isRevoked: true, revokedAt: '2026-11-21T11:59:30.000Z', denyUntil: '2026-11-21T14:00:00.000Z' };
    const result = await handlerWith()({ Records: [record(codeImage({}), codeImage(revoked))] });
    expect(result).toEqual({ mode: 'stream', written: 1 });
    expect(updateInputs()).toEqual([
      { KvsARN: KVS_ARN, IfMatch: 'etag-1', Puts: [{ Key: kvsKey.revokedCode('ABC123'), Value: String(Date.parse('2026-11-21T14:00:00.000Z') / 1000) }], Deletes: [] },
    ]);
  });

  it('an unrevoke deletes c:<code>', async () => {
    const revoked = { isRevoked: true, revokedAt: '2026-11-21T11:58:00.000Z', denyUntil: '2026-11-21T12:08:00.000Z' };
    await handlerWith()({ Records: [record(codeImage(revoked), codeImage({}))] });
    expect(updateInputs()[0]).toMatchObject({ Puts: [], Deletes: [{ Key: kvsKey.revokedCode('ABC123') }] });
  });

  it('deactivation puts e:<eventId> until the access window and one JWT life are over, reactivation deletes it', async () => {
    await handlerWith()({ Records: [record(eventImage(true), eventImage(false))] });
    await handlerWith()({ Records: [record(eventImage(false), eventImage(true))] });
    const [deactivate, reactivate] = updateInputs();
    const until = Date.parse('2026-11-21T15:10:00.000Z') / 1000;
    expect(deactivate).toMatchObject({ Puts: [{ Key: kvsKey.deactivatedEvent('evt-1'), Value: String(until) }], Deletes: [] });
    expect(reactivate).toMatchObject({ Puts: [], Deletes: [{ Key: kvsKey.deactivatedEvent('evt-1') }] });
  });

  it('a country rule set, changed or dropped writes one g:<eventId>; deleting the event removes it', async () => {
    await handlerWith()({ Records: [record(eventImage(true), eventImage(true, { geo: geoImage('allow', ['BE', 'FR']) }))] });
    await handlerWith()({ Records: [record(eventImage(true, { geo: geoImage('allow', ['BE', 'FR']) }), eventImage(true, { geo: geoImage('deny', ['RU']) }))] });
    await handlerWith()({ Records: [record(eventImage(true, { geo: geoImage('deny', ['RU']) }), eventImage(true, { geo: { NULL: true } }))] });
    const [set, changed, dropped] = updateInputs();
    expect(set).toMatchObject({ Puts: [{ Key: 'g:evt-1', Value: 'a:BE,FR' }], Deletes: [] });
    expect(changed).toMatchObject({ Puts: [{ Key: 'g:evt-1', Value: 'd:RU' }], Deletes: [] });
    expect(dropped).toMatchObject({ Puts: [], Deletes: [{ Key: 'g:evt-1' }] });

    kvsMock.resetHistory();
    const ruled = eventImage(true, { geo: geoImage('deny', ['RU']) });
    await handlerWith()({ Records: [record(ruled, eventImage(false, { geo: geoImage('deny', ['RU']), deleted: true }))] });
    expect(updateInputs()[0]!.Deletes).toEqual([{ Key: 'g:evt-1' }]);
    expect(updateInputs()[0]!.Puts!.map((put) => put.Key)).toEqual([kvsKey.deactivatedEvent('evt-1')]);
  });

  it('watermarking turned on the first time writes w:<eventId> (the mark key, base64url); turning it off keeps it; deleting the event removes it', async () => {
    const since = '2026-11-21T11:59:00.000Z';
    await handlerWith()({ Records: [record(eventImage(true, { watermark: false, watermarkSince: null }), eventImage(true, { watermark: true, watermarkSince: since }))] });
    await handlerWith()({ Records: [record(eventImage(true, { watermark: true, watermarkSince: since }), eventImage(true, { watermark: false, watermarkSince: since }))] });
    await handlerWith()({ Records: [record(eventImage(true, { watermarkSince: since }), eventImage(false, { watermarkSince: since, deleted: true }))] });
    // Turning it off changes no entry: two writes for three changes.
    const [on, deleted, more] = updateInputs();
    expect(on).toMatchObject({ Puts: [{ Key: 'w:evt-1', Value: markKeyValue('evt-1') }], Deletes: [] });
    expect(Buffer.from(on!.Puts![0]!.Value!, 'base64url')).toHaveLength(32);
    expect(deleted!.Deletes).toEqual([{ Key: 'w:evt-1' }]);
    expect(more).toBeUndefined();
  });

  it('keeps e:<eventId> past a shortened access window while a long-lived URL issued before may still play', async () => {
    const issued = '2026-11-21T20:00:00.000Z';
    await handlerWith()({ Records: [record(eventImage(false, { denyUntil: issued }), eventImage(false, { accessWindowHours: 0, denyUntil: issued }))] });
    // The shorter window alone would deny until 13:10; the URL issued before lasts until 20:00.
    expect(updateInputs()).toEqual([]);
    await handlerWith()({ Records: [record(eventImage(true, { denyUntil: issued }), eventImage(false, { accessWindowHours: 0, denyUntil: issued }))] });
    expect(updateInputs()[0]).toMatchObject({ Puts: [{ Key: kvsKey.deactivatedEvent('evt-1'), Value: String(Date.parse('2026-11-21T20:10:00.000Z') / 1000) }] });
  });

  it('a takeover puts s:<sessionId> for one JWT life', async () => {
    const ended = [{ sessionId: 'sid-1', endedAt: '2026-11-21T11:59:50.000Z' }];
    await handlerWith()({ Records: [record(codeImage({}), codeImage({ ended }))] });
    expect(updateInputs()[0]).toMatchObject({ Puts: [{ Key: kvsKey.endedSession('sid-1'), Value: String(Date.parse('2026-11-21T12:09:50.000Z') / 1000) }], Deletes: [] });
  });

  it('an ended session keeps s: until its last JWT, or its long-lived playback URL, expires (the skew is added when collecting)', async () => {
    const endedAt = '2026-11-21T11:59:50.000Z';
    const longLivedUntil = '2026-11-21T20:00:00.000Z';
    const ended = [{ sessionId: 'sid-1', endedAt }, { sessionId: 'sid-tv', endedAt, longLivedUntil }];
    await handlerWith()({ Records: [record(codeImage({}), codeImage({ ended }))] });
    expect(updateInputs()[0]!.Puts).toEqual([
      { Key: kvsKey.endedSession('sid-1'), Value: String(Date.parse(endedAt) / 1000 + 600) },
      { Key: kvsKey.endedSession('sid-tv'), Value: String(Date.parse(longLivedUntil) / 1000) },
    ]);
  });

  it('a change that does not touch access writes nothing', async () => {
    const result = await handlerWith()({ Records: [record(codeImage({}), codeImage({}))] });
    expect(result.written).toBe(0);
    expect(kvsMock.commandCalls(UpdateKeysCommand)).toHaveLength(0);
  });

  it('retries with the new ETag when another writer got in first', async () => {
    kvsMock.on(DescribeKeyValueStoreCommand).resolvesOnce({ ETag: 'etag-1' }).resolves({ ETag: 'etag-1b' });
    kvsMock
      .on(UpdateKeysCommand)
      .rejectsOnce(new ConflictException({ message: 'etag mismatch', $metadata: {} }))
      .resolves({ ETag: 'etag-2' });
    await handlerWith()({ Records: [record(eventImage(true), eventImage(false))] });
    expect(updateInputs().map((input) => input.IfMatch)).toEqual(['etag-1', 'etag-1b']);
  });

  it('splits more than 50 changes into batches chained by ETag', async () => {
    kvsMock.on(UpdateKeysCommand).resolvesOnce({ ETag: 'etag-2' }).resolves({ ETag: 'etag-3' });
    const ended = Array.from({ length: 60 }, (_, i) => ({ sessionId: `sid-${i}`, endedAt: '2026-11-21T11:59:00.000Z' }));
    const result = await handlerWith()({ Records: [record(codeImage({}), codeImage({ ended }))] });
    expect(result.written).toBe(60);
    expect(updateInputs().map((input) => [input.IfMatch, input.Puts!.length])).toEqual([
      ['etag-1', 50],
      ['etag-2', 10],
    ]);
  });
});

describe('edge-sync: scheduled reconciliation', () => {
  it('rewrites the store to signing keys plus current revocations, leaving foreign keys alone', async () => {
    kvsMock.on(ListKeysCommand).resolvesOnce({
      Items: [
        { Key: kvsKey.signingKey('old'), Value: 'x' },
        { Key: kvsKey.revokedCode('GONE'), Value: '1' },
        { Key: kvsKey.revokedCode('KEEP'), Value: String(Date.parse('2026-11-21T10:00:00.000Z') / 1000) },
      ],
      NextToken: 'page-2',
    }).resolvesOnce({ Items: [{ Key: 'other-app:key', Value: 'y' }, { Key: kvsKey.endedSession('old-session'), Value: '1000' }] });
    const keep: CodeRecord = {
      id: 't1', code: 'KEEP', eventId: 'evt-1', label: '', isRevoked: true, revokedAt: '2026-11-21T10:00:00.000Z',
      denyUntil: '2026-11-21T10:10:00.000Z', revokedChangedAt: null, redeemedAt: null, redeemedIp: null, createdAt: '', eventActive: true, session: null,
      endedSessions: [{ sessionId: 'sid-recent', endedAt: '2026-11-21T11:58:00.000Z' }, { sessionId: 'sid-old', endedAt: '2026-11-21T09:00:00.000Z' }],
      revision: 3,
    };
    const stillDenied: CodeRecord = { ...keep, id: 't2', code: 'LONG', denyUntil: '2026-11-21T18:00:00.000Z', endedSessions: [] };
    const off = { id: 'evt-2', isActive: false, activeChangedAt: '2026-11-21T11:00:00.000Z', endsAt: '2026-11-21T13:00:00.000Z', accessWindowHours: 0 } as EventRecord;
    const result = await handlerWith({ codes: [keep, stillDenied], events: [off] })({ source: 'aws.events' });

    expect(result.mode).toBe('reconcile');
    const [update] = updateInputs();
    expect(update!.IfMatch).toBe('etag-1');
    // c:KEEP's credentials have all expired (denyUntil plus clock skew is past): collected like an old session.
    expect(update!.Puts!.map((p) => p.Key).sort()).toEqual([kvsKey.revokedCode('LONG'), kvsKey.deactivatedEvent('evt-2'), kvsKey.signingKey('k1'), kvsKey.endedSession('sid-recent')]);
    expect(update!.Puts!.find((p) => p.Key === kvsKey.signingKey('k1'))!.Value).toBe(Buffer.alloc(32, 7).toString('base64url'));
    expect(update!.Deletes!.map((d) => d.Key).sort()).toEqual([kvsKey.revokedCode('GONE'), kvsKey.revokedCode('KEEP'), kvsKey.signingKey('old'), kvsKey.endedSession('old-session')]);
  });

  it('writes one g: entry per event with a country rule and removes the entry of an event that has none any more', async () => {
    kvsMock.on(ListKeysCommand).resolvesOnce({ Items: [{ Key: kvsKey.geoRule('evt-old'), Value: 'a:FR' }, { Key: kvsKey.geoRule('evt-same'), Value: 'd:RU' }] });
    const geoRules: EventGeoRule[] = [
      { eventId: 'evt-same', geo: { deny: ['RU'] } },
      { eventId: 'evt-new', geo: { allow: ['BE', 'FR'] } },
    ];
    await handlerWith({ geoRules })({ source: 'aws.events' });
    const [update] = updateInputs();
    expect(update!.Puts!.filter((p) => p.Key?.startsWith('g:'))).toEqual([{ Key: 'g:evt-new', Value: 'a:BE,FR' }]);
    expect(update!.Deletes).toEqual([{ Key: 'g:evt-old' }]);
  });
});

describe('edge-sync: reconciliation of mark keys', () => {
  it('writes one w: entry per event ever watermarked and removes the entry of an event that is gone', async () => {
    kvsMock.on(ListKeysCommand).resolvesOnce({ Items: [{ Key: kvsKey.markKey('evt-gone'), Value: markKeyValue('evt-gone') }, { Key: kvsKey.markKey('evt-same'), Value: markKeyValue('evt-same') }] });
    await handlerWith({ watermarked: ['evt-same', 'evt-new'] })({ source: 'aws.events' });
    const [update] = updateInputs();
    expect(update!.Puts!.filter((p) => p.Key?.startsWith('w:'))).toEqual([{ Key: 'w:evt-new', Value: markKeyValue('evt-new') }]);
    expect(update!.Deletes).toEqual([{ Key: 'w:evt-gone' }]);
  });
});

describe('edge-sync: reconciliation racing a stream batch', () => {
  it('keeps a revocation the stream wrote while the reconciliation was under way', async () => {
    const kvs = memoryKvs(kvsMock);
    const codes: CodeRecord[] = [];
    const revoked = {
      id: 't9', code: 'FRESH', eventId: 'evt-1', label: '', isRevoked: true, revokedAt: '2026-11-21T11:59:59.000Z',
      revokedChangedAt: '2026-11-21T11:59:59.000Z', redeemedAt: null, redeemedIp: null, createdAt: '', eventActive: true,
      session: null, endedSessions: [], revision: 1,
    } satisfies CodeRecord;
    const handler = createEdgeSyncHandler({
      writer: createKvsWriter({ store: cloudFrontKeyValueStore(new CloudFrontKeyValueStoreClient({ region: 'us-east-1' }), KVS_ARN), retryDelayMs: 0 }),
      codes: { accessChangesSince: async () => ({ codes: [...codes], events: [] }) },
      events: { listGeoRules: async () => [], listWatermarkedEvents: async () => [] },
      signingKeys: async () => ({ activeKid: 'k1', keys: new Map([['k1', new Uint8Array(32).fill(7)]]) }),
      watermarkSecret: async () => WATERMARK_SECRET,
      now: () => NOW,
    });
    // While the reconciliation lists the store, an admin revokes FRESH: the table changes, then the stream writes c:FRESH.
    kvs.onList = async () => {
      kvs.onList = undefined;
      codes.push(revoked);
      await kvs.write({ [kvsKey.revokedCode('FRESH')]: String(Date.parse(revoked.revokedAt) / 1000) });
    };
    await handler({ source: 'aws.events' });
    expect([...kvs.entries.keys()].sort()).toEqual([kvsKey.revokedCode('FRESH'), kvsKey.signingKey('k1')]);
  });
});

describe('CDN invalidation for an admin cache clear', () => {
  const cloudFront = mockClient(CloudFrontClient);
  beforeEach(() => cloudFront.reset());

  it('invalidates /streams/<eventId>/* with a unique caller reference', async () => {
    cloudFront.on(CreateInvalidationCommand).resolves({ Invalidation: { Id: 'I123', Status: 'InProgress', CreateTime: NOW, InvalidationBatch: undefined } });
    const cache = cloudFrontMediaCache('E1', new CloudFrontClient({ region: 'us-east-1' }));
    await cache.clear('evt-1');
    await cache.clear('evt-1');
    const inputs = cloudFront.commandCalls(CreateInvalidationCommand).map((call) => call.args[0].input);
    expect(inputs[0]).toMatchObject({ DistributionId: 'E1', InvalidationBatch: { Paths: { Quantity: 1, Items: ['/streams/evt-1/*'] } } });
    expect(inputs[0]!.InvalidationBatch!.CallerReference).not.toBe(inputs[1]!.InvalidationBatch!.CallerReference);
  });

  it('refuses an event id that would widen the invalidation', async () => {
    const cache = cloudFrontMediaCache('E1', new CloudFrontClient({ region: 'us-east-1' }));
    await expect(cache.clear('*')).rejects.toThrow(/invalid event id/);
    expect(cloudFront.commandCalls(CreateInvalidationCommand)).toHaveLength(0);
  });
});
