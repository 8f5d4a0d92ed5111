import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  isDenyKey,
  KVS_PREFIXES,
  kvsKey,
  kvsValue,
  parseDenyUntilValue,
  parseGeoRuleValue,
  parseKvsKey,
  parseSigningKeyValue,
  type DenyKind,
} from '../../functions/adapters/kvs-scheme';
import { signPlaybackToken } from '../../functions/domain/access';
import { COUNTRIES, geoAllows } from '../../functions/domain/events';
import { parseSigningKeys } from '../../functions/domain/signing-keys';
import { markKeyOf } from '../../functions/domain/watermark';
import { EDGE_VALIDATOR_FILE, loadEdgeValidator } from '../../local/media-edge-runtime';

/**
 * The edge file keeps its own KeyValueStore literals (a CloudFront Function imports nothing):
 * they must be exactly the scheme the writers use, and an entry a writer builds must do at the
 * edge what the scheme says.
 */
const edgeSource = readFileSync(EDGE_VALIDATOR_FILE, 'utf8');
const prefixesRead = (method: 'get' | 'exists') =>
  [...edgeSource.matchAll(new RegExp(`kvs\\.${method}\\('([^']*)'\\s*\\+`, 'g'))].map((match) => match[1]).sort();
const DENY_KINDS: DenyKind[] = ['revokedCode', 'deactivatedEvent', 'endedSession'];

