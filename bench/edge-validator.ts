/**
 * Cost of the edge validator per request in Node (the shipped file through the
 * cloudfront shim, as the media server runs it), for the Bearer JWT and for
 * the header-less credential in the path (batches of both interleaved in one
 * run, ratio path/Bearer), the Bearer JWT for an event with a country rule naming every country (the
 * longest `g:` value, the viewer's country last), the Bearer JWT for a watermarked segment (`.w.ts`: one more
 * KeyValueStore read and HMAC, rewritten to `.a.ts`/`.b.ts`), and the shipped file's size against the 10 KB
 * CloudFront Functions limit.
 *   npx tsx bench/edge-validator.ts
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { EDGE_VALIDATOR_FILE, loadEdgeValidator, type CloudFrontRequest } from '../local/media-edge-runtime';
import { kvsKey, kvsValue } from '../functions/adapters/kvs-scheme';
import { signPlaybackToken } from '../functions/domain/access';
import { playbackCredential } from '../functions/domain/access';
import { COUNTRIES } from '../functions/domain/events';
import { markKeyOf } from '../functions/domain/watermark';

const BATCH = 200;
const MAX_BATCHES = 200;
const MAX_SECONDS = 5;
const CODE_LIMIT_BYTES = 10 * 1024;

const secret = randomBytes(32);
// A store the size of a busy deployment, so lookups are not trivially cheap.
const store = new Map<string, string>([[kvsKey.signingKey('k1'), kvsValue.signingKey(secret)]]);
for (let i = 0; i < 10_000; i++) store.set(kvsKey.revokedCode(`REVOKED${i}`), kvsValue.denyUntil(1_763_700_000));

// The worst case of a country rule: all 249 codes, the viewer's the last of them.
store.set(kvsKey.geoRule('evt-geo'), kvsValue.geoRule({ allow: Object.keys(COUNTRIES) }));
store.set(kvsKey.markKey('evt-1'), kvsValue.markKey(markKeyOf('bench watermark secret', 'evt-1')));

const keys = { activeKid: 'k1', keys: new Map([['k1', new Uint8Array(secret)]]) };
const grant = { code: 'CODE1', eventId: 'evt-1', sessionId: 'sid-1' };
const { token } = await signPlaybackToken(grant, keys, new Date());
const { token: geoToken } = await signPlaybackToken({ ...grant, eventId: 'evt-geo' }, keys, new Date());
const credential = playbackCredential({ ...grant, expiresAt: Math.floor(Date.now() / 1000) + 3600 }, keys);

const handler = loadEdgeValidator(store);
const requests = {
  bearer: (): CloudFrontRequest => ({
    method: 'GET',
    uri: '/streams/evt-1/720p/seg-00042.ts',
    querystring: {},
    headers: { authorization: { value: `Bearer ${token}` } },
  }),
  path: (): CloudFrontRequest => ({ method: 'GET', uri: `/streams/evt-1/~${credential}/720p/seg-00042.ts`, querystring: {}, headers: {} }),
  watermark: (): CloudFrontRequest => ({
    method: 'GET',
    uri: '/streams/evt-1/pub1_00042.2.w.ts',
    querystring: {},
    headers: { authorization: { value: `Bearer ${token}` } },
  }),
  geo: (): CloudFrontRequest => ({
    method: 'GET',
    uri: '/streams/evt-geo/720p/seg-00042.ts',
    querystring: {},
    headers: { authorization: { value: `Bearer ${geoToken}` }, 'cloudfront-viewer-country': { value: 'ZW' } },
  }),
};

for (const request of Object.values(requests)) {
  for (let i = 0; i < 2_000; i++) await handler({ version: '1.0', request: request() });
  const check = await handler({ version: '1.0', request: request() });
  if ('statusCode' in check) throw new Error(`benchmark request was denied: ${check.statusCode}`);
}

async function batch(request: () => CloudFrontRequest): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < BATCH; i++) await handler({ version: '1.0', request: request() });
  return ((performance.now() - start) * 1000) / BATCH;
}

const micros = { bearer: [] as number[], path: [] as number[], geo: [] as number[], watermark: [] as number[] };
const deadline = performance.now() + MAX_SECONDS * 1000;
while (micros.bearer.length < MAX_BATCHES && performance.now() < deadline) {
  micros.bearer.push(await batch(requests.bearer));
  micros.path.push(await batch(requests.path));
  micros.geo.push(await batch(requests.geo));
  micros.watermark.push(await batch(requests.watermark));
}
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * q)]!;
const size = statSync(EDGE_VALIDATOR_FILE).size;

console.log(`edge validator (Node ${process.version}, ${micros.bearer.length} batches of ${BATCH} allowed requests per credential)`);
for (const [name, values] of Object.entries(micros)) {
  const label = { bearer: 'Bearer JWT', path: 'path credential', geo: 'Bearer JWT, 249-country rule', watermark: 'Bearer JWT, watermarked segment (.w.ts)' }[name];
  console.log(`  ${label}: median ${quantile(values, 0.5).toFixed(1)} µs, p90 ${quantile(values, 0.9).toFixed(1)} µs`);
}
console.log(`  ratio path/Bearer (medians): ${(quantile(micros.path, 0.5) / quantile(micros.bearer, 0.5)).toFixed(2)}`);
console.log(`  ratio watermarked/plain segment, Bearer (medians): ${(quantile(micros.watermark, 0.5) / quantile(micros.bearer, 0.5)).toFixed(2)}`);
console.log(`  code size: ${size} bytes (${((size / CODE_LIMIT_BYTES) * 100).toFixed(0)} % of the 10 KB limit)`);
