/**
 * The RTMP play rules: play can be switched off, one play
 * connection per viewer session, the recheck cuts players as it cuts
 * publishers, connections that never publish or play (or go silent) are
 * closed, repeated auth failures from one address are answered late, and
 * in modes token/file the app is part of the HLS output path.
 */
import { connect } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { folderStore, startIngestServer, type IngestOptions } from '../../ingest-container/src/index';
import { createFailureBrake } from '../../ingest-container/src/rtmp/failure-brake';
import { firstStatus, httpServer, logRecorder, publish, run, tempDir, uniqueName, until, type TestHttpServer } from '../support/ingest';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(options: Partial<IngestOptions>) {
  const recorder = logRecorder();
  const server = await startIngestServer({ listen: { host: '127.0.0.1', port: 0 }, auth: { mode: 'none' }, log: recorder.log, ...options });
  cleanups.push(() => server.close());
  return { server, recorder };
}

async function callback(answer: (body: any) => { status: number; session?: string }): Promise<TestHttpServer> {
  const server = await httpServer((body, _req, res) => {
    const { status, session } = answer(body);
    res.statusCode = status;
    res.end(JSON.stringify(status === 200 ? { ok: true, ...(session ? { session } : {}) } : { error: 'Access denied' }));
  });
  cleanups.push(() => server.close());
  return server;
}

/** ffmpeg playing until stopped (or cut). */
function player(url: string) {
  const running = run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-rw_timeout', '15000000', '-i', url, '-f', 'null', '-']);
  cleanups.push(() => (running.running() ? running.stop() : running.done));
  return running;
}

describe('RTMP play switched off', () => {
  it('refuses every play before asking the callback', async () => {
    const auth = await callback(() => ({ status: 200 }));
    const { server } = await start({ auth: { mode: 'callback', url: auth.url, timeoutMs: 2_000 }, allowPlay: false });
    expect(await firstStatus(`${server.url}/live/${uniqueName('p')}?token=t`, 'play')).toEqual({
      code: 'NetStream.Play.Unauthorized',
      level: 'error',
      description: 'playback over RTMP is disabled on this server',
    });
    expect(auth.requests).toHaveLength(0);
  });
});

describe('RTMP play with a viewer session', () => {
  it('admits one play connection per session; another session plays alongside', async () => {
    const sessions: Record<string, string> = { a1: 'session-a', a2: 'session-a', b: 'session-b' };
    const auth = await callback((body) => ({ status: body.action === 'publish' || sessions[body.token] ? 200 : 403, session: sessions[body.token] }));
    const { server, recorder } = await start({ auth: { mode: 'callback', url: auth.url, timeoutMs: 2_000 } });
    const url = `${server.url}/live/${uniqueName('s')}`;
    const publisher = publish(`${url}?token=k`);
    cleanups.push(() => publisher.stop());
    await recorder.waitFor((e) => e.msg === 'publish accepted');

    player(`${url}?token=a1`);
    await recorder.waitFor((e) => e.msg === 'play accepted');
    // A second connection of session a (even with another of its tokens) is refused.
    expect(await firstStatus(`${url}?token=a2`, 'play')).toEqual({
      code: 'NetStream.Play.Unauthorized',
      level: 'error',
      description: 'this access is already playing on another connection',
    });
    expect((await firstStatus(`${url}?token=b`, 'play')).level).toBe('status');
  });

  it('the recheck cuts a player once the platform denies its session, asking with recheck: true', async () => {
    let allowed = true;
    const auth = await callback((body) => ({ status: body.action === 'publish' || allowed ? 200 : 403, session: 'one' }));
    const { server, recorder } = await start({ auth: { mode: 'callback', url: auth.url, timeoutMs: 2_000 }, recheckIntervalMs: 200 });
    const url = `${server.url}/live/${uniqueName('r')}`;
    const publisher = publish(`${url}?token=k`);
    cleanups.push(() => publisher.stop());
    await recorder.waitFor((e) => e.msg === 'publish accepted');
    const watching = player(`${url}?token=viewer`);
    await recorder.waitFor((e) => e.msg === 'play accepted');

    allowed = false; // revoked, taken over, or the event deactivated
    const result = await watching.done;
    expect(result.stderr).toContain('authentication failed: invalid credentials');
    const cut = await recorder.waitFor((e) => e.msg === 'auth failed' && e.recheck === true && e.action === 'play');
    expect(cut.stream_key).toMatch(/^live\/r/);
    expect(auth.requests.some((r) => r.body.action === 'play' && r.body.recheck === true)).toBe(true);
    expect(publisher.running()).toBe(true);
  });
});

