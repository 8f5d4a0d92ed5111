/**
 * Mode callback: fail closed when the callback answers 500, times out or
 * cannot be reached; the recheck cuts a live publisher once the platform
 * starts denying it; the platform hears live true then false; auth_failed
 * reaches its webhook.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { folderStore, startIngestServer, type IngestServer } from '../../ingest-container/src/index';
import { freePort } from '../../local/free-port';
import { firstStatus, httpServer, logRecorder, publish, tempDir, uniqueName, until, type TestHttpServer } from '../support/ingest';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startWithCallback(url: string, extra: Partial<Parameters<typeof startIngestServer>[0]> = {}) {
  const recorder = logRecorder();
  const server: IngestServer = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'callback', url, timeoutMs: 500 },
    log: recorder.log,
    ...extra,
  });
  cleanups.push(() => server.close());
  return { server, recorder };
}

async function track(server: Promise<TestHttpServer>) {
  const started = await server;
  cleanups.push(() => started.close());
  return started;
}

describe('callback failures deny (fail closed)', () => {
  const cases: [string, () => Promise<string>][] = [
    ['answers 500', async () => (await track(httpServer((_b, _q, res) => ((res.statusCode = 500), res.end())))).url],
    ['times out', async () => (await track(httpServer(() => undefined))).url],
    ['is unreachable', async () => `http://127.0.0.1:${await freePort()}/rtmp-auth`],
  ];

  it.each(cases)('when the callback %s', async (_what, target) => {
    const hook = await track(httpServer((_b, _q, res) => res.end()));
    const { server, recorder } = await startWithCallback(await target(), { webhooks: { auth_failed: [hook.url] } });
    const url = `${server.url}/live/${uniqueName('f')}?token=anything`;

    const result = await publish(url, 2).done;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Server error: authentication failed: authorization service unavailable');
    expect(await firstStatus(url, 'play')).toMatchObject({ code: 'NetStream.Play.Unauthorized', level: 'error' });

    // Logged as a failed check, not as ErrUnauthorized, and still an auth_failed event.
    const logged = await recorder.waitFor((e) => e.msg === 'auth check could not be made, denied');
    expect(logged.error).toMatch(/timed out|unreachable|answered 500/);
    expect(recorder.entries.some((e) => e.msg === 'auth failed')).toBe(false);
    const delivered = await until(() => hook.requests.find((r) => r.body.action === 'publish'));
    expect(delivered.body.event).toBe('auth_failed');
  });
});

describe('auth_failed webhook', () => {
  it('delivers the event with the connection, stream key, action, error and address, never the token', async () => {
    const hook = await track(httpServer((_b, _q, res) => res.end()));
    const callback = await track(httpServer((_b, _q, res) => ((res.statusCode = 403), res.end())));
    const { server } = await startWithCallback(callback.url, { webhooks: { auth_failed: [hook.url] } });
    const name = uniqueName('w');

    await publish(`${server.url}/live/${name}?token=secret-value`, 2).done;
    const { body, headers } = await until(() => hook.requests[0]);
    expect(headers['content-type']).toBe('application/json');
    expect(body).toEqual({
      event: 'auth_failed',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      conn_id: expect.any(String),
      action: 'publish',
      app: 'live',
      stream_name: name,
      stream_key: `live/${name}`,
      error: 'authentication failed: invalid credentials',
      recheck: false,
      remote_addr: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
    });
    expect(JSON.stringify(body)).not.toContain('secret-value');
  });
});

describe('recheck of live publishers', () => {
  it('cuts a publisher once the callback denies it, ends its HLS and tells the platform', async () => {
    let allowed = true;
    const callback = await track(httpServer((_b, _q, res) => ((res.statusCode = allowed ? 200 : 403), res.end())));
    const platform = await track(httpServer((body, req, res) => res.end(JSON.stringify({ eventId: req.url, live: body.live }))));
    const hlsDir = await tempDir('recheck-hls');
    const { server, recorder } = await startWithCallback(callback.url, {
      recheckIntervalMs: 200,
      platform: { apiUrl: platform.url, apiKey: 'internal-key' },
      hls: { store: folderStore(hlsDir), ffmpegPath: 'ffmpeg', segmentSeconds: 1, ladder: [] },
    });
    const name = uniqueName('r');
    const publisher = publish(`${server.url}/live/${name}?token=ingest-key`);
    cleanups.push(() => publisher.stop());
    await recorder.waitFor((e) => e.msg === 'publish accepted');
    const playlist = join(hlsDir, 'streams', name, 'index.m3u8');
    await until(() => readFile(playlist, 'utf8').catch(() => undefined));

    allowed = false; // e.g. the event was deactivated or its ingest key rotated
    const result = await publisher.done;
    expect(result.code).not.toBe(0);
    // The cut publisher is told why, like a rejected one.
    expect(result.stderr).toContain('Server error: authentication failed: invalid credentials');
    const cut = await recorder.waitFor((e) => e.msg === 'auth failed' && e.recheck === true);
    expect(cut.error).toBe('authentication failed: invalid credentials');
    await recorder.waitFor((e) => e.msg === 'publication ended');

    expect(await readFile(playlist, 'utf8')).toMatch(/#EXT-X-ENDLIST\s*$/);
    // The lease taken by the publish check, renewed meanwhile, released at the end of the show.
    // Lease calls only; the publisher's measured video goes to the platform too (…/video).
    const leaseCalls = () => platform.requests.filter((r) => r.path.endsWith('/lease'));
    const notices = await until(() => (leaseCalls().at(-1)?.body?.action === 'release' ? leaseCalls() : undefined));
    for (const notice of notices) {
      expect([notice.path, notice.headers['x-internal-api-key']]).toEqual([`/api/internal/streams/${name}/lease`, 'internal-key']);
    }
    expect(notices[0]!.body).toEqual({ holder: expect.any(String), action: 'acquire', role: 'primary' });
    expect(new Set(notices.map((n) => n.body.holder)).size).toBe(1);
  });
});
