import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  isDenyKey,
  KVS_PREFIXES,
  kvsKey,
  kvsValue,
  parseDenyUntilValue,
  parseKvsKey,
  parseSigningKeyValue,
  type DenyKind,
} from '../../functions/adapters/kvs-scheme';
import { signPlaybackToken } from '../../functions/domain/access';
import { parseSigningKeys } from '../../functions/domain/signing-keys';
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
  it('the edge file reads the signing key and checks every deny prefix of the scheme, and nothing else', () => {
    expect(prefixesRead('get')).toEqual([KVS_PREFIXES.signingKey]);
    expect(prefixesRead('exists')).toEqual(DENY_KINDS.map((kind) => KVS_PREFIXES[kind]).sort());
    expect(edgeSource.match(/kvs\.\w+\(/g)).toHaveLength(4);
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
