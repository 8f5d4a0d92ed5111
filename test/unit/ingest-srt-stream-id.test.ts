import { describe, expect, it } from 'vitest';
import { parseStreamId, REJECT } from '../../ingest-container/src/srt/stream-id';

describe('SRT stream id', () => {
  it('takes the RTMP stream key form', () => {
    expect(parseStreamId('live/ev1?token=abc')).toEqual({ ok: true, app: 'live', streamName: 'ev1', token: 'abc' });
    expect(parseStreamId('live/ev1')).toEqual({ ok: true, app: 'live', streamName: 'ev1', token: undefined });
    expect(parseStreamId('live/ev1?token=')).toMatchObject({ ok: true, token: undefined });
    expect(parseStreamId('live/ev1?token=&token=b')).toMatchObject({ ok: true, token: 'b' });
  });

  it('takes the SRT Access Control form with the token under `token`', () => {
    expect(parseStreamId('#!::r=live/ev1,m=publish,token=abc')).toEqual({ ok: true, app: 'live', streamName: 'ev1', token: 'abc' });
    expect(parseStreamId('#!::u=cam1,r=live/ev1,token=abc,m=publish')).toMatchObject({ ok: true, streamName: 'ev1', token: 'abc' });
    expect(parseStreamId('#!::r=live/ev1,m=publish')).toMatchObject({ ok: true, token: undefined });
    // No m: an encoder that only sends.
    expect(parseStreamId('#!::r=live/ev1,token=t')).toMatchObject({ ok: true, token: 't' });
  });

  it('decodes a percent-encoded stream id (ffmpeg 5.1 passes the URL value on as is)', () => {
    expect(parseStreamId(encodeURIComponent('#!::r=live/ev1,m=publish,token=abc'))).toMatchObject({ ok: true, streamName: 'ev1', token: 'abc' });
    expect(parseStreamId(encodeURIComponent('live/ev1?token=abc'))).toMatchObject({ ok: true, streamName: 'ev1', token: 'abc' });
  });

  it('refuses play and bidirectional modes with bad mode', () => {
    expect(parseStreamId('#!::r=live/ev1,m=request,token=abc')).toMatchObject({ ok: false, reject: REJECT.badMode });
    expect(parseStreamId('#!::r=live/ev1,m=bidirectional,token=abc')).toMatchObject({ ok: false, reject: REJECT.badMode });
  });

  it('refuses what is not <app>/<stream> as a bad request', () => {
    for (const id of ['', 'ev1', 'live/ev1/x', 'live/ev 1?token=a', '../x/y', '#!::r=live', '#!::garbage', '#!::r=a/b;c,m=publish']) {
      expect(parseStreamId(id), id).toMatchObject({ ok: false, reject: REJECT.badRequest });
    }
  });
});
