import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { kvsKey } from '../../functions/adapters/kvs-scheme';
import type { CodeAccessState } from '../../functions/domain/records';
import { KvsConflict } from '../../functions/adapters/kvs-writer';
import { startEdgeSync, type LocalEdge } from '../../local/edge-sync-triggers';
import { edgeSyncOn } from '../../harness/edge-sync-on';
import { createMemoryKeyValueStore } from '../../local/memory-key-value-store';
import type { TableStream } from '../../local/table-stream';

/**
 * edge-sync as `npm start` runs it (local/edge-sync-triggers.ts): the shipped handler on the table's
 * stream and a reconciliation timer, into the in-memory KeyValueStore. The stream here is a fake
 * that the test writes records to; the records are what DynamoDB Streams delivers.
 */
const signingKeys = { activeKid: 'k1', keys: new Map([['k1', new Uint8Array(32).fill(7)]]) };
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

function fakeStream() {
  const listeners = new Set<(record: DynamoDBRecord) => void>();
  const stream: TableStream = {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { stream, emit: (record: DynamoDBRecord) => listeners.forEach((listener) => listener(record)) };
}

const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as Record<string, AttributeValue>;
const codeItem = (code: string, isRevoked: boolean) => ({ pk: `CODE#${code}`, sk: 'CODE', code, isRevoked, denyUntil: isRevoked ? inAnHour() : null, endedSessions: [] });
function change(oldItem: Record<string, unknown> | undefined, newItem: Record<string, unknown>): DynamoDBRecord {
  return {
    eventName: oldItem ? 'MODIFY' : 'INSERT',
    dynamodb: { Keys: image({ pk: newItem.pk, sk: newItem.sk }), OldImage: oldItem && image(oldItem), NewImage: image(newItem), StreamViewType: 'NEW_AND_OLD_IMAGES' },
  };
}
const revokedCode = (code: string): CodeAccessState => ({
  code,
  isRevoked: true,
  revokedAt: new Date().toISOString(),
  revokedChangedAt: new Date().toISOString(),
  denyUntil: inAnHour(),
  endedSessions: [],
});

let edge: LocalEdge | undefined;
afterEach(async () => edge?.stop());

describe('edge-sync in npm start', () => {
  it('fills the store at once from a reconciliation: the signing keys and what the access feed denies', async () => {
    const { stream } = fakeStream();
    edge = startEdgeSync({ stream, compose: edgeSyncOn({ accessChangesSince: async () => ({ codes: [revokedCode('GONE')], events: [] }) }, signingKeys), log: () => {} });
    expect(edge.syncedUpTo()).toBeNull();
    expect(await edge.firstSync).toBe(true);
    expect([...edge.entries.keys()].sort()).toEqual([kvsKey.revokedCode('GONE'), kvsKey.signingKey('k1')]);
    expect(edge.syncedUpTo()).toBeGreaterThanOrEqual(Date.now() - 1000);
  });

  it('applies the stream\'s code and event changes in order, and leaves other items to the filter', async () => {
    const { stream, emit } = fakeStream();
    edge = startEdgeSync({ stream, compose: edgeSyncOn({ accessChangesSince: async () => ({ codes: [], events: [] }) }, signingKeys), log: () => {} });
    await edge.firstSync;
    // A rate-limit item never reaches the handler (the event source mapping's filter); its image would not even parse.
    emit({ eventName: 'INSERT', dynamodb: { Keys: image({ pk: 'RATE#validate#x#1', sk: 'RATE' }), NewImage: { pk: { X: 'unreadable' } } as never } });
    emit(change(codeItem('ABC', false), codeItem('ABC', true)));
    await expect.poll(() => edge!.entries.has(kvsKey.revokedCode('ABC'))).toBe(true);
    emit(change(codeItem('ABC', true), codeItem('ABC', false)));
    emit(change(codeItem('XYZ', false), codeItem('XYZ', true)));
    await expect.poll(() => edge!.entries.has(kvsKey.revokedCode('XYZ'))).toBe(true);
    expect(edge.entries.has(kvsKey.revokedCode('ABC'))).toBe(false);
    expect(edge.syncedUpTo()).toBeGreaterThanOrEqual(Date.now() - 1000);
  });

  it('drops a batch that keeps failing after its retries, keeps what the edge has, and lags until a reconciliation makes up for it', async () => {
    const { stream, emit } = fakeStream();
    const codes: CodeAccessState[] = [];
    const lines: string[] = [];
    edge = startEdgeSync({
      stream,
      compose: edgeSyncOn({ accessChangesSince: async () => ({ codes: [...codes], events: [] }) }, signingKeys),
      reconcileEveryMs: 2_000,
      log: (line) => lines.push(line),
    });
    await edge.firstSync;
    const before = new Map(edge.entries);
    // A code item whose image cannot be read: the handler fails on every attempt.
    emit({ eventName: 'MODIFY', dynamodb: { Keys: image({ pk: 'CODE#BAD', sk: 'CODE' }), NewImage: { pk: { X: 'unreadable' } } as never } });
    const poisonedAt = Date.now();
    await expect.poll(() => lines.find((line) => line.startsWith('stream batch of 1 dropped after 4 attempts'))).toBeDefined();
    expect(new Map(edge.entries)).toEqual(before);
    // The table changed meanwhile (what the lost batch stood for): the edge says it is behind since the lost change.
    codes.push(revokedCode('BAD'));
    expect(edge.syncedUpTo()).toBeLessThanOrEqual(poisonedAt);
    await expect.poll(() => edge!.entries.has(kvsKey.revokedCode('BAD')), { timeout: 5_000 }).toBe(true);
    expect(edge.syncedUpTo()).toBeGreaterThan(poisonedAt);
  });

  it('reports no state while the first reconciliation cannot read the table, and fills the store once it can', async () => {
    const { stream } = fakeStream();
    let reachable = false;
    const lines: string[] = [];
    edge = startEdgeSync({
      stream,
      compose: edgeSyncOn({ accessChangesSince: async () => (reachable ? { codes: [], events: [] } : Promise.reject(new Error('table unreachable'))) }, signingKeys),
      startupWaitMs: 50,
      log: (line) => lines.push(line),
    });
    expect(await edge.firstSync).toBe(false);
    expect(edge.syncedUpTo()).toBeNull();
    expect(lines).toEqual(['reconciliation failed, the edge keeps what it has: table unreachable']);
    reachable = true;
    await expect.poll(() => edge!.syncedUpTo(), { timeout: 5_000 }).not.toBeNull();
    expect(edge.entries.has(kvsKey.signingKey('k1'))).toBe(true);
  });
});

describe('the local KeyValueStore', () => {
  it('takes a write only at its current ETag, all of it or nothing, within CloudFront\'s limits', async () => {
    const store = createMemoryKeyValueStore();
    const first = await store.etag();
    const second = await store.update(first, [{ key: 'c:A', value: '1' }], []);
    await expect(store.update(first, [{ key: 'c:B', value: '1' }], [])).rejects.toBeInstanceOf(KvsConflict);
    const many = Array.from({ length: 51 }, (_, i) => ({ key: `c:${i}`, value: '1' }));
    await expect(store.update(second, many, [])).rejects.toThrow('more than 50 keys');
    await expect(store.update(second, [{ key: 'c:C', value: '1' }, { key: `c:${'x'.repeat(512)}`, value: '1' }], [])).rejects.toThrow('key of 514 bytes');
    await expect(store.update(second, [{ key: 'c:D', value: 'x'.repeat(1025) }], [])).rejects.toThrow('over 1024 bytes');
    expect([...store.entries]).toEqual([['c:A', '1']]);
    expect(await store.etag()).toBe(second);
    const third = await store.update(second, [{ key: 'c:E', value: '2' }], ['c:A']);
    expect(await store.listKeys()).toEqual(new Map([['c:E', '2']]));
    expect(third).not.toBe(second);
  });
});
