/**
 * An SRT publisher's life after the handshake: a dead caller (SIGKILL, silent past SRT's peer idle timeout)
 * is an RTMP drop (the reconnect window keeps the show), and the callback recheck cuts an SRT publisher
 * (its remux and, with it, the SRT connection).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIngestServer, type IngestServer } from '../../ingest-container/src/index';
import { httpServer, logRecorder, uniqueName, type TestHttpServer } from '../support/ingest';
import { publishSrt } from '../support/srt';

const PASS = 'srt-passphrase-0123456789';

describe('SRT publisher life', () => {
  const recorder = logRecorder();
  let allowed = true;
  let callback: TestHttpServer;
  let server: IngestServer;

  beforeAll(async () => {
    callback = await httpServer((_body, _req, res) => {
      res.statusCode = allowed ? 200 : 403;
      res.end(allowed ? JSON.stringify({ ok: true, role: 'primary', srtPassphrase: PASS }) : '{"error":"denied"}');
    });
    server = await startIngestServer({
      listen: { host: '127.0.0.1', port: 0 },
      srt: { listen: { host: '127.0.0.1', port: 0 } },
      auth: { mode: 'callback', url: callback.url, timeoutMs: 2_000 },
      recheckIntervalMs: 500,
      publishGraceMs: 60_000,
      log: recorder.log,
    });
  });

  afterAll(async () => {
    await server?.close();
    await callback?.close();
  });

  it('a dead caller is noticed within 5 s and is a drop: the show waits for the reconnect window', async () => {
    const stream = uniqueName('dead');
    const caller = publishSrt(server.srtUrl!, { streamId: `live/${stream}?token=t`, passphrase: PASS });
    await recorder.waitFor((e) => e.msg === 'publish accepted' && e.stream_key === `live/${stream}`);
    await caller.kill();
    const killedAt = Date.now();
    const ended = await recorder.waitFor((e) => e.msg === 'srt remux ended' && e.srt_end === 'dead');
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    expect(ended.signal).toBe('SIGKILL');
    // No clean stop: the publication is kept for the reconnect window.
    expect(recorder.entries.some((e) => e.msg === 'publish stopped by the publisher' && e.stream_name === stream)).toBe(false);
    expect(recorder.entries.some((e) => e.msg === 'publication ended' && e.stream_name === stream)).toBe(false);
  });

  it('the callback recheck cuts an SRT publisher, and the SRT connection with it', async () => {
    const stream = uniqueName('cut');
    const caller = publishSrt(server.srtUrl!, { streamId: `live/${stream}?token=t`, passphrase: PASS });
    await recorder.waitFor((e) => e.msg === 'publish accepted' && e.stream_key === `live/${stream}`);
    allowed = false;
    const result = await caller.done;
    allowed = true;
    expect(result.code).not.toBe(0);
    await recorder.waitFor((e) => e.msg === 'auth failed' && e.recheck === true && e.stream_key === `live/${stream}`);
    await recorder.waitFor((e) => e.msg === 'publication ended' && e.stream_name === stream);
  });
});

/** Our srt-gate processes (children of this test process). */
function gatePids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
        return ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('srt-gate');
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('SRT conflict', () => {
  const recorder = logRecorder();
  let server: IngestServer;

  beforeAll(async () => {
    server = await startIngestServer({
      listen: { host: '127.0.0.1', port: 0 },
      srt: { listen: { host: '127.0.0.1', port: 0 }, passphrase: PASS },
      auth: { mode: 'none' },
      log: recorder.log,
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('refuses a second caller on a stream already on air with reject reason 1409, at once', async () => {
    const stream = uniqueName('busy');
    const first = publishSrt(server.srtUrl!, { streamId: `live/${stream}`, passphrase: PASS });
    await recorder.waitFor((e) => e.msg === 'publish accepted' && e.stream_key === `live/${stream}`);
    const started = Date.now();
    const second = await publishSrt(server.srtUrl!, { streamId: `live/${stream}`, passphrase: PASS, seconds: 10 }).done;
    expect(second.code).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    await recorder.waitFor((e) => e.msg === 'srt caller refused' && e.reject === 1409);
    expect(first.running()).toBe(true);
    await first.stop();
  });

  it('a gate that dies is started again on the same port', async () => {
    const [pid] = gatePids();
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    await recorder.waitFor((e) => e.msg === 'srt-gate listening again');
    const stream = uniqueName('again');
    const caller = publishSrt(server.srtUrl!, { streamId: `live/${stream}`, passphrase: PASS });
    await recorder.waitFor((e) => e.msg === 'publish accepted' && e.stream_key === `live/${stream}`);
    await caller.stop();
  });
});

describe('SRT and the brute-force brake', () => {
  const recorder = logRecorder();
  let server: IngestServer;

  beforeAll(async () => {
    server = await startIngestServer({
      listen: { host: '127.0.0.1', port: 0 },
      srt: { listen: { host: '127.0.0.1', port: 0 }, passphrase: PASS },
      auth: { mode: 'token', tokens: new Map([['live/braked', 'good-token']]) },
      // One free failure, then a minute's pause: long enough that the next caller surely meets it.
      failureBrake: { freeFailures: 1, minDelayMs: 60_000, maxDelayMs: 60_000 },
      log: recorder.log,
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('never waits in the handshake: a braked address is refused at once, even with the good token', async () => {
    for (let i = 0; i < 2; i++) await publishSrt(server.srtUrl!, { streamId: 'live/braked?token=wrong', passphrase: PASS, seconds: 5 }).done;
    const started = Date.now();
    const result = await publishSrt(server.srtUrl!, { streamId: 'live/braked?token=good-token', passphrase: PASS, seconds: 5 }).done;
    expect(result.code).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
    await recorder.waitFor((e) => e.msg === 'srt caller refused' && e.reject === 1401 && e.why === 'too many auth failures from this address');
  });
});
