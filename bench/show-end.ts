/**
 * How soon a show ends after its publisher is gone: publisher gone → the
 * platform told the show ended (lease released, after the final VOD playlist is stored). A
 * clean stop (ffmpeg's normal exit: FCUnpublish + deleteStream) against a
 * dropped connection (SIGKILL), which waits out the reconnect window
 * (RECONNECT_S, default 5 s here; 30 s in production) as the baseline, in the
 * same run; medians of RUNS each. Our ingest on loopback, HLS to a folder.
 *   npx tsx bench/show-end.ts        (RUNS=5, RECONNECT_S=5)
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, folderStore, startIngestServer } from '../ingest-container/src/index';
import { median, table } from './lib/stats';
import { removeTempDirs, tempDir } from './lib/ingest-support';
import { benchmark, owned } from './lib/cleanup';

const RUNS = Math.min(Number(process.env.RUNS || 5), 20);
const RECONNECT_S = Number(process.env.RECONNECT_S || 5);
const ON_AIR_S = 6;

const endedAt = new Map<string, number>();
const platform = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const eventId = decodeURIComponent(/streams\/([^/]+)\/lease/.exec(req.url ?? '')?.[1] ?? '');
    if (JSON.parse(body).action === 'release') endedAt.set(eventId, performance.now());
    res.end('{}');
  });
});
await benchmark(async (defer) => {
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
  defer(() => platform.close());
  defer(removeTempDirs);
  const hlsDir = await tempDir('show-end');
  const server = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'none' },
    hls: { store: folderStore(hlsDir), ffmpegPath: process.env.FFMPEG_PATH || 'ffmpeg', segmentSeconds: 2, ladder: [] },
    platform: { apiUrl: `http://127.0.0.1:${(platform.address() as AddressInfo).port}`, apiKey: 'bench' },
    publishGraceMs: RECONNECT_S * 1000,
    log: createLogger('error'),
  });
  defer(() => server.close());

  async function oneShow(how: 'clean stop' | 'dropped', run: number): Promise<number> {
    const stream = `end${run}${how === 'dropped' ? 'd' : 'c'}${Date.now().toString(36)}`;
    const args = ['-hide_banner', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25', '-f', 'lavfi', '-i', 'sine',
      ...(how === 'clean stop' ? ['-t', String(ON_AIR_S)] : []), '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-c:a', 'aac', '-f', 'flv', `${server.url}/live/${stream}`];
    const publisher = owned(spawn('ffmpeg', args, { stdio: 'ignore' }));
    const exited = new Promise<void>((resolve) => publisher.once('exit', () => resolve()));
    if (how === 'dropped') setTimeout(() => publisher.kill('SIGKILL'), ON_AIR_S * 1000);
    await exited;
    const goneAt = performance.now();
    while (!endedAt.has(stream)) await new Promise((resolve) => setTimeout(resolve, 20));
    return endedAt.get(stream)! - goneAt;
  }

  const results: Record<string, number[]> = { 'clean stop': [], dropped: [] };
  for (let run = 0; run < RUNS; run++) {
    for (const how of ['clean stop', 'dropped'] as const) {
      results[how]!.push(await oneShow(how, run));
      process.stderr.write('.');
    }
  }
  process.stderr.write('\n');
  const clean = median(results['clean stop']!);
  const dropped = median(results.dropped!);
  console.log(`publisher gone → lease released, median of ${RUNS} (reconnect window ${RECONNECT_S} s)`);
  console.log(table([
    { publisher: 'clean stop (FCUnpublish/deleteStream)', 'median ms': Math.round(clean), 'max ms': Math.round(Math.max(...results['clean stop']!)), 'vs dropped': `${(clean / dropped).toFixed(2)}x` },
    { publisher: 'dropped connection (baseline)', 'median ms': Math.round(dropped), 'max ms': Math.round(Math.max(...results.dropped!)), 'vs dropped': '1.00x' },
  ]));
});
