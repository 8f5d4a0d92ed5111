/** The SRT flags of the ingest program. */
import { describe, expect, it } from 'vitest';
import { parseCli, UsageError } from '../../ingest-container/src/config/cli';

describe('SRT flags', () => {
  it('is off unless -srt-listen is given', () => {
    expect(parseCli([], {}).srt).toBeUndefined();
  });

  it('takes the listen address, passphrase and latency, from flags or env', () => {
    expect(parseCli(['-srt-listen', ':9000', '-srt-passphrase', 'ten-chars-1', '-srt-latency', '120ms'], {}).srt).toEqual({
      listen: { port: 9000 },
      passphrase: 'ten-chars-1',
      latencyMs: 120,
    });
    expect(parseCli([], { INGEST_SRT_LISTEN: '127.0.0.1:0', INGEST_SRT_PASSPHRASE: 'from-the-environment' }).srt).toEqual({
      listen: { host: '127.0.0.1', port: 0 },
      passphrase: 'from-the-environment',
      latencyMs: 200,
    });
  });

  it('refuses a passphrase libsrt would refuse, and one without a listener', () => {
    expect(() => parseCli(['-srt-listen', ':9000', '-srt-passphrase', 'short'], {})).toThrow(UsageError);
    expect(() => parseCli(['-srt-listen', ':9000', '-srt-passphrase', 'has a space in it'], {})).toThrow(UsageError);
    expect(() => parseCli(['-srt-listen', ':9000', '-srt-passphrase', 'x'.repeat(80)], {})).toThrow(UsageError);
    expect(() => parseCli(['-srt-passphrase', 'ten-chars-1'], {})).toThrow('-srt-passphrase needs -srt-listen');
  });
});
