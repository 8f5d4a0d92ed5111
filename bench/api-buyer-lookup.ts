/**
 * Finding a buyer's codes in an event of 100,000 and of 1,000,000 codes, on the embedded DynamoDB
 * stand-in (dynalite, its tables on disk): the console's lookups as the admin route runs them
 * (`listEventCodes`, the use case behind `GET /api/admin/events/:id/tokens`) through the shipped
 * DynamoDB adapters, without HTTP. The buyer's order and its 2 codes come first, every other code
 * after (labelled `bulk`), so that a walk from the newest passes them all:
 *  - `?label=<the buyer's email>`: one query per shard of the `byLabel` index;
 *  - `?email=<the buyer's email>`: one query of `byLabel` (the buyer's orders), then each of their codes;
 *  - the baseline, at 100,000 only: the walk the label lookup made before (every page of the
 *    event's `codesByEvent` listing, followed by its cursor, the label matched as the codes are read).
 * Medians of ROUNDS lookups each (the walk: once).
 *   npx tsx bench/api-buyer-lookup.ts     (SIZES=100000,1000000 ROUNDS=7)
 */
import { SESSION_TIMEOUT_SECONDS } from '../functions/domain/config';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startEmbeddedDynamo } from '../local/embedded-dynamodb';
import { dynamoDocumentClient } from '../functions/adapters/aws-clients';
import { dynamoStores } from '../functions/adapters/dynamo-stores';
import { codeItem } from '../functions/adapters/dynamo-code-store';
import { generateAccessCode, listEventCodes, newCodeRecord } from '../functions/domain/codes';
import type { OrderRecord } from '../functions/domain/commerce';
import type { EventRecord } from '../functions/domain/records';
import { randomId } from '../functions/domain/random';
import { benchmark } from './lib/cleanup';
import { median, table } from './lib/stats';

const SIZES = (process.env.SIZES ?? '100000,1000000').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const TABLE = 'stagedoor';
const BUYER = 'ada@example.com';
/** Batches of 25 in flight at once while filling the event. */
const FILL_CONCURRENCY = 8;

async function main(defer: (cleanup: () => unknown) => void) {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-buyer-lookup-'));
  defer(() => rmSync(dataDir, { recursive: true, force: true }));
  const dynamo = await startEmbeddedDynamo({ dataDir, tableName: TABLE });
  defer(() => dynamo.close());
  const client = dynamoDocumentClient({ region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, endpoints: { dynamodb: dynamo.endpoint } });
  const stores = dynamoStores(client, TABLE);
  const now = new Date();
  const at = (ms: number) => new Date(now.getTime() - 3_600_000 + ms).toISOString();
  const event: EventRecord = {
    id: randomId(16), title: 'A million codes', description: '', streamUrl: null, posterUrl: null,
    startsAt: now.toISOString(), endsAt: new Date(now.getTime() + 3_600_000).toISOString(), accessWindowHours: 24,
    isActive: true, isArchived: false, createdAt: at(0), updatedAt: at(0), activeChangedAt: at(0), tokenCount: 0,
    ingestKey: 'k'.repeat(32), lastLiveEndedAt: null,
  };
  await stores.events.createEvent(event);

  // The buyer's order, the oldest of the event.
  const codes = [generateAccessCode(), generateAccessCode()];
  const order: OrderRecord = {
    id: randomId(22), source: 'shop', orderId: 'shop-1', eventId: event.id, email: BUYER, quantity: 2, amountMinor: 5000, currency: 'eur',
    status: 'paid', failure: null, codes, codeIds: codes.map((_, line) => `order-1-${line + 1}`), createdAt: at(0), updatedAt: at(0),
    emailKind: 'tickets', emailStatus: 'sent', emailRequest: 'r', emailAttempts: 0, emailError: null, emailSentAt: at(0),
  };
  await stores.orders.createOrder(order);
  for (const [line, code] of codes.entries()) {
    await stores.codes.createCode(newCodeRecord({ id: order.codeIds[line]!, code, eventId: event.id, label: BUYER, createdAt: at(0), eventActive: true }));
  }

  let made = 0;
  async function fillTo(count: number) {
    const started = performance.now();
    const batch = async () => {
      const items = Array.from({ length: 25 }, () => {
        made++;
        return codeItem(newCodeRecord({ id: randomId(20), code: generateAccessCode(), eventId: event.id, label: 'bulk', createdAt: at(1000 + made), eventActive: true }));
      });
      let requests = { [TABLE]: items.map((Item) => ({ PutRequest: { Item } })) };
      while (requests[TABLE]?.length) {
        const answer = await client.send(new BatchWriteCommand({ RequestItems: requests }));
        requests = (answer.UnprocessedItems ?? {}) as typeof requests;
      }
    };
    while (made < count) await Promise.all(Array.from({ length: Math.min(FILL_CONCURRENCY, Math.ceil((count - made) / 25)) }, batch));
    return (performance.now() - started) / 1000;
  }

  const deps = { stores, config: { sessionTimeoutSeconds: SESSION_TIMEOUT_SECONDS }, now: () => new Date() };
  async function timed(query: Record<string, string>, expected: number) {
    const started = performance.now();
    const page = await listEventCodes(deps, event.id, query);
    const ms = performance.now() - started;
    if (page.tokens.length !== expected) throw new Error(`${JSON.stringify(query)}: ${page.tokens.length} codes, expected ${expected}`);
    return ms;
  }
  async function walk() {
    const started = performance.now();
    let found = 0;
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await stores.codes.listCodePage({ eventId: event.id, filter: {}, cursor, limit: 1000 });
      found += page.codes.filter((code) => code.label === BUYER).length;
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    if (found !== 2) throw new Error(`the walk found ${found} codes`);
    return { seconds: (performance.now() - started) / 1000, pages };
  }

  const rows: Record<string, string>[] = [];
  for (const size of SIZES) {
    const fillSeconds = await fillTo(size - 2);
    const label: number[] = [];
    const email: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      label.push(await timed({ label: BUYER }, 2));
      email.push(await timed({ email: BUYER }, 2));
    }
    const baseline = size <= 100_000 ? await walk() : null;
    rows.push({
      codes: size.toLocaleString('en-US'),
      'label lookup, median ms': median(label).toFixed(1),
      'email lookup, median ms': median(email).toFixed(1),
      'walk before (same reads as the old label filter)': baseline ? `${baseline.seconds.toFixed(1)} s, ${baseline.pages} pages` : 'not run',
      'fill s': fillSeconds.toFixed(0),
    });
    console.log(`filled to ${size.toLocaleString('en-US')} codes in ${fillSeconds.toFixed(0)} s`);
  }
  console.log(`\n## A buyer's 2 codes among an event's codes (${ROUNDS} rounds each, the embedded DynamoDB on disk)\n`);
  console.log(table(rows));
}

await benchmark(main);
