import { describe, expect, it } from 'vitest';
import { summarizeUserAgent } from '../../functions/domain/access';
import { groupedCode, watchLink } from '../../functions/domain/codes';
import { decodeCursor, encodeCursor } from '../../functions/adapters/dynamo-cursor';
import { InvalidCursor } from '../../functions/domain/errors';

describe('summarizeUserAgent', () => {
  it.each([
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36', 'Chrome 131 on Android'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari 17 on iPhone'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0', 'Edge 131 on Windows'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:132.0) Gecko/20100101 Firefox/132.0', 'Firefox 132 on macOS'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36', 'Chrome 131 on Linux'],
    ['VLC/3.0.20 LibVLC/3.0.20', 'VLC 3'],
    ['AppleCoreMedia/1.0.0.21F79 (Apple TV; U; CPU OS 17_5 like Mac OS X; en_us)', 'Apple player 1 on Apple TV'],
    ['curl/8.5.0', 'curl/8.5.0'],
    [undefined, 'Unknown'],
  ])('%s → %s', (userAgent, summary) => {
    expect(summarizeUserAgent(userAgent)).toBe(summary);
  });
});

describe('watch links', () => {
  it('puts the code in the viewer URL, with or without a trailing slash', () => {
    expect(watchLink('https://d123.cloudfront.net', 'ABCDEFGHJKLM')).toBe('https://d123.cloudfront.net/?code=ABCDEFGHJKLM');
    expect(watchLink('https://watch.example.com/', 'ABCDEFGHJKLM')).toBe('https://watch.example.com/?code=ABCDEFGHJKLM');
  });
  it('groups a code in fours for print', () => {
    expect(groupedCode('ABCDEFGHJKLM')).toBe('ABCD-EFGH-JKLM');
  });
});

describe('paging cursors', () => {
  it('round-trips a key and refuses anything else', () => {
    const key = { pk: 'AUDIT#ev1', sk: '2026-11-20T20:00:00.000Z#x' };
    expect(decodeCursor(encodeCursor(key), ['pk', 'sk'], (k) => k.pk === 'AUDIT#ev1')).toEqual(key);
    for (const bad of ['', '!!', encodeCursor({ pk: 'AUDIT#ev1' }), Buffer.from('[1]').toString('base64url'), encodeCursor({ pk: 'x', sk: 'y' })]) {
      expect(() => decodeCursor(bad, ['pk', 'sk'], (k) => k.pk === 'AUDIT#ev1'), bad).toThrow(InvalidCursor);
    }
  });
});
