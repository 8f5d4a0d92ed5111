import { describe, expect, it } from 'vitest';
import { parseSigningKeys } from '../../functions/domain/signing-keys';
import { signPlaybackToken, verifyPlaybackToken } from '../../functions/domain/access';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64url');

describe('signing keys', () => {
  it('rejects short keys and an activeKid that names no key', () => {
    expect(() => parseSigningKeys(JSON.stringify({ activeKid: 'a', keys: { a: Buffer.alloc(16).toString('base64url') } }))).toThrow();
    expect(() => parseSigningKeys(JSON.stringify({ activeKid: 'b', keys: { a: key(1) } }))).toThrow();
  });

  it('rotates: tokens of the old key verify while it is listed, new tokens use the active one', async () => {
    const now = new Date();
    const grant = { code: 'ABCDEFGHJKLM', eventId: 'ev1', sessionId: 's1' };
    const old = parseSigningKeys(JSON.stringify({ activeKid: 'k1', keys: { k1: key(1) } }));
    const both = parseSigningKeys(JSON.stringify({ activeKid: 'k2', keys: { k1: key(1), k2: key(2) } }));
    const onlyNew = parseSigningKeys(JSON.stringify({ activeKid: 'k2', keys: { k2: key(2) } }));
    const { token } = await signPlaybackToken(grant, old, now);
    expect((await verifyPlaybackToken(token, both, now)).ok).toBe(true);
    expect((await verifyPlaybackToken(token, onlyNew, now)).ok).toBe(false);
    const fresh = await signPlaybackToken(grant, both, now);
    expect(JSON.parse(Buffer.from(fresh.token.split('.')[0]!, 'base64url').toString()).kid).toBe('k2');
  });
});
