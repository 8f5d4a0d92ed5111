import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { changeRevoked, countRevocationOnce } from '../../functions/domain/codes';
import type { Stores } from '../../functions/compose/stores';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../local/embedded-dynamodb';
import { memoryStores } from '../support/memory-stores';
import { sampleCode, sampleEvent } from '../support/store-records';

/**
 * The event's revoked count is exact under the races that lost 15 of 3,000 (issue 34): parallel
 * revocations of many codes (their counts meet on the same shards), the same code revoked by several
 * at once (a duplicate step, a hand revoke during a job), unrevokes among them, and a retry after a
 * writer that failed or died between the code's write and its count, or between the count and the
 * code's acknowledgement. On the embedded DynamoDB (real conditional writes, real interleaving) and in memory.
 */
let dynamo: EmbeddedDynamo;
const backends: [string, () => Stores][] = [
  ['memory', () => memoryStores()],
  ['dynalite', () => dynamoStores(dynamoDocumentClient({ region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' }, endpoints: { dynamodb: dynamo.endpoint } }), 'stagedoor')],
];
beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ tableName: 'stagedoor' });
});
afterAll(async () => {
  await dynamo?.close();
});

const at = new Date('2026-11-21T12:00:00.000Z');

async function eventWithCodes(stores: Stores, count: number) {
  const event = sampleEvent({ tokenCount: count });
  await stores.events.createEvent(event);
  const codes = Array.from({ length: count }, () => sampleCode(event.id));
  for (const code of codes) await stores.codes.createCode(code);
  const revoked = async () => (await stores.counters.eventCounters({ eventId: event.id, presenceSince: at.toISOString() })).revoked;
  return { event, codes, revoked };
}

/** `stores` with one method of one port replaced (given the real one). */
function replacing<P extends 'codes' | 'counters', M extends keyof Stores[P]>(stores: Stores, port: P, method: M, replacement: (real: Stores[P][M]) => Stores[P][M]): Stores {
  const real = stores[port];
  const bound = (real[method] as (...args: unknown[]) => unknown).bind(real) as Stores[P][M];
  const proxy = new Proxy(real, { get: (target, key) => (key === method ? replacement(bound) : (Reflect.get(target, key) as unknown as () => unknown).bind(target)) });
  return { ...stores, [port]: proxy };
}

describe.each(backends)('the revoked count on %s', (_name, makeStores) => {
  it('is exact under parallel revocations, the same code revoked three times at once, and unrevokes among them', async () => {
    const stores = makeStores();
    const deps = { stores, config: { sessionTimeoutSeconds: 90 } };
    const { codes, revoked } = await eventWithCodes(stores, 60);
    await Promise.all(codes.flatMap((code) => [1, 2, 3].map(() => changeRevoked(deps, code.id, true, at))));
    expect(await revoked()).toBe(60);
    await Promise.all(codes.slice(0, 15).flatMap((code) => [changeRevoked(deps, code.id, false, at), changeRevoked(deps, code.id, false, at), countRevocationOnce(deps, code.eventId, code.code)]));
    expect(await revoked()).toBe(45);
    // Counting again changes nothing.
    await Promise.all(codes.map((code) => countRevocationOnce(deps, code.eventId, code.code)));
    expect(await revoked()).toBe(45);
  });

  it('counts, once, a revocation whose writer failed between the code and the count, when it is sent again', async () => {
    const stores = makeStores();
    const { codes, revoked } = await eventWithCodes(stores, 40);
    let calls = 0;
    const failing = replacing(stores, 'counters', 'countRevocation', (real) => async (args) => {
      if (++calls % 4 === 0) throw new Error('injected: the count was refused');
      return real(args);
    });
    const deps = { stores: failing, config: { sessionTimeoutSeconds: 90 } };
    const first = await Promise.allSettled(codes.map((code) => changeRevoked(deps, code.id, true, at)));
    expect(first.filter((result) => result.status === 'rejected').length).toBeGreaterThan(0);
    // The request (or the job's step) sent again: the codes are revoked already, and their counts owed.
    await Promise.all(codes.map((code) => changeRevoked({ stores, config: { sessionTimeoutSeconds: 90 } }, code.id, true, at)));
    expect(await revoked()).toBe(40);
  });

  it('counts once a revocation whose writer died between the count and the code\'s acknowledgement', async () => {
    const stores = makeStores();
    const { codes, revoked } = await eventWithCodes(stores, 20);
    const dying = replacing(stores, 'codes', 'acknowledgeRevocationCount', () => async () => {
      throw new Error('injected: the process died after counting');
    });
    const deps = { stores: dying, config: { sessionTimeoutSeconds: 90 } };
    const died = await Promise.allSettled(codes.map((code) => changeRevoked(deps, code.id, true, at)));
    expect(died.every((result) => result.status === 'rejected')).toBe(true);
    expect(await revoked()).toBe(20);
    // Sent again, twice at once: the marks say counted; nothing is counted twice.
    const again = { stores, config: { sessionTimeoutSeconds: 90 } };
    await Promise.all(codes.flatMap((code) => [changeRevoked(again, code.id, true, at), countRevocationOnce(again, code.eventId, code.code)]));
    expect(await revoked()).toBe(20);
    for (const code of codes) expect((await stores.counters.revocationMark({ eventId: code.eventId, code: code.code })).mark).toBeNull();
  });
});
