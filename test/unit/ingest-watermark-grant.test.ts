import { describe, expect, it } from 'vitest';
import { grantOf } from '../../ingest-container/src/auth/callback';
import { createAuthenticator } from '../../ingest-container/src/auth/authenticator';
import { DEFAULT_PATTERN } from '../../recording/watermark-pattern';

const publish = { action: 'publish' as const, app: 'live', streamName: 'ev1' };
function warnings() {
  const seen: { msg: string; fields?: Record<string, unknown> }[] = [];
  return { seen, log: { warn: (msg: string, fields?: Record<string, unknown>) => void seen.push({ msg, fields }) } };
}

describe('the publish answer\'s watermark (callback mode)', () => {
  it('turns `watermark.signs` into the pattern to embed', () => {
    const { seen, log } = warnings();
    const grant = grantOf(JSON.stringify({ ok: true, watermark: { signs: '+-+-+-+-+-+-' } }), publish, log);
    expect(grant.watermark).toEqual({ ...DEFAULT_PATTERN, signs: [1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1] });
    expect(seen).toEqual([]);
  });

  it('no watermark field: not watermarked, nothing logged', () => {
    const { seen, log } = warnings();
    expect(grantOf(JSON.stringify({ ok: true, session: 's' }), publish, log)).toEqual({ session: 's' });
    expect(seen).toEqual([]);
  });

  it.each([
    ['too few signs', { signs: '+-+-' }],
    ['other characters', { signs: '+-+-+-+-+-+x' }],
    ['a number', { signs: 12 }],
    ['the signs alone', '+-+-+-+-+-+-'],
    ['null', null],
  ])('malformed (%s): not watermarked, logged', (_label, watermark) => {
    const { seen, log } = warnings();
    const grant = grantOf(JSON.stringify({ ok: true, role: 'backup', watermark }), publish, log);
    expect(grant).toEqual({ role: 'backup' });
    expect(seen).toEqual([{ msg: 'publish answer has a malformed watermark, the publish is not watermarked', fields: { stream_key: 'live/ev1' } }]);
  });

  it('a play answer never carries a watermark', () => {
    expect(grantOf(JSON.stringify({ watermark: { signs: '++++++------' } }), { ...publish, action: 'play' })).toEqual({});
  });

  it.each([
    ['none', { mode: 'none' as const }],
    ['token', { mode: 'token' as const, tokens: new Map([['live/ev1', 'k']]) }],
  ])('mode %s never watermarks', async (_mode, config) => {
    const auth = await createAuthenticator(config);
    expect((await auth.check({ ...publish, token: 'k', remoteAddr: '127.0.0.1:1' })).watermark).toBeUndefined();
  });
});
