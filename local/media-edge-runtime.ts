import * as nodeCrypto from 'node:crypto';
import { readFileSync } from 'node:fs';
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
  const factory = new Function('cf', 'require', `${source.slice(CLOUDFRONT_IMPORT.length)}\nreturn handler;`);
  return factory(cloudfrontModule(store), edgeRequire) as EdgeHandler;
}
