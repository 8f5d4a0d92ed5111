/**
 * A recording proxy in front of a DynamoDB endpoint: it forwards every request
 * and attributes the capacity each one consumes to the partition keys it lands
 * on, in the table and in every global secondary index (by projection), the
 * way DynamoDB charges them:
 *  - a write costs ceil(KB) of the larger of the item before and after; a
 *    failed condition still costs one unit;
 *  - an index is written when the item enters or leaves it, moves within it
 *    (delete + put) or changes a projected attribute; otherwise not at all;
 *  - a read costs ceil(size / 4 KB), halved when eventually consistent; a
 *    BatchGet's item by its whole size, whatever the projection.
 * To know "before" and "after", writes are serialized per item and bracketed
 * by consistent reads sent straight to the endpoint (those are not counted).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteItemCommand, DynamoDBClient, GetItemCommand, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { tableSchema } from '../../functions/adapters/table-schema';

type Attr = Record<string, unknown>;
type Item = Record<string, Attr>;

export interface Charge {
  /** `table` or an index name. */
  where: string;
  key: string;
  units: number;
  kind: 'write' | 'read';
  /** Items a read returned (0 for writes). */
  items: number;
}

export interface Recorder {
  endpoint: string;
  /** Called with every charge; the bench attributes it to the operation under way. */
  onCharge(listener: (charge: Charge) => void): void;
  /** While false (e.g. during setup) requests pass straight through, uncounted. */
  setRecording(on: boolean): void;
  close(): Promise<void>;
}

const WRITE_KB = 1024;
const READ_KB = 4096;

/** DynamoDB's item size rules, closely enough: names plus values, numbers about half their digits. */
function valueSize(value: Attr): number {
  const [type, inner] = Object.entries(value)[0] ?? ['NULL', true];
  if (type === 'S') return Buffer.byteLength(String(inner));
  if (type === 'N') return Math.ceil(String(inner).replace(/^-/, '').replace('.', '').length / 2) + 1;
  if (type === 'BOOL' || type === 'NULL') return 1;
  if (type === 'L') return 3 + (inner as Attr[]).reduce((sum, element) => sum + 1 + valueSize(element), 0);
  if (type === 'M') return 3 + Object.entries(inner as Item).reduce((sum, [k, v]) => sum + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  return Buffer.byteLength(JSON.stringify(inner));
}
export function itemSize(item: Item | undefined, only?: (name: string) => boolean): number {
  if (!item) return 0;
  return Object.entries(item).reduce((sum, [name, value]) => (only && !only(name) ? sum : sum + Buffer.byteLength(name) + valueSize(value)), 0);
}

const str = (value: Attr | undefined) => (value ? String(Object.values(value)[0]) : undefined);

interface IndexView {
  name: string;
  pk?: string;
  sk?: string;
  projected: Item;
}

function indexViews(item: Item | undefined): IndexView[] {
  return tableSchema.indexes.map((index) => {
    const pk = str(item?.[index.partitionKey]);
    const sk = 'sortKey' in index && index.sortKey ? str(item?.[index.sortKey]) : undefined;
    const keep = (name: string) =>
      index.projection === 'ALL' || (index.projection as readonly string[]).includes(name) || name === 'pk' || name === 'sk' || name === index.partitionKey || name === ('sortKey' in index ? index.sortKey : '');
    const projected = Object.fromEntries(Object.entries(item ?? {}).filter(([name]) => keep(name)));
    return { name: index.name, pk, sk, projected };
  });
}

/** What a write of `before` into `after` costs, per partition key. */
export function writeCharges(tableKey: string, before: Item | undefined, after: Item | undefined, failed: boolean): Charge[] {
  const units = Math.max(1, Math.ceil(Math.max(itemSize(before), itemSize(after)) / WRITE_KB));
  const charges: Charge[] = [{ where: 'table', key: tableKey, units, kind: 'write', items: 0 }];
  if (failed) return charges;
  const old = indexViews(before);
  const next = indexViews(after);
  for (let i = 0; i < old.length; i++) {
    const a = old[i]!;
    const b = next[i]!;
    const inA = a.pk !== undefined && (tableSchema.indexes[i]!.hasOwnProperty('sortKey') ? a.sk !== undefined : true);
    const inB = b.pk !== undefined && (tableSchema.indexes[i]!.hasOwnProperty('sortKey') ? b.sk !== undefined : true);
    const cost = (view: IndexView) => Math.max(1, Math.ceil(itemSize(view.projected) / WRITE_KB));
    if (inA && (!inB || a.pk !== b.pk || a.sk !== b.sk)) charges.push({ where: a.name, key: a.pk!, units: cost(a), kind: 'write', items: 0 });
    if (inB && (!inA || a.pk !== b.pk || a.sk !== b.sk)) charges.push({ where: b.name, key: b.pk!, units: cost(b), kind: 'write', items: 0 });
    if (inA && inB && a.pk === b.pk && a.sk === b.sk && JSON.stringify(sorted(a.projected)) !== JSON.stringify(sorted(b.projected))) {
      charges.push({ where: b.name, key: b.pk!, units: cost(b), kind: 'write', items: 0 });
    }
  }
  return charges;
}

const sorted = (item: Item) => Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)));

function readUnits(bytes: number, consistent: boolean): number {
  const units = Math.max(1, Math.ceil(bytes / READ_KB));
  return consistent ? units : units / 2;
}

