/**
 * Glass-to-glass latency on the real viewer page, for the keyframe intervals
 * streamers actually send. `npm start`'s program runs with its defaults (1 s
 * segments, re-encoding of video whose keyframes are too far apart); ffmpeg
 * publishes a test picture whose frame number is drawn as 16 black/white
 * blocks, at 30 fps in real time (`-re`, x264 `zerolatency`); Chromium plays
 * the viewer page and, once a second READINGS times after SETTLE seconds,
 * reads the frame number off the video through a canvas. Latency = now − the
 * instant that frame left the publisher (its start plus frame number ÷ rate;
 * the start is estimated from ffmpeg's progress reports).
 *
 * Scenarios: keyframes every second from the first frame (the baseline);
 * OBS's default of a keyframe every 250 frames; that, stopped, then a new
 * publish with keyframes every second on the same event (measured after the
 * switch); keyframes every second after a 2 s first GOP (OBS at Keyframe
 * Interval 1 s); and, for reference, 250 frames with re-encoding off. Each
 * prints the median and p90 against the baseline, the distance the player
 * holds back, and the `EXT-X-TARGETDURATION` of the live playlist a native
 * player (Safari, AirPlay, TVs) reads from `index.m3u8`.
 *   npm run bench -- glass-to-glass        (SETTLE=10, READINGS=30; ONLY=<scenario name part> for one)
 */
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../harness/browser';
import { startLocalSystem } from '../harness/local-system';
import { newShow, watchShow, type ShowViewer } from '../harness/show';
import { percentile, table } from './lib/stats';
import { EVERY_SECOND, FIRST_GOP_2S, OBS_DEFAULT, READINGS, SETTLE_S, playing, readLatencies, startPublisher, stopPublisher, type Keyframes, type Publisher } from './lib/frame-clock';

/** The `EXT-X-TARGETDURATION` of the live playlist the multivariant `index.m3u8` names (what a native player reads). */
async function nativeTargetDuration(viewer: ShowViewer): Promise<number | undefined> {
  const target = /#EXT-X-TARGETDURATION:(\d+)/.exec((await viewer.playlist()) ?? '')?.[1];
  return target === undefined ? undefined : Number(target);
}

interface Scenario {
  name: string;
  env?: Record<string, string>;
  /** The publishers in turn, each stopped before the next starts; readings are of the last. */
  publishers: Keyframes[];
}

interface Result {
  latencies: number[];
  holdBack: number;
  nativeTarget: number | undefined;
}

async function measure(scenario: Scenario): Promise<Result> {
  const system = await startLocalSystem(scenario.env ?? {});
  let browser: Browser | undefined;
  let publisher: Publisher | undefined;
  try {
    browser = await launchBrowser();
    const show = await newShow(system, scenario.name, 2);
    const native = await watchShow(system, show.codes[1]!);
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    for (const [i, keyframes] of scenario.publishers.entries()) {
      if (publisher) {
        await stopPublisher(publisher);
        // The player plays to the end of what it holds, and the page waits for the next broadcast.
        await page.getByText('The broadcast has ended').waitFor({ timeout: 120_000 });
      }
      publisher = startPublisher(show.rtmpUrl, keyframes);
      if (i === 0) {
        await page.goto(`${system.urls.api}/?code=${show.codes[0]}`);
        await page.getByRole('button', { name: 'Watch' }).click();
      }
      await playing(page);
    }
    const latencies = await readLatencies(page, publisher!);
    const holdBack = Number(await page.evaluate(() => document.querySelector('video')!.dataset.liveSyncSeconds));
    return { latencies, holdBack, nativeTarget: await nativeTargetDuration(native) };
  } finally {
    if (publisher) await stopPublisher(publisher);
    await browser?.close();
    await system.stop();
  }
}

const scenarios: Scenario[] = [
  { name: 'keyframe every 1 s from the first frame (baseline)', publishers: [EVERY_SECOND] },
  { name: 'keyint 250 (OBS default at 30 fps)', publishers: [OBS_DEFAULT] },
  { name: 'keyint 250, then a new publish at keyint 30 (after the switch)', publishers: [OBS_DEFAULT, FIRST_GOP_2S] },
  { name: 'first GOP 2 s, then 1 s (OBS at Keyframe Interval 1 s)', publishers: [FIRST_GOP_2S] },
  { name: 'keyint 250, re-encoding off (copy only)', env: { INGEST_HLS_REENCODE: 'off' }, publishers: [OBS_DEFAULT] },
].filter((scenario) => scenario.name.includes(process.env.ONLY ?? ''));

const rows: Record<string, string | number>[] = [];
let baseline: number | undefined;
for (const scenario of scenarios) {
  const result = await measure(scenario);
  const sorted = [...result.latencies].sort((a, b) => a - b);
  const medianS = percentile(sorted, 50) / 1000;
  baseline ??= medianS;
  rows.push({
    scenario: scenario.name,
    readings: sorted.length,
    'median s': medianS,
    'p90 s': percentile(sorted, 90) / 1000,
    'vs baseline': `${(medianS / baseline).toFixed(2)}×`,
    'player holds back s': result.holdBack,
    'native TARGETDURATION': result.nativeTarget ?? '-',
  });
}
console.log(`Glass-to-glass latency in Chromium, ${READINGS} readings 1 s apart after ${SETTLE_S} s of playback (seconds)\n`);
console.log(table(rows));
