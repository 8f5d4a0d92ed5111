import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkViewerToken, signPlaybackToken } from '../../functions/domain/access';

const keys = { activeKid: 'k1', keys: new Map([['k1', new Uint8Array(randomBytes(32))]]) };
const otherKeys = { activeKid: 'k1', keys: new Map([['k1', new Uint8Array(randomBytes(32))]]) };
const issuedAt = new Date('2026-11-22T20:00:00Z');
const later = new Date(issuedAt.getTime() + 601_000);
const grant = { code: 'ABC123', eventId: 'evt1', sessionId: 'sid1' };

describe('the one check of a viewer playback token', () => {
  it('passes a fresh viewer token with its claims, whatever allowExpired says', async () => {
    const { token } = await signPlaybackToken(grant, keys, issuedAt);
    for (const allowExpired of [false, true]) {
      expect(await checkViewerToken(token, keys, issuedAt, { allowExpired })).toMatchObject({
        ok: true,
        claims: { code: 'ABC123', eid: 'evt1', sid: 'sid1' },
      });
    }
  });

  it('says expired for an expired genuine token unless allowExpired', async () => {
    const { token } = await signPlaybackToken(grant, keys, issuedAt);
    expect(await checkViewerToken(token, keys, later, { allowExpired: false })).toEqual({ ok: false, problem: 'expired' });
    expect(await checkViewerToken(token, keys, later, { allowExpired: true })).toMatchObject({ ok: true, claims: { sid: 'sid1' } });
  });

  it('refuses a missing, forged or preview token as invalid, expired or not', async () => {
    const { token: forged } = await signPlaybackToken(grant, otherKeys, issuedAt);
    const { token: preview } = await signPlaybackToken({ ...grant, preview: true }, keys, issuedAt);
    for (const token of [null, undefined, '', 'not.a.jwt', forged, preview]) {
      for (const [at, allowExpired] of [[issuedAt, false], [later, true]] as const) {
        expect(await checkViewerToken(token, keys, at, { allowExpired })).toEqual({ ok: false, problem: 'invalid' });
      }
    }
  });
});
