import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call } from '../../harness/http';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { viewerOfNewEvent, type Viewer } from '../../harness/viewer-scenario';

/**
 * The header-less `playbackUrl` through the running local system: a real
 * publish with an adaptive ladder, fetched with no header and no cookie (as
 * Safari's native player, AirPlay, TVs and VLC do), played by ffmpeg (and VLC
 * when installed), and refused once its session, code or event ends.
 */
const run = promisify(execFile);
/** The bound this test holds the edge to: a refusal reaches it within 3 s (edge-sync follows the table's stream). */
const REFUSAL_WITHIN_MS = 3_000;
const VLC = '/usr/bin/cvlc';

let system: LocalSystem;
let publisher: ChildProcess | undefined;
let viewer: Viewer;
let nextIp = 20;
const freshIp = () => `127.0.9.${nextIp++}`;

interface Watcher {
  code: string;
  jwt: string;
  /** From validate: lives as long as the JWT. */
  shortUrl: string;
  /** From POST /api/playback/url: lives until access ends. */
  longUrl: string;
}

async function validate(code: string): Promise<{ status: number; body: any }> {
  return call('POST', `${system.urls.api}/api/tokens/validate`, { json: { code }, from: freshIp() });
}

/** A viewer on `code` holding both URLs of its session. */
async function watch(code: string): Promise<Watcher> {
  const grant = await validate(code);
  expect(grant.status, JSON.stringify(grant.body)).toBe(200);
  const jwt = grant.body.playbackToken as string;
  const long = await call('POST', `${system.urls.api}/api/playback/url`, { headers: bearer(jwt) });
  expect(long.status, JSON.stringify(long.body)).toBe(200);
  return { code, jwt, shortUrl: grant.body.playbackUrl, longUrl: long.body.playbackUrl };
}

async function newCode(label: string): Promise<{ id: string; code: string }> {
  const { tokens } = await system.admin('POST', `/api/admin/events/${viewer.eventId}/tokens`, { count: 1, label });
  return tokens[0];
}

const status = async (url: string) => (await fetch(url)).status;