describe('connection timeouts', () => {
  const closed = (port: number, send?: Buffer) =>
    new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => send && socket.write(send));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
    });

  it('closes a connection that never publishes or plays', async () => {
    const { server, recorder } = await start({ handshakeTimeoutMs: 300 });
    await closed(Number(new URL(server.url!).port), Buffer.from([3]));
    expect((await recorder.waitFor((e) => e.msg.startsWith('connection closed:'))).msg).toBe('connection closed: handshake timeout');
  });

  it('closes a silent connection', async () => {
    const { server, recorder } = await start({ handshakeTimeoutMs: 60_000, idleTimeoutMs: 300 });
    await closed(Number(new URL(server.url!).port));
    expect((await recorder.waitFor((e) => e.msg.startsWith('connection closed:'))).msg).toBe('connection closed: idle timeout');
  });
});

describe('brute-force brake', () => {
  it('answers failures after the free ones late, from the same address only', async () => {
    const { server, recorder } = await start({
      auth: { mode: 'token', tokens: new Map([['live/x', 'right']]) },
      failureBrake: { freeFailures: 2, minDelayMs: 50, maxDelayMs: 60 },
    });
    const url = `${server.url}/live/x?token=wrong`;
    for (let n = 0; n < 2; n++) expect((await firstStatus(url, 'publish')).code).toBe('NetStream.Publish.Unauthorized');
    expect(recorder.entries.some((e) => e.msg === 'auth failure answered late')).toBe(false);
    expect((await firstStatus(url, 'publish')).code).toBe('NetStream.Publish.Unauthorized');
    const late = await recorder.waitFor((e) => e.msg === 'auth failure answered late');
    expect(late.delay_ms).toBeGreaterThanOrEqual(50);
    expect(late.remote_addr).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('counts per address within its window, ignores ports, forgets old failures', () => {
    let now = 0;
    const brake = createFailureBrake({ freeFailures: 2, windowMs: 1_000, minDelayMs: 100, maxDelayMs: 200, now: () => now, random: () => 0.5 });
    expect([brake.failed('198.51.100.7:1'), brake.failed('198.51.100.7:2'), brake.failed('198.51.100.7:3')]).toEqual([0, 0, 150]);
    expect(brake.failed('[2001:db8::1]:4000')).toBe(0);
    now = 5_000;
    expect(brake.failed('198.51.100.7:4')).toBe(0);
  });
});

describe('HLS output path in mode token', () => {
  it('includes the app, so the key of a/<name> cannot write b/<name>', async () => {
    const hlsDir = await tempDir('app-paths');
    const name = uniqueName('h');
    const { server, recorder } = await start({
      auth: { mode: 'token', tokens: new Map([[`a/${name}`, 'ta'], [`b/${name}`, 'tb']]) },
      hls: { store: folderStore(hlsDir), ffmpegPath: 'ffmpeg', segmentSeconds: 1, ladder: [] },
    });
    const publisher = publish(`${server.url}/a/${name}?token=ta`);
    cleanups.push(() => publisher.stop());
    await recorder.waitFor((e) => e.msg === 'publish accepted');
    await until(() => readFile(join(hlsDir, 'streams', 'a', name, 'index.m3u8'), 'utf8').catch(() => undefined));
    expect((await readdir(join(hlsDir, 'streams'))).sort()).toEqual(['a']);
  });
});
