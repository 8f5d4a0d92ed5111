/**
 * Cost of the edge validator per request in Node (the shipped file through the
 * cloudfront shim, as the media server runs it), and the shipped file's size
 * against the 10 KB CloudFront Functions limit.
 *   npx tsx bench/edge-validator.ts
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { EDGE_VALIDATOR_FILE, loadEdgeValidator, type CloudFrontRequest } from '../local/media-edge-runtime';
import { signPlaybackToken } from '../functions/domain/playback-token';

const BATCH = 200;
const MAX_BATCHES = 200;
const MAX_SECONDS = 5;
const CODE_LIMIT_BYTES = 10 * 1024;

const secret = randomBytes(32);
// A store the size of a busy deployment, so lookups are not trivially cheap.
const store = new Map<string, string>([['k:k1', secret.toString('base64url')]]);
for (let i = 0; i < 10_000; i++) store.set(`c:REVOKED${i}`, '1763700000');

const { token } = await signPlaybackToken(
  { code: 'CODE1', eventId: 'evt-1', sessionId: 'sid-1' },
  { activeKid: 'k1', keys: new Map([['k1', new Uint8Array(secret)]]) },
  new Date(),
);

const handler = loadEdgeValidator(store);
const request = (): CloudFrontRequest => ({
  method: 'GET',
  uri: '/streams/evt-1/720p/seg-00042.ts',
  querystring: {},
  headers: { authorization: { value: `Bearer ${token}` } },
});

for (let i = 0; i < 2_000; i++) await handler({ version: '1.0', request: request() });
const check = await handler({ version: '1.0', request: request() });
if ('statusCode' in check) throw new Error(`benchmark request was denied: ${check.statusCode}`);

const perRequestMicros: number[] = [];
const deadline = performance.now() + MAX_SECONDS * 1000;
while (perRequestMicros.length < MAX_BATCHES && performance.now() < deadline) {
  const start = performance.now();
  for (let i = 0; i < BATCH; i++) await handler({ version: '1.0', request: request() });
  perRequestMicros.push(((performance.now() - start) * 1000) / BATCH);
}
perRequestMicros.sort((a, b) => a - b);
const median = perRequestMicros[Math.floor(perRequestMicros.length / 2)]!;
const p90 = perRequestMicros[Math.floor(perRequestMicros.length * 0.9)]!;
const size = statSync(EDGE_VALIDATOR_FILE).size;

console.log(`edge validator (Node ${process.version}, ${perRequestMicros.length} batches of ${BATCH} allowed requests)`);
console.log(`  per request: median ${median.toFixed(1)} µs, p90 ${p90.toFixed(1)} µs`);
console.log(`  code size: ${size} bytes (${((size / CODE_LIMIT_BYTES) * 100).toFixed(0)} % of the 10 KB limit)`);