async function body(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startDynamoRecorder(target: string): Promise<Recorder> {
  const listeners: ((charge: Charge) => void)[] = [];
  const emit = (charges: Charge[]) => charges.forEach((charge) => listeners.forEach((listener) => listener(charge)));
  const locks = new Map<string, Promise<unknown>>();
  let recording = true;

  const direct = new DynamoDBClient({ endpoint: target, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const asAttributes = (item: Item) => item as unknown as Record<string, AttributeValue>;
  async function current(table: string, key: Item): Promise<Item | undefined> {
    const { Item } = await direct.send(new GetItemCommand({ TableName: table, Key: asAttributes(key), ConsistentRead: true }));
    return Item as unknown as Item | undefined;
  }
  async function replay(run: () => Promise<unknown>): Promise<{ status: number; text: string }> {
    await run();
    return { status: 200, text: '{}' };
  }

  async function forward(request: IncomingMessage, raw: Buffer): Promise<{ status: number; headers: Record<string, string>; text: string }> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
    const response = await fetch(target, { method: 'POST', headers, body: new Uint8Array(raw) });
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection') out[name] = value;
    });
    return { status: response.status, headers: out, text: await response.text() };
  }

  /** A write to one item, bracketed by reads, serialized per item. */
  async function recordedWrite(table: string, key: Item, run: () => Promise<{ status: number; text: string }>) {
    const id = JSON.stringify(key);
    const previous = locks.get(id) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    locks.set(id, previous.then(() => mine));
    await previous;
    try {
      const before = await current(table, key);
      const result = await run();
      const failed = result.status !== 200;
      const after = failed ? before : await current(table, key);
      emit(writeCharges(str(key.pk) ?? '?', before, after ?? undefined, failed));
      return result;
    } finally {
      release();
      if (locks.get(id) === mine) locks.delete(id);
    }
  }

  /**
   * DynamoDB charges each item of a BatchGet by its whole size, whatever the ProjectionExpression
   * (which may leave the key out of the answer): the item is read straight from the endpoint to size it.
   */
  async function batchGetCharges(payload: any, answer: any): Promise<Charge[]> {
    const charges: Charge[] = [];
    for (const [table, request] of Object.entries(payload.RequestItems as Record<string, any>)) {
      const unprocessed = (answer.UnprocessedKeys?.[table]?.Keys ?? []) as Item[];
      for (const key of request.Keys as Item[]) {
        if (unprocessed.some((left) => str(left.pk) === str(key.pk) && str(left.sk) === str(key.sk))) continue;
        const found = await current(table, key);
        charges.push({ where: 'table', key: str(key.pk)!, units: readUnits(itemSize(found), request.ConsistentRead === true), kind: 'read', items: found ? 1 : 0 });
      }
    }
    return charges;
  }

  const server: Server = createServer(async (request, response) => {
    try {
      const raw = await body(request);
      const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      const payload = JSON.parse(raw.toString() || '{}');
      let result: { status: number; headers?: Record<string, string>; text: string };
      if (!recording) {
        result = await forward(request, raw);
      } else if (operation === 'PutItem' || operation === 'UpdateItem' || operation === 'DeleteItem') {
        const key: Item = operation === 'PutItem' ? { pk: payload.Item.pk, sk: payload.Item.sk } : payload.Key;
        result = await recordedWrite(payload.TableName, key, () => forward(request, raw));
      } else if (operation === 'BatchWriteItem') {
        // Replayed one request at a time so that each is attributed; answers as one batch with nothing left over.
        for (const [table, requests] of Object.entries(payload.RequestItems as Record<string, any[]>)) {
          for (const entry of requests) {
            if (entry.PutRequest) {
              const item = entry.PutRequest.Item as Item;
              await recordedWrite(table, { pk: item.pk!, sk: item.sk! }, () =>
                replay(() => direct.send(new PutItemCommand({ TableName: table, Item: asAttributes(item) }))),
              );
            } else {
              const key = entry.DeleteRequest.Key as Item;
              await recordedWrite(table, key, () => replay(() => direct.send(new DeleteItemCommand({ TableName: table, Key: asAttributes(key) }))));
            }
          }
        }
        result = { status: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, text: JSON.stringify({ UnprocessedItems: {} }) };
      } else {
        result = await forward(request, raw);
        if (result.status === 200 && operation === 'BatchGetItem') emit(await batchGetCharges(payload, JSON.parse(result.text)));
        else if (result.status === 200) emit(readCharges(operation, payload, JSON.parse(result.text)));
      }
      response.writeHead(result.status, result.headers ?? { 'content-type': 'application/x-amz-json-1.0' });
      response.end(result.text);
    } catch (error) {
      response.writeHead(500);
      response.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    onCharge: (listener) => listeners.push(listener),
    setRecording: (on) => {
      recording = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        direct.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readCharges(operation: string, payload: any, answer: any): Charge[] {
  if (operation === 'GetItem') {
    const units = readUnits(itemSize(answer.Item), payload.ConsistentRead === true);
    return [{ where: 'table', key: String(Object.values(payload.Key.pk)[0]), units, kind: 'read', items: answer.Item ? 1 : 0 }];
  }
  if (operation === 'Query') {
    // The partition is the one value the key condition names for the partition key.
    const where = payload.IndexName ?? 'table';
    const index = tableSchema.indexes.find((candidate) => candidate.name === payload.IndexName);
    const pkName = index ? index.partitionKey : 'pk';
    const placeholder = Object.entries(payload.ExpressionAttributeNames ?? {}).find(([, name]) => name === pkName)?.[0] ?? pkName;
    const match = new RegExp(`${placeholder.replace('#', '\\#')}\\s*=\\s*(:\\w+)`).exec(payload.KeyConditionExpression ?? '');
    const key = match ? str(payload.ExpressionAttributeValues[match[1]!]) ?? '?' : '?';
    const bytes = ((answer.Items ?? []) as Item[]).reduce((sum, item) => sum + itemSize(item), 0);
    const items = (answer.Items ?? []).length;
    return [{ where, key, units: readUnits(bytes, payload.ConsistentRead === true), kind: 'read', items }];
  }
  return [];
}
