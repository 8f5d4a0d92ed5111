import * as nodeCrypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

/** The shipped CloudFront Function. */
export const EDGE_VALIDATOR_FILE = fileURLToPath(new URL('../edge/validate-request.js', import.meta.url));
const CLOUDFRONT_IMPORT = "import cf from 'cloudfront';";

export interface CloudFrontValue {
  value: string;
  multiValue?: { value: string }[];
}

/** The parts of a CloudFront Functions viewer-request event that the validator reads. */
export interface CloudFrontRequest {
  method: string;
  uri: string;
  querystring: Record<string, CloudFrontValue>;
  headers: Record<string, CloudFrontValue>;
}

export interface CloudFrontResponse {
  statusCode: number;
  statusDescription?: string;
  headers?: Record<string, CloudFrontValue>;
  body?: { encoding: 'text' | 'base64'; data: string };
}

/** Returns the (possibly modified) request to pass it on, or a response to answer with. */
export type EdgeHandler = (event: { version: '1.0'; request: CloudFrontRequest }) => Promise<CloudFrontRequest | CloudFrontResponse>;

export function isEdgeResponse(result: CloudFrontRequest | CloudFrontResponse): result is CloudFrontResponse {
  return 'statusCode' in result;
}

/**
 * What `cf.kvs()` hands a CloudFront Function (runtime 2.0): read-only `get`, which rejects for a
 * missing key as the real one does, `exists` and `meta`.
 */
export interface EdgeKvsHandle {
  get(key: string, options?: { format?: 'string' | 'json' | 'bytes' }): Promise<unknown>;
  exists(key: string): Promise<boolean>;
  meta(): Promise<{ creationDateTime: string; lastUpdatedDateTime: string; keyCount: number }>;
}

/** A map read the way a CloudFront Function reads its KeyValueStore. */
export function kvsHandleOf(entries: ReadonlyMap<string, string>): EdgeKvsHandle {
  return {
    async get(key, options) {
      const value = entries.get(key);
      if (value === undefined) throw new Error(`KeyValueStore: key not found: ${key}`);
      if (options?.format === 'json') return JSON.parse(value);
      if (options?.format === 'bytes') return Buffer.from(value);
      return value;
    },
    async exists(key) {
      return entries.has(key);
    },
    async meta() {
      return { creationDateTime: '', lastUpdatedDateTime: '', keyCount: entries.size };
    },
  };
}

/** The `cloudfront` module of runtime 2.0: its KeyValueStore, backed by a map the caller keeps current. */
function cloudfrontModule(store: ReadonlyMap<string, string>) {
  const handle = kvsHandleOf(store);
  return { kvs: () => handle };
}

/** The runtime's `require` knows `crypto` and nothing this project uses besides. */
function edgeRequire(name: string): unknown {
  if (name === 'crypto') return nodeCrypto;
  throw new Error(`module not available in cloudfront-js-2.0: ${name}`);
}

/**
 * Runs the shipped edge file in Node: its `import cf from 'cloudfront'` line is
 * swapped for the shim above and the rest is evaluated unchanged, so what the
 * tests and the local media server exercise is byte for byte what CloudFront runs.
 */
export function loadEdgeValidator(store: ReadonlyMap<string, string>, file = EDGE_VALIDATOR_FILE): EdgeHandler {
  const source = readFileSync(file, 'utf8');
  if (!source.startsWith(CLOUDFRONT_IMPORT)) throw new Error(`${file} must start with ${CLOUDFRONT_IMPORT}`);
  return loadCloudFrontFunction(source, store);
}

/** Any CloudFront Function's code (cloudfront-js-2.0) in Node; `store` is its KeyValueStore, if it imports one. */
export function loadCloudFrontFunction(source: string, store: ReadonlyMap<string, string> = new Map()): EdgeHandler {
  const body = source.startsWith(CLOUDFRONT_IMPORT) ? source.slice(CLOUDFRONT_IMPORT.length) : source;
  const factory = new Function('cf', 'require', `${body}\nreturn handler;`);
  return factory(cloudfrontModule(store), edgeRequire) as EdgeHandler;
}

/**
 * The request as CloudFront hands it to a function: lower-case header names,
 * and for a repeated header or query parameter the first value plus `multiValue`.
 * Read from `rawHeaders`, so Node never assembles `req.headers` for it.
 */
export function toCloudFrontRequest(req: IncomingMessage, url: URL): CloudFrontRequest {
  const headers = valueMap();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) addValue(headers, raw[i]!.toLowerCase(), raw[i + 1]!);
  const querystring = valueMap();
  if (url.search) for (const [name, value] of url.searchParams) addValue(querystring, name, value);
  return { method: req.method ?? 'GET', uri: url.pathname, querystring, headers };
}

// No prototype: a header or parameter called `constructor` or `__proto__` is just a name.
function valueMap(): Record<string, CloudFrontValue> {
  return Object.create(null) as Record<string, CloudFrontValue>;
}

function addValue(values: Record<string, CloudFrontValue>, name: string, value: string): void {
  const seen = values[name];
  if (!seen) values[name] = { value };
  else (seen.multiValue ??= [{ value: seen.value }]).push({ value });
}

/** Sends the response a CloudFront Function answered with. */
export function sendEdgeResponse(res: ServerResponse, response: CloudFrontResponse): void {
  const headers: Record<string, string> = {};
  for (const [name, { value }] of Object.entries(response.headers ?? {})) headers[name] = value;
  const body = response.body
    ? Buffer.from(response.body.data, response.body.encoding === 'base64' ? 'base64' : 'utf8')
    : undefined;
  res.writeHead(response.statusCode, response.statusDescription, headers);
  res.end(body);
}
