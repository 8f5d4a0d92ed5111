import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPlaybackToken, verifyPlaybackToken } from '../../functions/domain/access';
import { nonCanonical } from '../support/validator-cases';

const keys = { activeKid: 'k1', keys: new Map([['k1', new Uint8Array(randomBytes(32))]]) };
const now = new Date('2026-11-22T20:00:00Z');

describe('playback JWT signatures', () => {
  it('accepts the token as signed and refuses other spellings of the same MAC (as the edge does)', async () => {
    const { token } = await signPlaybackToken({ code: 'ABC123', eventId: 'evt1', sessionId: 'sid1' }, keys, now);
    expect((await verifyPlaybackToken(token, keys, now)).ok).toBe(true);
    expect(await verifyPlaybackToken(`${token}=`, keys, now)).toEqual({ ok: false });
    expect(await verifyPlaybackToken(nonCanonical(token), keys, now)).toEqual({ ok: false });
  });
});