/** Polls until `url` answers `expected`; fails once `withinMs` have passed without it. */
async function answersWithin(url: string, expected: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = await status(url);
    if (last === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} still answered ${last} ${withinMs} ms later, not ${expected}`);
}

function uris(playlist: string): string[] {
  return playlist.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

beforeAll(async () => {
  // A short session timeout so that a second device can take a code over within the test.
  system = await startLocalSystem({ INGEST_HLS_LADDER: '240:400,160:200', SESSION_TIMEOUT_SECONDS: '4' });
  viewer = await viewerOfNewEvent(system, 'Header-less playback');
  publisher = spawn(
    'ffmpeg',
    ['-hide_banner', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25', '-f', 'lavfi', '-i', 'sine',
      '-t', '180', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '50', '-c:a', 'aac', '-f', 'flv',
      `${system.urls.rtmp}/${viewer.ingest.streamKey}`],
    { stdio: 'ignore' },
  );
  // Wait for every variant of the ladder to have segments; the hook timeout bounds the wait.
  const headers = { authorization: `Bearer ${viewer.playbackToken}` };
  for (;;) {
    const master = await fetch(viewer.manifestUrl, { headers });
    if (master.status === 200) {
      const variants = uris(await master.text());
      const ready = await Promise.all(
        variants.map(async (variant) => {
          const media = await fetch(new URL(variant, viewer.manifestUrl), { headers });
          return media.status === 200 && uris(await media.text()).length >= 2;
        }),
      );
      if (variants.length > 0 && ready.every(Boolean)) break;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 90_000);

afterAll(async () => {
  publisher?.kill('SIGKILL');
  await system?.stop();
});

describe('playbackUrl: players that send no header', () => {
  it('loads the master playlist, every variant of the ladder and a segment of each, with no header at all', async () => {
    const { longUrl, shortUrl } = await watch((await newCode('no header')).code);
    for (const url of [shortUrl, longUrl]) {
      expect(new URL(url).origin).toBe(system.urls.media);
      const master = await fetch(url);
      expect(master.status).toBe(200);
      expect(master.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
      const text = await master.text();
      expect(text).toContain('#EXT-X-STREAM-INF');
      const variants = uris(text);
      expect(variants).toHaveLength(2);
      for (const variant of variants) {
        // Relative URIs resolve under the credential, as a native player resolves them.
        const variantUrl = new URL(variant, url);
        expect(variantUrl.pathname).toContain('/~');
        const media = await fetch(variantUrl);
        expect(media.status).toBe(200);
        const segment = await fetch(new URL(uris(await media.text()).at(-1)!, variantUrl));
        expect(segment.status).toBe(200);
        expect(segment.headers.get('content-type')).toBe('video/mp2t');
        expect(new Uint8Array(await segment.arrayBuffer())[0]).toBe(0x47);
      }
    }
  });

  it('ffmpeg plays 6 s from it', async () => {
    const { longUrl } = await watch((await newCode('ffmpeg')).code);
    const { stderr } = await run('ffmpeg', ['-hide_banner', '-nostdin', '-i', longUrl, '-t', '6', '-f', 'null', '-'], { timeout: 60_000 });
    const times = [...stderr.matchAll(/time=(\d+):(\d+):(\d+\.\d+)/g)].map(([, h, m, s]) => Number(h) * 3600 + Number(m) * 60 + Number(s));
    expect(Math.max(...times)).toBeGreaterThanOrEqual(5.9);
    expect(stderr).toMatch(/Stream #0:\d+.*Video: h264/);
  }, 90_000);

  it.skipIf(!existsSync(VLC))('VLC plays 6 s from it', async () => {
    const { longUrl } = await watch((await newCode('vlc')).code);
    // VLC refuses to run as root: drop to nobody when the tests run as root (CI containers).
    const command = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--', VLC] : [VLC];
    // Headless: dummy outputs (the decoders still run), stop after 6 s; -vv logs each request, answer and decoder.
    const { stdout, stderr } = await run(
      command[0]!,
      [...command.slice(1), '-I', 'dummy', '--vout', 'dummy', '--aout', 'dummy', '--run-time', '6', '--play-and-exit', '-vv', longUrl],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    const log = stdout + stderr;
    const answers = [...log.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));
    expect(answers.length).toBeGreaterThan(3);
    expect(answers.every((answer) => answer === 200), `answers: ${answers.join(' ')}`).toBe(true);
    expect([...log.matchAll(/Retrieving \S+\/~[^/]+\/\S+\.ts/g)].length).toBeGreaterThanOrEqual(3);
    expect(log).toMatch(/using video decoder module "avcodec"/);
    expect(log).toMatch(/using audio decoder module/);
  }, 90_000);

  it('is refused on another event\'s path', async () => {
    const { longUrl } = await watch((await newCode('moved')).code);
    const other = await viewerOfNewEvent(system, 'Another show');
    const moved = longUrl.replace(`/streams/${viewer.eventId}/`, `/streams/${other.eventId}/`);
    expect(await status(moved)).toBe(403);
    expect(await status(longUrl)).toBe(200);
  });

  it('is refused within 3 s after release', async () => {
    const watcher = await watch((await newCode('release')).code);
    expect(await status(watcher.longUrl)).toBe(200);
    expect((await call('POST', `${system.urls.api}/api/playback/release`, { headers: bearer(watcher.jwt) })).status).toBe(200);
    await answersWithin(watcher.longUrl, 403, REFUSAL_WITHIN_MS);
    expect(await status(watcher.shortUrl)).toBe(403);
  });

  it('is refused within 3 s after a second device takes the code over; the new device plays', async () => {
    const first = await watch((await newCode('takeover')).code);
    expect(await status(first.longUrl)).toBe(200);
    // The first device stops sending heartbeats; once its session timed out another device may claim the code.
    let second = await validate(first.code);
    while (second.status === 409) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      second = await validate(first.code);
    }
    expect(second.status).toBe(200);
    await answersWithin(first.longUrl, 403, REFUSAL_WITHIN_MS);
    expect(await status(second.body.playbackUrl)).toBe(200);
  });

  it('is refused within 3 s after revoke; works again after unrevoke, also for a new session', async () => {
    const token = await newCode('revoke');
    const watcher = await watch(token.code);
    await system.admin('PATCH', `/api/admin/tokens/${token.id}/revoke`);
    await answersWithin(watcher.longUrl, 403, REFUSAL_WITHIN_MS);
    expect(await status(watcher.shortUrl)).toBe(403);
    await system.admin('PATCH', `/api/admin/tokens/${token.id}/unrevoke`);
    await answersWithin(watcher.longUrl, 200, REFUSAL_WITHIN_MS);
    await call('POST', `${system.urls.api}/api/playback/release`, { headers: bearer(watcher.jwt) });
    const again = await watch(token.code);
    await answersWithin(again.longUrl, 200, REFUSAL_WITHIN_MS);
    await answersWithin(watcher.longUrl, 403, REFUSAL_WITHIN_MS);
  });

  it('is refused within 3 s after deactivate; works again after activate for a new session', async () => {
    const token = await newCode('deactivate');
    const watcher = await watch(token.code);
    await system.admin('PATCH', `/api/admin/events/${viewer.eventId}/deactivate`);
    try {
      await answersWithin(watcher.longUrl, 403, REFUSAL_WITHIN_MS);
      expect(await status(watcher.shortUrl)).toBe(403);
    } finally {
      await system.admin('PATCH', `/api/admin/events/${viewer.eventId}/activate`);
    }
    await call('POST', `${system.urls.api}/api/playback/release`, { headers: bearer(watcher.jwt) });
    const again = await watch(token.code);
    await answersWithin(again.longUrl, 200, REFUSAL_WITHIN_MS);
  });
});
