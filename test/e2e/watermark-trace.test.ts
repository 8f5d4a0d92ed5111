/**
 * A leak names its ticket, on `npm start`'s program: a watermarked show published with ffmpeg,
 * two viewers who record its segments from their header-less URLs as a restreamer would, and
 * `npm run trace` naming each copy's code (one after a re-encode at 320×180, CRF 30); a copy of
 * the same picture made elsewhere names nobody; hls.js plays the show across its A/B switches; and
 * after the show, a replay viewer's copy names its code too.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../harness/http';
import { noSeriousAccessibilityFindings } from '../support/axe';
import { browserStory, signInAsOwner } from '../support/browser-story';
import { run, tempDir, until, type Run } from '../support/ingest';

const exec = promisify(execFile);
/** Seconds of show each viewer records: enough for a few candidate sessions (≈ 22 bits) with room for a bad second. */
const RECORD_SECONDS = 40;
/** The show's picture: a Mandelbrot zoom, which never repeats (a copy aligns to one place only) and is the same wherever it is made. */
const PICTURE = 'mandelbrot=size=160x90:rate=25,scale=640:360';

interface Watched {
  played: number;
  stalls: number;
  frames: number;
  error: number | null;
}

interface Traced {
  code: string | null;
  tokenId: string | null;
  label: string | null;
  sessionId: string | null;
  confidence: number;
}

