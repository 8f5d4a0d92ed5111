import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';
import { viewerOfNewEvent } from '../../harness/viewer-scenario';

/**
 * A real publish (ffmpeg → RTMP ingest → local S3) played through the media
 * server: the keys the ingest writes are the ones the media server serves.
 */
let system: LocalSystem;
let publisher: ChildProcess | undefined;
let manifestUrl: string;
let playbackToken: string;

const withToken = (url: string | URL) => fetch(url, { headers: { authorization: `Bearer ${playbackToken}` } });

beforeAll(async () => {
  system = await startLocalSystem();
  const viewer = await viewerOfNewEvent(system, 'Live HLS');
  playbackToken = viewer.playbackToken;
  manifestUrl = viewer.manifestUrl;

  publisher = spawn(
    'ffmpeg',
    ['-hide_banner', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25', '-f', 'lavfi', '-i', 'sine',
      '-t', '30', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-c:a', 'aac', '-f', 'flv',
      `${system.urls.rtmp}/${viewer.ingest.streamKey}`],
    { stdio: 'ignore' },
  );
  // The first segment appears a few seconds after publish starts; the hook timeout bounds the wait.
  while (!(await livePlaylistText())?.includes('.ts')) await new Promise((resolve) => setTimeout(resolve, 250));
});

/** The live media playlist the entry playlist (multivariant while live) names. */
async function livePlaylistText(): Promise<string | undefined> {
  const entry = await withToken(manifestUrl);
  if (entry.status !== 200) return undefined;
  const variant = (await entry.text()).split('\n').find((line) => line.endsWith('.m3u8'));
  const media = variant && (await withToken(new URL(variant, manifestUrl)));
  return media && media.status === 200 ? media.text() : undefined;
}

afterAll(async () => {
  publisher?.kill('SIGKILL');
  await system?.stop();
});

describe('live HLS through the media server', () => {
  it('serves the entry playlist, the live playlist it names and its first segment with the right headers', async () => {
    const manifest = await withToken(manifestUrl);
    expect(manifest.status).toBe(200);
    expect(manifest.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(manifest.headers.get('cache-control')).toBe('no-cache');
    const variant = (await manifest.text()).split('\n').find((line) => line.endsWith('.m3u8'))!;
    const media = await withToken(new URL(variant, manifestUrl));
    expect(media.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(media.headers.get('cache-control')).toBe('no-cache');
    const segmentName = (await media.text()).split('\n').find((line) => line.endsWith('.ts'))!;

    const segment = await withToken(new URL(segmentName, manifestUrl));
    expect(segment.status).toBe(200);
    expect(segment.headers.get('content-type')).toBe('video/mp2t');
    expect(segment.headers.get('cache-control')).toContain('immutable');
    // MPEG-TS packets start with the sync byte 0x47.
    expect(new Uint8Array(await segment.arrayBuffer())[0]).toBe(0x47);
  });

  it('accepts the token as a query parameter and refuses a request without one', async () => {
    expect((await fetch(`${manifestUrl}?token=${playbackToken}`)).status).toBe(200);
    expect((await fetch(manifestUrl)).status).toBe(401);
  });
});
