import * as nodeCrypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The edge's A/B choice, to be pasted into the CloudFront Function (it imports nothing). */
export const WATERMARK_CHOICE_FILE = fileURLToPath(new URL('../../edge/watermark-choice.js', import.meta.url));

export type MarkedUri = (uri: string, eventId: string, sessionId: string) => Promise<string | null>;

/**
 * Runs the edge snippet in Node with the bindings validate-request.js gives it: `kvs` (the
 * KeyValueStore, read through `get`, which rejects for a missing key) and `hmac`.
 */
export function loadWatermarkChoice(store: ReadonlyMap<string, string>): MarkedUri {
  const kvs = {
    async get(key: string) {
      const value = store.get(key);
      if (value === undefined) throw new Error(`KeyValueStore: key not found: ${key}`);
      return value;
    },
  };
  const hmac = (key: Buffer, data: string) => nodeCrypto.createHmac('sha256', key).update(data).digest();
  const source = readFileSync(WATERMARK_CHOICE_FILE, 'utf8');
  return new Function('kvs', 'hmac', 'Buffer', `${source}\nreturn markedUri;`)(kvs, hmac, Buffer) as MarkedUri;
}