describe('watermark: a leaked copy names its ticket', () => {
  const story = browserStory();
  let publisher: Run | undefined;
  story.atClose(async () => {
    if (publisher?.running()) await publisher.stop();
  });
  let eventId: string;
  let dir: string;
  let playback: Promise<Watched>;
  const codes: Record<'a' | 'b' | 'player' | 'replay', { id: string; code: string; label: string }> = {} as never;

  beforeAll(async () => {
    dir = await tempDir('watermark-e2e-');
    const now = Date.now();
    const event = await story.system.admin('POST', '/api/admin/events', {
      title: 'Watermarked show',
      startsAt: new Date(now - 600_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
      watermark: true,
    });
    eventId = event.id;
    for (const who of ['a', 'b', 'player', 'replay'] as const) {
      const { tokens } = await story.system.admin('POST', `/api/admin/events/${eventId}/tokens`, { count: 1, label: `Viewer ${who}` });
      codes[who] = { id: tokens[0].id, code: tokens[0].code, label: `Viewer ${who}` };
    }
    const { ingest } = await story.system.admin('GET', `/api/admin/events/${eventId}`);
    publisher = run('ffmpeg', [
      '-hide_banner', '-loglevel', 'error', '-re',
      '-f', 'lavfi', '-i', PICTURE, '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-pix_fmt', 'yuv420p', '-c:a', 'aac',
      '-f', 'flv', `${ingest.server}/${ingest.streamKey}`,
    ]);
    await until(async () => ((await call('GET', `${story.system.urls.api}/api/events/${eventId}/status`)).body.status === 'live' ? true : undefined), 250);
    // The viewer on the sofa watches while the restreamers record (one running show for both stories).
    playback = watchInBrowser(codes.player.code);
    playback.catch(() => undefined);
  }, 120_000);

  /** hls.js on the viewer page: 15 s of playing once it has started, with its stalls, frames and any media error. */
  async function watchInBrowser(code: string): Promise<Watched> {
    const page = await (await story.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${story.system.urls.api}/?code=${code}`);
    await page.getByRole('button', { name: 'Watch' }).click();
    await page.waitForFunction(() => {
      const video = document.querySelector('video');
      return video !== null && !video.paused && video.currentTime > 1;
    }, undefined, { timeout: 60_000 });
    return page.evaluate(async () => {
      const video = document.querySelector('video')!;
      let stalls = 0;
      video.addEventListener('waiting', () => stalls++);
      const from = video.currentTime;
      const frames = video.getVideoPlaybackQuality().totalVideoFrames;
      await new Promise((resolve) => setTimeout(resolve, 15_000));
      return { played: video.currentTime - from, stalls, frames: video.getVideoPlaybackQuality().totalVideoFrames - frames, error: video.error?.code ?? null };
    });
  }

  /** A restreamer: validates the code, then fetches every new segment its header-less URL's playlist names, in order. */
  async function record(code: string, seconds: number): Promise<{ file: string; names: string[]; segments: Map<string, Buffer> }> {
    const grant = await call('POST', `${story.system.urls.api}/api/tokens/validate`, { json: { code } });
    expect(grant.status, grant.text).toBe(200);
    const playlist = await mediaPlaylistOf(grant.body.playbackUrl);
    const names: string[] = [];
    const chunks: Buffer[] = [];
    const segments = new Map<string, Buffer>();
    const seen = new Set<string>();
    const deadline = Date.now() + seconds * 1000;
    while (Date.now() < deadline) {
      const answer = await fetch(playlist);
      expect(answer.status).toBe(200);
      for (const uri of uriLines(await answer.text())) {
        if (seen.has(uri)) continue;
        seen.add(uri);
        const segment = await fetch(new URL(uri, playlist));
        expect(segment.status, uri).toBe(200);
        chunks.push(Buffer.from(await segment.arrayBuffer()));
        segments.set(uri, chunks.at(-1)!);
        names.push(uri);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const file = join(dir, `${code}.ts`);
    await writeFile(file, Buffer.concat(chunks));
    return { file, names, segments };
  }

  /** The media playlist a player reaches from the header-less entry URL (the first variant of a multivariant one). */
  async function mediaPlaylistOf(entry: string): Promise<string> {
    const text = await until(async () => {
      const answer = await fetch(entry);
      return answer.status === 200 ? answer.text() : undefined;
    }, 250);
    if (!text.includes('#EXT-X-STREAM-INF')) return entry;
    return mediaPlaylistOf(new URL(uriLines(text)[0]!, entry).toString());
  }

  async function trace(file: string): Promise<{ result: Traced; report: string }> {
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'scripts/trace.ts', file, '--event', eventId, '--api', story.system.urls.api!], {
      env: { ...process.env, STAGEDOOR_USER: 'owner', STAGEDOOR_PASSWORD: story.system.adminPassword },
      maxBuffer: 16 * 1024 * 1024,
    });
    const lines = stdout.trim().split('\n');
    return { result: JSON.parse(lines.at(-1)!) as Traced, report: stdout };
  }

  it('serves each viewer its own A/B sequence and traces both copies to their codes, one after 320×180 CRF 30', async () => {
    const [a, b] = await Promise.all([record(codes.a.code, RECORD_SECONDS), record(codes.b.code, RECORD_SECONDS)]);
    expect(a.names.length).toBeGreaterThanOrEqual(RECORD_SECONDS - 5);
    expect(a.names.every((name) => /\.w\.ts/.test(name))).toBe(true);

    const traceA = await trace(a.file);
    expect(traceA.result, traceA.report).toMatchObject({ code: codes.a.code, tokenId: codes.a.id, label: codes.a.label });
    expect(traceA.result.sessionId).toEqual(expect.any(String));
    expect(traceA.result.confidence).toBeGreaterThan(0.999999);

    // The restreamer's copy: a quarter of the pixels at CRF 30, in another container.
    const reencoded = join(dir, 'b-320x180-crf30.mp4');
    await exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', b.file, '-vf', 'scale=320:180', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '30', '-an', reencoded]);
    const traceB = await trace(reencoded);
    expect(traceB.result, traceB.report).toMatchObject({ code: codes.b.code, tokenId: codes.b.id, label: codes.b.label });

    // The two mix their copies segment by segment to hide: the trace names one of them, never a third.
    const mixed = join(dir, 'mixed.ts');
    const both = a.names.filter((name) => b.segments.has(name));
    expect(both.length).toBeGreaterThanOrEqual(RECORD_SECONDS - 5);
    // Same names in both playlists, other bytes for about half of them: each session's own versions.
    const differing = both.filter((name) => !a.segments.get(name)!.equals(b.segments.get(name)!)).length;
    expect(differing).toBeGreaterThan(both.length / 5);
    expect(differing).toBeLessThan(both.length);
    await writeFile(mixed, Buffer.concat(both.map((name, i) => (i % 2 === 0 ? a.segments : b.segments).get(name)!)));
    const traceMixed = await trace(mixed);
    expect([codes.a.code, codes.b.code, null], traceMixed.report).toContain(traceMixed.result.code);
  }, 240_000);

  it('names nobody for a copy of the same picture made elsewhere', async () => {
    const elsewhere = join(dir, 'elsewhere.mp4');
    await exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', PICTURE, '-t', String(RECORD_SECONDS), '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', elsewhere]);
    const traced = await trace(elsewhere);
    expect(traced.result, traced.report).toMatchObject({ code: null, tokenId: null, label: null, sessionId: null, confidence: 0 });
  }, 120_000);

  it('explains on the event page how to trace a leak, with the command filled in', async () => {
    const admin = await story.adminPage();
    await signInAsOwner(admin, story.system);
    await admin.goto(`${story.system.urls.api}/admin/#/events/${eventId}`);
    const panel = admin.getByRole('region', { name: 'Trace a leak' });
    await panel.waitFor();
    expect(await panel.locator('[data-key="trace-command"]').textContent()).toBe(
      `STAGEDOOR_USER=<your login> STAGEDOOR_PASSWORD=<your password> npm run trace -- <copy.mp4> --event ${eventId} --api ${story.system.urls.api}`,
    );
    expect(await panel.locator('[data-key="trace-state"]').textContent()).toMatch(/^Watermarked since /);
    // The traces so far, newest first, with their verdicts: the copy made elsewhere, the mix, then B's and A's copies.
    const traces = panel.locator('[data-key="trace-results"] li');
    await expect.poll(() => traces.count()).toBe(4);
    const lines = await traces.allTextContents();
    expect(lines[0]).toMatch(/ · Nobody named \(\d+ of \d+ bits agree; \d+ needed among \d+ sessions\)$/);
    expect(lines[2]).toContain(`Named code ${codes.b.code}, label “Viewer b”`);
    expect(lines[3]).toContain(`Named code ${codes.a.code}, label “Viewer a”`);
    await noSeriousAccessibilityFindings(admin, 'trace-leak');
  }, 60_000);

  it('plays in hls.js across the A/B switches without a stall', async () => {
    const watched = await playback;
    // 15 s of a 1 s-segment show cross about seven A/B switches for any session.
    expect(watched.error).toBeNull();
    expect(watched.stalls).toBe(0);
    expect(watched.played).toBeGreaterThan(13);
    expect(watched.frames).toBeGreaterThan(13 * 25 * 0.95);
  });

  it('marks the replay the same way: a copy of the recording names its viewer', async () => {
    await publisher!.stop();
    await until(async () => ((await call('GET', `${story.system.urls.api}/api/events/${eventId}/status`)).body.status === 'recording' ? true : undefined), 250);
    const grant = await call('POST', `${story.system.urls.api}/api/tokens/validate`, { json: { code: codes.replay.code } });
    expect(grant.status, grant.text).toBe(200);
    const playlist = await mediaPlaylistOf(grant.body.playbackUrl);
    const text = await (await fetch(playlist)).text();
    expect(text).toMatch(/#EXT-X-ENDLIST\s*$/);
    const uris = uriLines(text);
    expect(uris.every((uri) => /\.w\.ts/.test(uri))).toBe(true);
    const chunks: Buffer[] = [];
    for (const uri of uris.slice(0, RECORD_SECONDS)) {
      const segment = await fetch(new URL(uri, playlist));
      expect(segment.status, uri).toBe(200);
      chunks.push(Buffer.from(await segment.arrayBuffer()));
    }
    const file = join(dir, 'replay.ts');
    await writeFile(file, Buffer.concat(chunks));
    const traced = await trace(file);
    expect(traced.result, traced.report).toMatchObject({ code: codes.replay.code, tokenId: codes.replay.id, label: codes.replay.label });
  }, 120_000);
});

function uriLines(playlist: string): string[] {
  return playlist.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
}
