/**
 * Publish start (ffmpeg spawned) → first live playlist stored, with 2 s
 * segments: our ingest writing to a folder and to the embedded S3, nginx-rtmp
 * writing to a folder, in the same run, median of RUNS each, and the ratio
 * ours/nginx (aim: ours ≤ 3 s). Loopback only; each run a fresh stream name.
 *   npx tsx bench/ingest-first-playlist.ts        (RUNS=5 by default)
 */
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startEmbeddedS3 } from '../local/embedded-s3';
import { s3Store } from '../ingest-container/src/index';
import { median, percentile, table } from './lib/stats';
import { OUR_LIVE_PLAYLIST, readText, ratio, sleep, startNginx, startOurs, startPublisher, stopProcess, removeTempDirs, tempDir, type BenchServer } from './lib/ingest-support';
import { benchmark } from './lib/cleanup';

const RUNS = Math.min(Number(process.env.RUNS || 5), 20);
const GIVE_UP_MS = 15_000;

async function firstPlaylistMs(server: BenchServer, stored: (stream: string) => Promise<boolean>, run: number): Promise<number> {
  const stream = `fp${run}x${Date.now().toString(36)}`;
  const started = performance.now();
  const publisher = startPublisher(`${server.url}/${stream}`, { seconds: 8 });
  try {
    while (performance.now() - started < GIVE_UP_MS) {
      if (await stored(stream)) return performance.now() - started;
      await sleep(20);
    }
    return NaN;
  } finally {
    await stopProcess(publisher);
  }
}

async function measure(server: BenchServer, stored: (stream: string) => Promise<boolean>) {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    times.push(await firstPlaylistMs(server, stored, run));
    process.stderr.write('.');
  }
  await server.close();
  const sorted = times.filter(Number.isFinite).sort((a, b) => a - b);
  return { server: server.name, median: median(sorted), p90: percentile(sorted, 90), misses: times.length - sorted.length };
}

async function main() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const inFolder = (server: BenchServer) => async (stream: string) => (await readText(server.playlistPath(stream))) !== undefined;

  const oursDir = await tempDir('ours');
  const ours = await startOurs({ hlsDir: oursDir });
  const oursFolder = await measure(ours, inFolder(ours));

  const s3 = await startEmbeddedS3({ buckets: ['bench-media'] });
  const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const oursS3 = await startOurs({ store: s3Store({ bucket: 'bench-media', client }) });
  const inS3 = async (stream: string) =>
    client.send(new HeadObjectCommand({ Bucket: 'bench-media', Key: `streams/${stream}/${OUR_LIVE_PLAYLIST}` })).then(
      () => true,
      () => false,
    );
  const oursBucket = await measure(oursS3, inS3);
  await s3.close();

  const nginx = await startNginx({ hlsDir: await tempDir('nginx-hls') });
  const theirs = await measure(nginx, inFolder(nginx));
  process.stderr.write('\n');

  const ms = (value: number) => Math.round(value);
  console.log(`Publish start → first playlist, 2 s segments, ${RUNS} runs each (ms)\n`);
  console.log(
    table([
      { server: 'stagedoor → folder', median: ms(oursFolder.median), p90: ms(oursFolder.p90), misses: oursFolder.misses },
      { server: 'stagedoor → S3 (embedded)', median: ms(oursBucket.median), p90: ms(oursBucket.p90), misses: oursBucket.misses },
      { server: 'nginx-rtmp → folder', median: ms(theirs.median), p90: ms(theirs.p90), misses: theirs.misses },
    ]),
  );
  console.log(`\nratio stagedoor/nginx (folder, median): ${ratio(oursFolder.median, theirs.median).toFixed(2)}`);
  console.log(`ratio stagedoor S3/nginx folder (median): ${ratio(oursBucket.median, theirs.median).toFixed(2)}`);
}

await benchmark(async (defer) => {
  defer(removeTempDirs);
  await main();
});
