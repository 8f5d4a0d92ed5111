import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoStores } from '../../functions/adapters/dynamo-stores';
import { SETTLE_AFTER_MINUTES, settleStaleCheckouts } from '../../functions/domain/commerce';
import type { CheckoutSessions } from '../../functions/domain/commerce';
import { PaymentsUnavailable } from '../../functions/domain/errors';
import type { Stores } from '../../functions/compose/stores';
import type { AccessDeps } from '../../functions/compose/stores';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../local/embedded-dynamodb';
import { sampleEvent } from '../support/store-records';

/**
 * A real process killed (SIGKILL) right after its checkout took the event's tickets, before anything
 * else: on the embedded DynamoDB, the sweep then finds the checkout's record waiting for its take and
 * puts the seats back on sale, once.
 */
const TABLE = 'stagedoor';
let dynamo: EmbeddedDynamo;
let stores: Stores;

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo({ tableName: TABLE });
  stores = dynamoStores(dynamoDocumentClient({ region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, endpoints: { dynamodb: dynamo.endpoint } }), TABLE);
});
afterAll(async () => {
  await dynamo?.close();
});

/** Runs the checkout in its own process and kills it once its take is written. */
function checkoutKilledAfterTake(eventId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/checkout-killed-child.ts'], {
      env: { ...process.env, DYNAMO_ENDPOINT: dynamo.endpoint, TABLE_NAME: TABLE, EVENT_ID: eventId },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('took')) child.kill('SIGKILL');
    });
    child.once('error', reject);
    child.once('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`the checkout exited by itself (${signal ?? _code})`))));
  });
}

describe('a checkout process killed between its take and the rest', () => {
  it('leaves a record the sweep repairs: the seats back on sale, once', async () => {
    const now = new Date();
    const event = sampleEvent({
      startsAt: now.toISOString(),
      endsAt: new Date(now.getTime() + 6 * 3_600_000).toISOString(),
      sale: { open: true, priceMinor: 1500, currency: 'eur', capacity: 4, maxPerOrder: 4 },
    });
    await stores.events.createEvent(event);
    await checkoutKilledAfterTake(event.id);
    expect((await stores.events.getEvent(event.id))!.ticketsTaken).toBe(2);

    // The sweep, past the fence; twice at once: one claims the record.
    const later = new Date(now.getTime() + (SETTLE_AFTER_MINUTES + 1) * 60_000);
    const deps = { stores, now: () => later } as unknown as AccessDeps;
    const stripe: CheckoutSessions = { create: () => Promise.reject(new PaymentsUnavailable(false)), retrieve: () => Promise.resolve(null) };
    const runs = await Promise.all([settleStaleCheckouts(deps, stripe), settleStaleCheckouts(deps, stripe)]);
    expect(runs.flatMap((run) => run.repaired)).toHaveLength(1);
    expect(runs.flatMap((run) => run.failed)).toEqual([]);
    await settleStaleCheckouts(deps, stripe);
    expect((await stores.events.getEvent(event.id))!.ticketsTaken).toBe(0);
    // Every seat sells again.
    expect(await stores.events.takeTickets(event.id, 4, 4, 'next-buyer')).toBe(true);
  }, 60_000);
});
