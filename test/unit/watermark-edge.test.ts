import { describe, expect, it } from 'vitest';
import { kvsKey, kvsValue } from '../../functions/adapters/kvs-scheme';
import { playbackCredential, signPlaybackToken } from '../../functions/domain/access';
import { parseSigningKeys } from '../../functions/domain/signing-keys';
import { markBit, markKeyOf } from '../../functions/domain/watermark';
import { loadEdgeValidator, type CloudFrontRequest } from '../../local/media-edge-runtime';

const KEY = markKeyOf('a watermark secret', 'evt-1');
const signing = parseSigningKeys(JSON.stringify({ activeKid: 'k1', keys: { k1: Buffer.alloc(32, 5).toString('base64url') } }));
const store = new Map([
  [kvsKey.signingKey('k1'), kvsValue.signingKey(signing.keys.get('k1')!)],
  [kvsKey.markKey('evt-1'), kvsValue.markKey(KEY)],
]);
const edge = loadEdgeValidator(store);
const get = (uri: string, headers: Record<string, string> = {}): { version: '1.0'; request: CloudFrontRequest } => ({
  version: '1.0',
  request: { method: 'GET', uri, querystring: {}, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, { value: v }])) },
});
const uriOf = (result: Awaited<ReturnType<typeof edge>>) => ('uri' in result ? result.uri : `${result.statusCode}`);

/**
 * The A/B choice inside edge/validate-request.js (docs/watermark-design.md, section 2) over many sessions and
 * segments, against the domain's mark bit; test/support/validator-cases.ts holds the same under njs.
 */
describe("the edge's A/B choice in the validator (Node)", () => {
  it('serves each session the version of the domain’s mark bit, the same in every rendition, for both credentials', async () => {
    const seen = new Set<string>();
    for (let s = 0; s < 12; s++) {
      const sessionId = `sess-${s}`;
      const { token } = await signPlaybackToken({ code: 'CODE1', eventId: 'evt-1', sessionId }, signing, new Date());
      const credential = playbackCredential({ code: 'CODE1', eventId: 'evt-1', sessionId, expiresAt: Math.floor(Date.now() / 1000) + 3600 }, signing);
      for (const n of [0, 1, 7, 8, 255, 256, 300, 511, 512, 9999, 12, 13, 14, 15]) {
        const moment = `pub1-part2_${String(n).padStart(5, '0')}`;
        const version = markBit(KEY, sessionId, { part: 'pub1-part2', index: n }) === 0 ? 'a' : 'b';
        seen.add(version);
        for (const rendition of ['', '.0', '.2']) {
          const expected = `/streams/evt-1/${moment}${rendition}.${version}.ts`;
          expect(uriOf(await edge(get(`/streams/evt-1/${moment}${rendition}.w.ts`, { authorization: `Bearer ${token}` })))).toBe(expected);
          expect(uriOf(await edge(get(`/streams/evt-1/~${credential}/${moment}${rendition}.w.ts`)))).toBe(expected);
        }
      }
    }
    expect([...seen].sort()).toEqual(['a', 'b']);
  });
});
