/**
 * SRT against RTMP, in the same run on one `npm start` system: glass-to-glass latency on the real viewer
 * page (the frame-number method of bench/glass-to-glass.ts, keyframes every second) and the first live
 * playlist after the encoder connects (ffmpeg spawned → the live playlist names a segment). The SRT
 * publisher takes the console's `ingest.srt.url` as is; the RTMP one the OBS server and stream key.
 *   npm run bench -- srt-glass-to-glass        (SETTLE=10, READINGS=30, as glass-to-glass)
 */
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../harness/browser';
import { startLocalSystem, type LocalSystem } from '../harness/local-system';
import { newShow, watchShow } from '../harness/show';
import { percentile, table } from './lib/stats';
import { benchmark, owned } from './lib/cleanup';
import { EVERY_SECOND, READINGS, SETTLE_S, playing, readLatencies, startPublisher, stopPublisher } from './lib/frame-clock';

type Protocol = 'rtmp' | 'srt';

async function measure(system: LocalSystem, browser: Browser, protocol: Protocol) {
  const show = await newShow(system, `${protocol} latency`, 2);
  const url = protocol === 'rtmp' ? show.rtmpUrl : (await system.admin('GET', `/api/admin/events/${show.eventId}`)).ingest.srt.url;
  const native = await watchShow(system, show.codes[1]!);
  const connectedAt = performance.now();
  const publisher = startPublisher(url, EVERY_SECOND, protocol === 'rtmp' ? 'flv' : 'mpegts');
  owned(publisher.child);
  try {
    while (!((await native.playlist()) ?? '').includes('#EXTINF')) await new Promise((resolve) => setTimeout(resolve, 50));
    const firstPlaylistMs = performance.now() - connectedAt;
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${system.urls.api}/?code=${show.codes[0]}`);
    await page.getByRole('button', { name: 'Watch' }).click();
    await playing(page);
    const latencies = (await readLatencies(page, publisher)).sort((a, b) => a - b);
    await page.context().close();
    return { firstPlaylistMs, latencies };
  } finally {
    await stopPublisher(publisher);
  }
}

await benchmark(async (defer) => {
  const system = await startLocalSystem();
  defer(() => system.stop());
  const browser = await launchBrowser();
  defer(() => browser.close());
  const results: Partial<Record<Protocol, Awaited<ReturnType<typeof measure>>>> = {};
  for (const protocol of ['rtmp', 'srt'] as const) results[protocol] = await measure(system, browser, protocol);
  const rtmpMedian = percentile(results.rtmp!.latencies, 50);
  const rows = (['rtmp', 'srt'] as const).map((protocol) => {
    const { latencies, firstPlaylistMs } = results[protocol]!;
    return {
      protocol,
      readings: latencies.length,
      'median s': percentile(latencies, 50) / 1000,
      'p90 s': percentile(latencies, 90) / 1000,
      'vs RTMP': `${(percentile(latencies, 50) / rtmpMedian).toFixed(2)}×`,
      'first playlist after connect s': Math.round(firstPlaylistMs) / 1000,
    };
  });
  console.log(`Glass-to-glass latency in Chromium, SRT against RTMP in one run; ${READINGS} readings 1 s apart after ${SETTLE_S} s of playback (seconds)\n`);
  console.log(table(rows));
});
