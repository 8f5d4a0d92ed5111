/**
 * SRT callers (ffmpeg) against every auth mode: good, wrong and missing tokens and passphrases, the
 * callback body, SIGHUP reload, the reject reason a refused caller sees at once, m=request refused.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIngestServer, type AuthConfig, type IngestServer } from '../../ingest-container/src/index';
import { httpServer, logRecorder, tempDir, uniqueName, type TestHttpServer } from '../support/ingest';
import { publishSrt } from '../support/srt';

const GOOD = 'good-srt-token-1';
const PASS = 'srt-passphrase-0123456789';
type Mode = 'none' | 'token' | 'file' | 'callback';

/** A refused caller: ffmpeg gives up at the handshake (well before any timeout) and libsrt names the rejection. */
async function refusedAt(base: string, streamId: string, passphrase: string | undefined) {
  const started = Date.now();
  const result = await publishSrt(base, { streamId, passphrase, seconds: 10 }).done;
  return { ...result, ms: Date.now() - started };
}

describe.each<Mode>(['none', 'token', 'file', 'callback'])('SRT, auth mode %s', (mode) => {
  const stream = uniqueName('s');
  const recorder = logRecorder();
  let callback: TestHttpServer | undefined;
  let hook: TestHttpServer;
  let server: IngestServer;
  let tokenFile = '';

  beforeAll(async () => {
    hook = await httpServer((_body, _req, res) => res.end());
    let auth: AuthConfig = { mode: 'none' };
    if (mode === 'token') auth = { mode, tokens: new Map([[`live/${stream}`, GOOD]]) };
    if (mode === 'file') {
      tokenFile = join(await tempDir('srt-tokens'), 'tokens.json');
      await writeFile(tokenFile, JSON.stringify({ [`live/${stream}`]: GOOD }));
      auth = { mode, path: tokenFile };
    }
    if (mode === 'callback') {
      callback = await httpServer((body, _req, res) => {
        if (body.stream_name.startsWith('down')) res.statusCode = 503;
        else res.statusCode = body.protocol === 'srt' && body.stream_key === `live/${stream}` && body.token === GOOD ? 200 : 403;
        res.end(res.statusCode === 200 ? JSON.stringify({ ok: true, role: 'primary', srtPassphrase: PASS }) : '{"error":"denied"}');
      });
      auth = { mode, url: callback.url, timeoutMs: 2_000 };
    }
    server = await startIngestServer({
      listen: { host: '127.0.0.1', port: 0 },
      srt: { listen: { host: '127.0.0.1', port: 0 }, ...(mode === 'callback' ? {} : { passphrase: PASS }) },
      auth,
      webhooks: { auth_failed: [hook.url] },
      // Every refusal here comes from one address: the brake would turn later ones into lockouts.
      failureBrake: { freeFailures: 1_000 },
      log: recorder.log,
    });
  });

  afterAll(async () => {
    await server?.close();
    await callback?.close();
    await hook?.close();
  });

  it('admits the good token and passphrase as the SRT caller, and a clean stop ends the publish', async () => {
    expect(server.srtUrl).toMatch(/^srt:\/\/127\.0\.0\.1:\d+$/);
    const caller = publishSrt(server.srtUrl!, { streamId: `#!::r=live/${stream},m=publish,token=${GOOD}`, passphrase: PASS });
    const accepted = await recorder.waitFor((e) => e.msg === 'publish accepted' && e.stream_key === `live/${stream}`);
    const admitted = recorder.entries.find((e) => e.msg === 'srt caller admitted' && e.stream_key === `live/${stream}`)!;
    // The publish counts as the SRT caller (its UDP address), not as the loopback remux.
    expect(accepted.remote_addr).toBe(admitted.remote_addr);
    expect(caller.running()).toBe(true);
    await caller.stop();
    await recorder.waitFor((e) => e.msg === 'publish stopped by the publisher' && e.stream_name === stream);
    if (mode === 'callback') {
      const body = callback!.requests.find((r) => r.body.token === GOOD)!.body;
      expect(body).toEqual({ action: 'publish', app: 'live', stream_name: stream, stream_key: `live/${stream}`, token: GOOD, remote_addr: admitted.remote_addr, protocol: 'srt' });
      expect(body.remote_addr).toMatch(/^127\.0\.0\.1:\d+$/);
    }
  });

  it('takes the RTMP stream key form of the stream id too', async () => {
    const caller = publishSrt(server.srtUrl!, { streamId: `live/${stream}?token=${GOOD}`, passphrase: PASS });
    await recorder.waitFor((e) => e.msg === 'publish accepted' && e.stream_key === `live/${stream}` && e.remote_addr !== undefined && recorder.entries.filter((x) => x.msg === 'publish accepted').length >= 2);
    await caller.stop();
  });

  it.skipIf(mode === 'none').each([
    ['wrong', 'wrong-token'],
    ['missing', undefined],
  ])('refuses a %s token in the handshake with reject reason 1401 (unauthorized)', async (_kind, token) => {
    const streamId = `#!::r=live/${stream},m=publish${token ? `,token=${token}` : ''}`;
    const result = await refusedAt(server.srtUrl!, streamId, PASS);
    expect(result.code).not.toBe(0);
    expect(result.ms).toBeLessThan(3_000);
    expect(result.stderr).toContain('Application-defined rejection reason');
    const refused = await recorder.waitFor((e) => e.msg === 'srt caller refused' && e.reject === 1401 && e.why === (token ? 'authentication failed: invalid credentials' : 'authentication failed: token missing'));
    expect(refused).toBeDefined();
    await until(() => hook.requests.find((r) => r.body.action === 'publish' && r.body.stream_name === stream && r.body.remote_addr === refused.remote_addr));
  });

  it.each([
    ['wrong', 'wrong-passphrase-000'],
    ['missing', undefined],
  ])('fails the handshake of a %s passphrase', async (_kind, passphrase) => {
    const result = await refusedAt(server.srtUrl!, `#!::r=live/${stream},m=publish,token=${GOOD}`, passphrase);
    expect(result.code).not.toBe(0);
    expect(result.ms).toBeLessThan(6_000);
    expect(result.stderr).toMatch(/Password|password|secret|Connection.*failed/);
  });

  it('refuses m=request with reject reason 1405 (bad mode)', async () => {
    const result = await refusedAt(server.srtUrl!, `#!::r=live/${stream},m=request,token=${GOOD}`, PASS);
    expect(result.code).not.toBe(0);
    expect(result.ms).toBeLessThan(3_000);
    await recorder.waitFor((e) => e.msg === 'srt caller refused' && e.reject === 1405);
  });

  it.runIf(mode === 'callback')('fails closed: a callback that cannot answer gives reject reason 1503', async () => {
    const result = await refusedAt(server.srtUrl!, `#!::r=live/down${stream},m=publish,token=${GOOD}`, PASS);
    expect(result.code).not.toBe(0);
    await recorder.waitFor((e) => e.msg === 'srt caller refused' && e.reject === 1503);
  });

  it.runIf(mode === 'file')('SIGHUP reload: the new token admits, the old one is refused', async () => {
    await writeFile(tokenFile, JSON.stringify({ [`live/${stream}`]: 'rotated-token-2' }));
    await server.reloadAuth();
    const old = await refusedAt(server.srtUrl!, `#!::r=live/${stream},m=publish,token=${GOOD}`, PASS);
    expect(old.code).not.toBe(0);
    const caller = publishSrt(server.srtUrl!, { streamId: `#!::r=live/${stream},m=publish,token=rotated-token-2`, passphrase: PASS });
    await recorder.waitFor((e) => e.msg === 'srt caller admitted' && e.stream_key === `live/${stream}` && recorder.entries.filter((x) => x.msg === 'srt caller admitted').length >= 3);
    await caller.stop();
  });
});

async function until<T>(probe: () => T | undefined): Promise<T> {
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