describe('KeyValueStore scheme', () => {
  it('the edge file reads the signing key, the country rule and the mark key, and checks every deny prefix of the scheme, and nothing else', () => {
    expect(prefixesRead('get')).toEqual([KVS_PREFIXES.geoRule, KVS_PREFIXES.signingKey, KVS_PREFIXES.markKey].sort());
    expect(prefixesRead('exists')).toEqual([...DENY_KINDS.map((kind) => KVS_PREFIXES[kind]), KVS_PREFIXES.geoRule].sort());
    expect(edgeSource.match(/kvs\.\w+\(/g)).toHaveLength(7);
    expect(Object.keys(KVS_PREFIXES).sort()).toEqual(['deactivatedEvent', 'endedSession', 'geoRule', 'markKey', 'revokedCode', 'signingKey']);
  });

  it('a mark key entry is one per event, not a deny entry, and holds the 32-byte key in 43 base64url characters', () => {
    const markKey = markKeyOf('a watermark secret', 'evt-1');
    expect(markKey.equals(createHmac('sha256', 'a watermark secret').update('wm-key.evt-1').digest())).toBe(true);
    expect(parseKvsKey(kvsKey.markKey('evt-1'))).toEqual({ kind: 'markKey', id: 'evt-1' });
    expect(kvsKey.markKey('evt-1')).toBe('w:evt-1');
    expect(isDenyKey(kvsKey.markKey('evt-1'))).toBe(false);
    expect(kvsValue.markKey(markKey)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(kvsValue.markKey(markKey), 'base64url').equals(markKey)).toBe(true);
  });

  it('encodes a country rule as one short value, at most 748 bytes with every code, and reads it back', () => {
    expect(parseKvsKey(kvsKey.geoRule('evt-1'))).toEqual({ kind: 'geoRule', id: 'evt-1' });
    expect(isDenyKey(kvsKey.geoRule('evt-1'))).toBe(false);
    expect(kvsValue.geoRule({ allow: ['BE', 'FR'] })).toBe('a:BE,FR');
    expect(kvsValue.geoRule({ deny: ['RU'] })).toBe('d:RU');
    expect(parseGeoRuleValue('a:BE,FR')).toEqual({ allow: ['BE', 'FR'] });
    expect(parseGeoRuleValue('d:RU')).toEqual({ deny: ['RU'] });
    expect(parseGeoRuleValue('x:RU')).toBeNull();
    const everywhere = kvsValue.geoRule({ allow: Object.keys(COUNTRIES) });
    expect(Buffer.byteLength(everywhere)).toBe(748);
    expect(Buffer.byteLength(everywhere)).toBeLessThanOrEqual(1024);
  });

  it('a country rule built by the scheme admits and refuses at the edge as geoAllows decides', async () => {
    const secret = Buffer.alloc(32, 3).toString('base64url');
    const keys = parseSigningKeys(JSON.stringify({ activeKid: 'k1', keys: { k1: secret } }));
    const { token } = await signPlaybackToken({ code: 'CODE1', eventId: 'evt-a', sessionId: 'sid-1' }, keys, new Date());
    const request = (country: string | null) => ({
      version: '1.0' as const,
      request: {
        method: 'GET',
        uri: '/streams/evt-a/index.m3u8',
        querystring: {},
        headers: { authorization: { value: `Bearer ${token}` }, ...(country ? { 'cloudfront-viewer-country': { value: country } } : {}) },
      },
    });
    const signing = [kvsKey.signingKey('k1'), kvsValue.signingKey(keys.keys.get('k1')!)] as const;
    for (const rule of [{ allow: ['BE', 'FR'] }, { deny: ['RU'] }, { allow: ['GB'] }, { deny: ['GB', 'US'] }]) {
      const edge = loadEdgeValidator(new Map([signing, [kvsKey.geoRule('evt-a'), kvsValue.geoRule(rule)]]));
      for (const country of ['FR', 'BE', 'RU', 'GB', 'US', 'DE', null, 'fr', 'F']) {
        const admitted = !('statusCode' in (await edge(request(country))));
        const expected = geoAllows(rule, country && /^[A-Z]{2}$/.test(country) ? country : null);
        expect(admitted, `${JSON.stringify(rule)} from ${country}`).toBe(expected);
      }
    }
  });

  it('parses what it builds, and leaves other keys alone', () => {
    expect(parseKvsKey(kvsKey.signingKey('k1'))).toEqual({ kind: 'signingKey', id: 'k1' });
    expect(parseKvsKey(kvsKey.revokedCode('ABC123'))).toEqual({ kind: 'revokedCode', id: 'ABC123' });
    expect(parseKvsKey(kvsKey.deactivatedEvent('evt-1'))).toEqual({ kind: 'deactivatedEvent', id: 'evt-1' });
    expect(parseKvsKey(kvsKey.endedSession('sid_1'))).toEqual({ kind: 'endedSession', id: 'sid_1' });
    expect(parseKvsKey('other-app:key')).toBeNull();
    expect(isDenyKey(kvsKey.signingKey('k1'))).toBe(false);
    expect(DENY_KINDS.every((kind) => isDenyKey(kvsKey[kind]('x')))).toBe(true);
    const secret = new Uint8Array(32).fill(7);
    expect(parseSigningKeyValue(kvsValue.signingKey(secret)).equals(Buffer.from(secret))).toBe(true);
    expect(parseDenyUntilValue(kvsValue.denyUntil(1_763_726_400.9))).toBe(1_763_726_400);
  });

  it('an entry built by the scheme admits or denies at the edge as the scheme says', async () => {
    const secret = Buffer.alloc(32, 3).toString('base64url');
    const keys = parseSigningKeys(JSON.stringify({ activeKid: 'k1', keys: { k1: secret } }));
    const grant = { code: 'CODE1', eventId: 'evt-a', sessionId: 'sid-1' };
    const { token } = await signPlaybackToken(grant, keys, new Date());
    const ids: Record<DenyKind, string> = { revokedCode: grant.code, deactivatedEvent: grant.eventId, endedSession: grant.sessionId };
    const request = () => ({
      version: '1.0' as const,
      request: { method: 'GET', uri: '/streams/evt-a/index.m3u8', querystring: {}, headers: { authorization: { value: `Bearer ${token}` } } },
    });
    const until = kvsValue.denyUntil(Date.now() / 1000 + 600);

    const store = new Map([[kvsKey.signingKey('k1'), kvsValue.signingKey(keys.keys.get('k1')!)]]);
    expect(await loadEdgeValidator(store)(request())).not.toHaveProperty('statusCode');
    for (const kind of DENY_KINDS) {
      const denying = new Map([...store, [kvsKey[kind](ids[kind]), until]]);
      expect(await loadEdgeValidator(denying)(request()), kind).toMatchObject({ statusCode: 403 });
    }
  });
});
