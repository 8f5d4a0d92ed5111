/**
 * Each auth mode with a good, a bad and a missing token, for publish and
 * play, with ffmpeg as the client: it prints the description of an
 * error-level status as "Server error: …"; the exact status code is read
 * with node-media-server's RTMP client.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Context from 'node-media-server/src/core/context.js';
import { startIngestServer, type AuthConfig, type IngestServer } from '../../ingest-container/src/index';
import { firstStatus, httpServer, logRecorder, play, publish, tempDir, uniqueName, type Run, type TestHttpServer } from '../support/ingest';

const GOOD = 'good-token-1';

type Mode = 'token' | 'file' | 'callback';

describe.each<Mode>(['token', 'file', 'callback'])('auth mode %s', (mode) => {
  const stream = uniqueName('s');
  const unconfigured = uniqueName('u');
  const recorder = logRecorder();
  let callback: TestHttpServer | undefined;
  let server: IngestServer;
  let base: string;
  let publisher: Run;

  beforeAll(async () => {
    let auth: AuthConfig;
    if (mode === 'token') auth = { mode, tokens: new Map([[`live/${stream}`, GOOD]]) };
    else if (mode === 'file') {
      const path = join(await tempDir('tokens'), 'tokens.json');
      await writeFile(path, JSON.stringify({ [`live/${stream}`]: GOOD }));
      auth = { mode, path };
    } else {
      callback = await httpServer((body, _req, res) => {
        res.statusCode = body.stream_key === `live/${stream}` && body.token === GOOD ? 200 : 403;
        res.end(res.statusCode === 200 ? '{}' : '{"error":"denied"}');
      });
      auth = { mode, url: callback.url, timeoutMs: 2_000 };
    }
    server = await startIngestServer({ listen: { host: '127.0.0.1', port: 0 }, auth, log: recorder.log });
    base = `${server.url}/live`;
    publisher = publish(`${base}/${stream}?token=${GOOD}`);
    await recorder.waitFor((e) => e.msg === 'publish accepted' && e.stream_key === `live/${stream}`);
  });

  afterAll(async () => {
    await publisher?.stop();
    await server?.close();
    await callback?.close();
  });

  it('accepts a publish with the good token and keeps it on air', () => {
    expect(publisher.running()).toBe(true);
  });

  it('plays with the good token', async () => {
    const result = await play(`${base}/${stream}?token=${GOOD}`);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it.each([
    ['publish', 'bad', '?token=wrong', 'authentication failed: invalid credentials'],
    ['publish', 'missing', '', 'authentication failed: token missing'],
    ['play', 'bad', '?token=wrong', 'authentication failed: invalid credentials'],
    ['play', 'missing', '', 'authentication failed: token missing'],
  ] as const)('denies %s with a %s token: the client sees the Unauthorized status', async (action, _kind, query, sentinel) => {
    // Publish to a fresh name, so a rejection cannot be confused with "already publishing".
    const name = action === 'publish' ? uniqueName('p') : stream;
    const url = `${base}/${name}${query}`;
    const result = action === 'publish' ? await publish(url, 2).done : await play(url);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`Server error: ${sentinel}`);
    const status = await firstStatus(url, action);
    expect(status).toEqual({
      code: action === 'publish' ? 'NetStream.Publish.Unauthorized' : 'NetStream.Play.Unauthorized',
      level: 'error',
      description: sentinel,
    });
    // A rejected publish leaves nothing behind: no broadcast for the name.
    if (action === 'publish') expect(Context.broadcasts.has(`/live/${name}`)).toBe(false);
  });

  it('denies a stream key that has no token configured', async () => {
    const result = await publish(`${base}/${unconfigured}?token=${GOOD}`, 2).done;
    expect(result.stderr).toContain('Server error: authentication failed: invalid credentials');
    expect(Context.broadcasts.has(`/live/${unconfigured}`)).toBe(false);
  });

  if (mode === 'callback') {
    it('POSTs the spec body once per publish and per play', () => {
      const bodies = callback!.requests.map((r) => r.body);
      const first = bodies.find((b) => b.action === 'publish' && b.stream_name === stream);
      expect(first).toEqual({
        action: 'publish',
        app: 'live',
        stream_name: stream,
        stream_key: `live/${stream}`,
        token: GOOD,
        remote_addr: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      });
      expect(bodies).toContainEqual(expect.objectContaining({ action: 'play', stream_key: `live/${stream}`, token: GOOD }));
      expect(bodies).toContainEqual(expect.objectContaining({ action: 'play', stream_key: `live/${stream}`, token: '' }));
      expect(callback!.requests[0]!.headers['content-type']).toBe('application/json');
    });
  }
});

describe('auth mode none', () => {
  it('publishes and plays without a token', async () => {
    const server = await startIngestServer({ listen: { host: '127.0.0.1', port: 0 }, auth: { mode: 'none' }, log: logRecorder().log });
    const name = uniqueName('n');
    const publisher = publish(`${server.url}/live/${name}`);
    try {
      const result = await play(`${server.url}/live/${name}`);
      expect(result.code).toBe(0);
      expect(publisher.running()).toBe(true);
    } finally {
      await publisher.stop();
      await server.close();
    }
  });
});

describe('a second publisher for a stream on air', () => {
  it('is refused with BadName and leaves the first one on air', async () => {
    const recorder = logRecorder();
    const server = await startIngestServer({ listen: { host: '127.0.0.1', port: 0 }, auth: { mode: 'none' }, log: recorder.log });
    const url = `${server.url}/live/${uniqueName('d')}`;
    const first = publish(url);
    try {
      await recorder.waitFor((e) => e.msg === 'publish accepted');
      expect(await firstStatus(url, 'publish')).toEqual({
        code: 'NetStream.Publish.BadName',
        level: 'error',
        description: 'stream already publishing',
      });
      expect((await play(url)).code).toBe(0);
      expect(first.running()).toBe(true);
    } finally {
      await first.stop();
      await server.close();
    }
  });
});
