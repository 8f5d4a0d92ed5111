/**
 * The program as the container runs it (`npm run ingest -- <flags>`), as a
 * child process: SIGHUP swaps the token file while an authenticated stream
 * stays up (and a broken file keeps the old map); SIGTERM ends the stream
 * cleanly, so its playlist gets #EXT-X-ENDLIST, and the process exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { play, publish, tempDir, until, type Run } from '../support/ingest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('ingest program', () => {
  let child: ChildProcess;
  let logs: Record<string, any>[] = [];
  let base: string;
  let tokenFile: string;
  let hlsDir: string;
  let publisher: Run;
  const waitLog = (match: (e: Record<string, any>) => boolean, from = 0) => until(() => logs.slice(from).find(match), 50);

  beforeAll(async () => {
    const dir = await tempDir('proc');
    tokenFile = join(dir, 'tokens.json');
    hlsDir = join(dir, 'hls');
    await writeFile(tokenFile, JSON.stringify({ 'live/a': 'token-a', 'live/b': 'token-b' }));
    child = spawn(
      process.execPath,
      ['--import', 'tsx', 'ingest-container/src/main.ts', '-listen', '127.0.0.1:0', '-auth-mode', 'file', '-auth-file', tokenFile, '-hls-dir', hlsDir, '-hls-segment', '1s'],
      { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, MEDIA_BUCKET: '' } },
    );
    createInterface({ input: child.stderr! }).on('line', (line) => {
      try {
        logs.push(JSON.parse(line));
      } catch {
        logs.push({ msg: line });
      }
    });
    const listening = await waitLog((e) => e.msg === 'rtmp ingest listening');
    base = `${listening.url}/live`;
    publisher = publish(`${base}/a?token=token-a`);
    await waitLog((e) => e.msg === 'publish accepted' && e.stream_key === 'live/a');
  });

  afterAll(async () => {
    if (publisher?.running()) await publisher.stop();
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('SIGHUP swaps the token map; the stream authenticated before stays up', async () => {
    await writeFile(tokenFile, JSON.stringify({ 'live/a': 'token-a2', 'live/c': 'token-c' }));
    const from = logs.length;
    child.kill('SIGHUP');
    await waitLog((e) => e.msg === 'auth file reloaded', from);

    // New requests use the new map at once.
    expect((await publish(`${base}/c?token=token-c`, 1).done).code).toBe(0);
    expect((await publish(`${base}/b?token=token-b`, 1).done).stderr).toContain('Server error: authentication failed: invalid credentials');
    expect((await play(`${base}/a?token=token-a`)).stderr).toContain('Server error: authentication failed: invalid credentials');
    // Stream a was not re-checked: its publisher is still on air and plays with the new token.
    expect(publisher.running()).toBe(true);
    expect((await play(`${base}/a?token=token-a2`)).code).toBe(0);
  });

  it('a broken token file keeps the previous map', async () => {
    await writeFile(tokenFile, '{ "live/a": ');
    const from = logs.length;
    child.kill('SIGHUP');
    const failed = await waitLog((e) => e.msg === 'auth file reload failed, previous tokens kept', from);
    expect(failed.error).toContain('not valid JSON');
    expect((await play(`${base}/a?token=token-a2`)).code).toBe(0);
    expect(publisher.running()).toBe(true);
  });

  it('SIGTERM ends the stream with a final playlist and exits 0', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const playlist = await readFile(join(hlsDir, 'streams', 'live', 'a', 'index.m3u8'), 'utf8');
    expect(playlist).toMatch(/#EXT-X-ENDLIST\s*$/);
    for (const segment of playlist.split('\n').filter((line) => line.endsWith('.ts'))) {
      await expect(readFile(join(hlsDir, 'streams', 'live', 'a', segment))).resolves.toBeInstanceOf(Buffer);
    }
    // The publisher was disconnected by the shutdown.
    expect((await publisher.done).code).not.toBeNull();
  });
});
