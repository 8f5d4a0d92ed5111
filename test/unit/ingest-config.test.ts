/** Flags and their env vars, and the auth module on its own (no RTMP). */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCli, UsageError } from '../../ingest-container/src/config/cli';
import { parseDuration, parseListen } from '../../ingest-container/src/config/values';
import { createAuthenticator } from '../../ingest-container/src/auth/authenticator';
import { ErrUnauthorized, INVALID_CREDENTIALS, TOKEN_MISSING } from '../../ingest-container/src/auth/errors';
import type { AccessRequest } from '../../ingest-container/src/auth/access-request';
import { httpServer, tempDir } from '../support/ingest';

const request = (token: string | undefined, streamName = 'a'): AccessRequest => ({ action: 'publish', app: 'live', streamName, token, remoteAddr: '127.0.0.1:1' });

describe('flags', () => {
  it('takes the spec flags, repeatable ones included, in -flag value and -flag=value forms', () => {
    const options = parseCli(
      ['-listen', '127.0.0.1:1940', '-auth-mode=token', '-auth-token', 'live/a=x=y', '-auth-token', 'live/b=t2', '-hook-webhook', 'auth_failed=http://h/1', '--log-level', 'warn'],
      {},
    );
    expect(options.listen).toEqual({ host: '127.0.0.1', port: 1940 });
    expect(options.auth).toEqual({ mode: 'token', tokens: new Map([['live/a', 'x=y'], ['live/b', 't2']]) });
    expect(options.webhooks).toEqual({ auth_failed: ['http://h/1'] });
    expect(options.logLevel).toBe('warn');
    expect(options.hls).toBeUndefined();
  });

  it('reads every setting from env when the flag is absent; a flag wins over its env var', () => {
    const env = {
      INGEST_AUTH_MODE: 'callback',
      INGEST_AUTH_CALLBACK: 'http://api/api/internal/rtmp-auth',
      INGEST_AUTH_CALLBACK_TIMEOUT: '1500ms',
      INGEST_AUTH_RECHECK_INTERVAL: '30s',
      INGEST_HOOK_WEBHOOKS: 'auth_failed=http://a,auth_failed=http://b',
      MEDIA_BUCKET: 'media',
      INGEST_API_URL: 'http://api',
      INTERNAL_API_KEY: 'k',
      INGEST_LISTEN: ':1935',
    };
    const options = parseCli(['-auth-callback-timeout', '2s'], env);
    expect(options.auth).toEqual({ mode: 'callback', url: 'http://api/api/internal/rtmp-auth', timeoutMs: 2000, apiKey: 'k' });
    expect(options.recheckIntervalMs).toBe(30_000);
    expect(options.webhooks).toEqual({ auth_failed: ['http://a', 'http://b'] });
    expect(options.hls?.store.location).toBe('s3://media');
    expect(options.platform).toEqual({ apiUrl: 'http://api', apiKey: 'k' });
    expect(options.listen).toEqual({ port: 1935 });
    expect(parseCli(['-hls-dir', '/tmp/x'], env).hls?.store.location).toBe('/tmp/x');
    expect(options.hls?.reencode).toBe('auto');
    expect(parseCli([], { ...env, INGEST_HLS_REENCODE: 'off' }).hls?.reencode).toBe('off');
  });

  it.each([
    [['-auth-mode', 'magic'], /not one of none, token, file, callback/],
    [['-auth-mode', 'token'], /at least one -auth-token/],
    [['-auth-mode', 'file'], /needs -auth-file/],
    [['-auth-mode', 'callback'], /needs -auth-callback/],
    [['-auth-token', 'live/a=t'], /-auth-token applies to -auth-mode token, not none/],
    [['-auth-mode', 'token', '-auth-token', 'nokey'], /<key>=<value>/],
    [['-auth-mode', 'token', '-auth-token', 'a/b/c=t'], /not a stream key/],
    [['-auth-recheck-interval', '5s'], /needs -auth-mode callback/],
    [['-hook-webhook', 'on_publish=http://x'], /unknown event/],
    [['-tls-listen', ':1936'], /needs -tls-cert and -tls-key/],
    [['-auth-mode', 'callback', '-auth-callback', 'http://x', '-auth-callback-timeout', '5'], /not a duration/],
    [['-bogus', '1'], /unknown flag -bogus/],
    [['-api-url', 'http://x'], /needs -internal-api-key/],
    [['-internal-api-key', 'k'], /needs -api-url or -auth-mode callback/],
    [['-allow-play', 'maybe'], /not true or false/],
    [['-idle-timeout', '0'], /must be more than 0/],
    [['-failover-silence', '6s'], /at most 5s/],
    [['-hls-dir', '/tmp/x', '-hls-reencode', 'never'], /not one of auto, off/],
    [['-hls-dir', '/tmp/x', '-hls-reencode', 'off', '-hls-ladder', '720:2800'], /a ladder .* always transcodes/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCli(argv, {})).toThrow(UsageError);
    expect(() => parseCli(argv, {})).toThrow(message);
  });

  it('parses durations and listen addresses', () => {
    expect([parseDuration('0'), parseDuration('250ms'), parseDuration('5s'), parseDuration('1.5m')]).toEqual([0, 250, 5000, 90_000]);
    expect(parseListen(':0')).toEqual({ port: 0 });
    expect(parseListen('[::1]:1935')).toEqual({ host: '::1', port: 1935 });
  });
});

describe('authenticator', () => {
  it('token mode: sentinels for missing and wrong tokens, and for keys without a token', async () => {
    const auth = await createAuthenticator({ mode: 'token', tokens: new Map([['live/a', 'right']]) });
    await expect(auth.check(request('right'))).resolves.toEqual({});
    await expect(auth.check(request(undefined))).rejects.toThrow(new ErrUnauthorized(TOKEN_MISSING));
    await expect(auth.check(request('wrong'))).rejects.toThrow(new ErrUnauthorized(INVALID_CREDENTIALS));
    await expect(auth.check(request('right', 'b'))).rejects.toThrow(new ErrUnauthorized(INVALID_CREDENTIALS));
  });

  it('file mode: reload swaps the map; an unusable file keeps the old one', async () => {
    const path = join(await tempDir('auth'), 'tokens.json');
    await writeFile(path, JSON.stringify({ 'live/a': 'one' }));
    const auth = await createAuthenticator({ mode: 'file', path });
    await writeFile(path, JSON.stringify({ 'live/a': 'two' }));
    await auth.reload();
    await expect(auth.check(request('one'))).rejects.toBeInstanceOf(ErrUnauthorized);
    await expect(auth.check(request('two'))).resolves.toEqual({});
    await writeFile(path, JSON.stringify({ 'live/a': '' }));
    await expect(auth.reload()).rejects.toThrow(/must not be empty/);
    await expect(auth.check(request('two'))).resolves.toEqual({});
  });

  it('callback mode: a redirect is a denial, not something to follow', async () => {
    const server = await httpServer((_b, _q, res) => res.writeHead(302, { location: '/elsewhere' }).end());
    try {
      const auth = await createAuthenticator({ mode: 'callback', url: server.url, timeoutMs: 1000 });
      await expect(auth.check(request('x'))).rejects.toThrow(new ErrUnauthorized(INVALID_CREDENTIALS));
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
