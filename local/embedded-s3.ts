import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from 'fauxqs';

export interface EmbeddedS3 {
  endpoint: string;
  close(): Promise<void>;
}

/** The headers a GET Object request may override (S3's `response-<header>` query parameters). */
const RESPONSE_OVERRIDES = ['content-type', 'content-language', 'expires', 'cache-control', 'content-disposition', 'content-encoding'];

/** What the override hook reads of fastify's request and reply (fauxqs's server). */
interface OverridableRequest {
  method: string;
  query: unknown;
}
interface OverridableReply {
  statusCode: number;
  header(name: string, value: string): unknown;
}

/** What fauxqs's S3 store keeps per object (its `S3Object`). */
interface StoredObject {
  key: string;
  body: Buffer;
  contentType: string;
  contentLength: number;
  etag: string;
  lastModified: Date;
  metadata: Record<string, string>;
}

/** The parts of fauxqs's `S3Store` (1.9, not exported by the package) that the disk mirror wraps. */
interface FauxqsS3Store {
  createBucket(name: string): void;
  putObject(bucket: string, key: string, body: Buffer, contentType?: string, metadata?: Record<string, string>): StoredObject;
  deleteObject(bucket: string, key: string): void;
  completeMultipartUpload(uploadId: string, parts: unknown): StoredObject;
}

interface StoreInternals {
  buckets: Map<string, Map<string, StoredObject>>;
  multipartUploads: Map<string, { bucket: string }>;
}

/**
 * fauxqs: an S3-compatible server in this process, listening on loopback
 * only. With `dataDir` every object is also written to disk before the PUT is
 * answered, and read back from there: HLS written locally survives a restart
 * of `npm start` and the process holds only the object list in memory.
 * Without it objects live in memory only (`DATA_DIR=memory`, tests).
 * The same endpoint speaks SQS (the background jobs' queues, in memory only).
 */
export async function startEmbeddedS3(opts: { buckets: string[]; dataDir?: string }): Promise<EmbeddedS3> {
  const store = await createStore<FauxqsS3Store>('./s3/s3Store.js', 'S3Store');
  if (opts.dataDir) mirrorToDisk(store, opts.dataDir);
  for (const bucket of opts.buckets) store.createBucket(bucket);
  // Queue URLs on the address the client asked (fauxqs's default, sqs.<region>.localhost, may not resolve):
  // the SDK sends a queue's requests to its URL.
  const sqsStore = await createStore<{ host: string }>('./sqs/sqsStore.js', 'SqsStore');
  sqsStore.host = '';
  const app = buildApp({ logger: false, stores: { s3Store: store, sqsStore } } as unknown as Parameters<typeof buildApp>[0]);
  // As S3: a GET's `response-*` parameters set those headers of the answer (an export's presigned link
  // names its file so); fauxqs ignores them.
  app.addHook('onSend', (request: OverridableRequest, reply: OverridableReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const query = request.query as Record<string, string | undefined> | undefined;
    if (request.method === 'GET' && reply.statusCode === 200 && query) {
      for (const header of RESPONSE_OVERRIDES) {
        const value = query[`response-${header}`];
        if (value) reply.header(header, value);
      }
    }
    done(null, payload);
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { endpoint: `http://127.0.0.1:${new URL(address).port}`, close: () => app.close() };
}

async function createStore<T>(path: string, name: string): Promise<T> {
  // The package exports only its app; its store classes sit beside it (fauxqs is pinned exactly).
  const url = new URL(path, import.meta.resolve('fauxqs'));
  const module = (await import(url.href)) as Record<string, new () => T>;
  return new module[name]!();
}

/**
 * One file per object under `<dataDir>/<bucket>/data/`, named by the hash of
 * its key (any key is a safe file name), and its key, type, metadata and ETag
 * in `meta/`. Each file appears whole (written aside, then renamed), the data
 * before its metadata, so a crash leaves either the old object or the new one.
 * Writes are synchronous: a PUT that was answered is on disk.
 */
function mirrorToDisk(store: FauxqsS3Store, dataDir: string): void {
  const internals = store as unknown as StoreInternals;
  const fileName = (key: string) => createHash('sha256').update(key).digest('hex');
  const paths = (bucket: string, key: string) => ({
    data: join(dataDir, bucket, 'data', fileName(key)),
    meta: join(dataDir, bucket, 'meta', `${fileName(key)}.json`),
  });
  const writeWhole = (path: string, body: Buffer | string) => {
    const aside = `${path}.${process.pid}.part`;
    writeFileSync(aside, body);
    renameSync(aside, path);
  };
  const fromDisk = (dataPath: string, meta: Omit<StoredObject, 'body' | 'lastModified'> & { lastModified: string }): StoredObject => ({
    ...meta,
    lastModified: new Date(meta.lastModified),
    get body() {
      return readFileSync(dataPath);
    },
  });
  const persist = (bucket: string, object: StoredObject) => {
    const { data, meta } = paths(bucket, object.key);
    writeWhole(data, object.body);
    const { body: _body, ...rest } = object;
    writeWhole(meta, JSON.stringify({ ...rest, lastModified: object.lastModified.toISOString() }));
    internals.buckets.get(bucket)!.set(object.key, fromDisk(data, { ...rest, lastModified: object.lastModified.toISOString() }));
  };

  const createBucket = store.createBucket.bind(store);
  store.createBucket = (name) => {
    const known = internals.buckets.has(name);
    createBucket(name);
    if (known) return;
    for (const folder of ['data', 'meta']) mkdirSync(join(dataDir, name, folder), { recursive: true });
    const objects = internals.buckets.get(name)!;
    for (const entry of readdirSync(join(dataDir, name, 'meta'))) {
      if (!entry.endsWith('.json')) continue;
      const meta = JSON.parse(readFileSync(join(dataDir, name, 'meta', entry), 'utf8'));
      const data = join(dataDir, name, 'data', entry.slice(0, -'.json'.length));
      if (existsSync(data) && statSync(data).size === meta.contentLength) objects.set(meta.key, fromDisk(data, meta));
    }
  };
  const putObject = store.putObject.bind(store);
  store.putObject = (bucket, key, body, contentType, metadata) => {
    const object = putObject(bucket, key, body, contentType, metadata);
    persist(bucket, object);
    return object;
  };
  const completeMultipartUpload = store.completeMultipartUpload.bind(store);
  store.completeMultipartUpload = (uploadId, parts) => {
    const bucket = internals.multipartUploads.get(uploadId)?.bucket;
    const object = completeMultipartUpload(uploadId, parts);
    if (bucket) persist(bucket, object);
    return object;
  };
  const deleteObject = store.deleteObject.bind(store);
  store.deleteObject = (bucket, key) => {
    deleteObject(bucket, key);
    const { data, meta } = paths(bucket, key);
    rmSync(meta, { force: true });
    rmSync(data, { force: true });
  };
  // Buckets made by an earlier run.
  if (existsSync(dataDir)) for (const name of readdirSync(dataDir)) if (existsSync(join(dataDir, name, 'meta'))) store.createBucket(name);
}
