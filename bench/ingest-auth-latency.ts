/**
 * What the auth check adds to each publish: connect + createStream + publish
 * until `NetStream.Publish.Start`, timed with a real RTMP client, without a
 * check and with a callback to a local HTTP server that answers 200 at once.
 * The same for nginx-rtmp (no hook vs `on_publish`), in the same run; the
 * added latency is the difference of medians, and the ratios compare us with
 * nginx. Sequential publishes, no media, no HLS; loopback only.
 *   npx tsx bench/ingest-auth-latency.ts        (PUBLISHES=40 by default)
 */
import { median, percentile, table } from './lib/stats';
import { ratio, startAllowCallback, startNginx, startOurs, removeTempDirs, tempDir, timePublishHandshake, type BenchServer } from './lib/ingest-support';
import { benchmark } from './lib/cleanup';

const PUBLISHES = Math.min(Number(process.env.PUBLISHES || 40), 200);
const WARMUP = 5;

async function handshakes(server: BenchServer) {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + PUBLISHES; i++) {
    const took = await timePublishHandshake(`${server.url}/lat${i}x${Date.now().toString(36)}`);
    if (i >= WARMUP) times.push(took);
  }
  await server.close();
  const sorted = times.sort((a, b) => a - b);
  return { median: median(sorted), p95: percentile(sorted, 95) };
}

async function main() {
  const callback = await startAllowCallback();
  const rows = [];

  const oursOpen = await handshakes(await startOurs({}));
  const before = callback.calls();
  const oursCallback = await handshakes(await startOurs({ callbackUrl: callback.url }));
  const oursCalls = callback.calls() - before;

  const nginxOpen = await handshakes(await startNginx({ hlsDir: await tempDir('lat-open') }));
  const nginxBefore = callback.calls();
  const nginxCallback = await handshakes(await startNginx({ hlsDir: await tempDir('lat-cb'), onPublishUrl: callback.url }));
  const nginxCalls = callback.calls() - nginxBefore;
  await callback.close();

  const oursAdded = oursCallback.median - oursOpen.median;
  const nginxAdded = nginxCallback.median - nginxOpen.median;
  rows.push(
    { server: 'stagedoor, no check', median: oursOpen.median, p95: oursOpen.p95, 'callbacks made': 0 },
    { server: 'stagedoor, callback', median: oursCallback.median, p95: oursCallback.p95, 'callbacks made': oursCalls },
    { server: 'nginx-rtmp, no hook', median: nginxOpen.median, p95: nginxOpen.p95, 'callbacks made': 0 },
    { server: 'nginx-rtmp, on_publish', median: nginxCallback.median, p95: nginxCallback.p95, 'callbacks made': nginxCalls },
  );
  console.log(`Publish handshake until NetStream.Publish.Start, ${PUBLISHES} publishes each (ms)\n`);
  console.log(table(rows));
  console.log(`\nadded by the check (median): stagedoor ${oursAdded.toFixed(2)} ms, nginx-rtmp ${nginxAdded.toFixed(2)} ms`);
  console.log(`ratio stagedoor/nginx, handshake with callback (median): ${ratio(oursCallback.median, nginxCallback.median).toFixed(2)}`);
  console.log(`ratio stagedoor/nginx, added latency (median): ${ratio(oursAdded, nginxAdded).toFixed(2)}`);
  console.log(
    '\nnote: nginx-rtmp sets no TCP_NODELAY, so each of its answers waits for a delayed ACK (~40 ms per handshake);\n' +
      'its callback runs inside that wait, which is why its added latency looks near zero.',
  );
}

await benchmark(async (defer) => {
  defer(removeTempDirs);
  await main();
});
