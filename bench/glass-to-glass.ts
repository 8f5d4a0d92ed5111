/**
 * Glass-to-glass latency on the real viewer page. `npm start`'s program runs
 * with the default segment length (1 s) and, as the baseline, 2 s; ffmpeg
 * publishes a test picture whose frame number is drawn as 16 black/white
 * blocks, paced in real time (`-re`), with a keyframe every segment; Chromium
 * plays the viewer page and, once a second READINGS times after SETTLE seconds,
 * reads the frame number off the video through a canvas. Latency = now − the
 * instant that frame left the publisher (its start plus frame number ÷ rate;
 * the start is estimated from ffmpeg's progress reports). Median and p90 of
 * each, and the ratio default/baseline.
 *   npx tsx bench/glass-to-glass.ts        (SETTLE=10, READINGS=30)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { launchBrowser } from '../test/support/browser';
import { startLocalSystem } from '../test/support/local-system';
import { percentile, table } from './lib/stats';

const FPS = 25;
const BITS = 16;
const BLOCK = 20;
const SETTLE_S = Number(process.env.SETTLE || 10);
const SECONDS = Number(process.env.READINGS || 30);

/** ffmpeg drawing the frame number N in binary (bit i: block i from the left, white = 1), x264 at `gop` frames. */
function startPublisher(url: string, gop: number): { child: ChildProcess; startedAt: () => number } {
  const picture = `color=c=black:s=${BITS * BLOCK}x${BLOCK * 2}:r=${FPS},format=gray,geq=lum='if(mod(floor(N/pow(2,floor(X/${BLOCK}))),2),235,16)'`;
  const child = spawn(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-re', '-f', 'lavfi', '-i', picture],
      ...['-vf', 'format=yuv420p', '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', String(gop)],
      ...['-progress', 'pipe:1', '-stats_period', '0.25', '-f', 'flv', url],
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // Frame n leaves at start + n/FPS. A progress report comes after its frames, so each one bounds the start
  // from above: the smallest bound is the best estimate.
  let start = Infinity;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const match = /^frame=(\d+)$/.exec(line.trim());
    if (match && Number(match[1]) > 0) start = Math.min(start, Date.now() - (Number(match[1]) / FPS) * 1000);
  });
  return { child, startedAt: () => start };
}

async function measure(segment: string, gop: number): Promise<number[]> {
  const system = await startLocalSystem({ INGEST_HLS_SEGMENT: segment });
  const browser = await launchBrowser();
  let publisher: ReturnType<typeof startPublisher> | undefined;
  try {
    const now = Date.now();
    const event = await system.admin('POST', '/api/admin/events', {
      title: `Latency ${segment}`,
      startsAt: new Date(now - 60_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
    });
    const code = (await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: 1 })).tokens[0].code;
    const { ingest } = await system.admin('GET', `/api/admin/events/${event.id}`);
    publisher = startPublisher(`${ingest.server}/${ingest.streamKey}`, gop);

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${system.urls.api}/?code=${code}`);
    await page.getByRole('button', { name: 'Watch' }).click();
    await page.waitForFunction(() => (document.querySelector('video')?.currentTime ?? 0) > 0.5, null, { timeout: 60_000 });
    await page.waitForTimeout(SETTLE_S * 1000);

    const latencies: number[] = [];
    for (let i = 0; i < SECONDS; i++) {
      const frame = await page.evaluate(
        ({ bits, block }) => {
          const video = document.querySelector('video')!;
          const canvas = document.createElement('canvas');
          canvas.width = video.videoWidth;
          canvas.height = video.videoHeight;
          const context = canvas.getContext('2d', { willReadFrequently: true })!;
          context.drawImage(video, 0, 0);
          let n = 0;
          for (let bit = 0; bit < bits; bit++) {
            const [r] = context.getImageData(bit * block + block / 2, block, 1, 1).data;
            if (r! > 128) n += 2 ** bit;
          }
          return { n, at: Date.now() };
        },
        { bits: BITS, block: BLOCK },
      );
      latencies.push(frame.at - (publisher.startedAt() + (frame.n / FPS) * 1000));
      await page.waitForTimeout(1000);
    }
    return latencies;
  } finally {
    publisher?.child.kill('SIGINT');
    await browser.close();
    await system.stop();
  }
}

const runs = [
  { name: 'default: 1 s segments', segment: '1s', gop: FPS },
  { name: 'baseline: 2 s segments', segment: '2s', gop: 2 * FPS },
];
const results: { name: string; median: number; p90: number; samples: number }[] = [];
for (const run of runs) {
  const sorted = (await measure(run.segment, run.gop)).sort((a, b) => a - b);
  results.push({ name: run.name, median: percentile(sorted, 50) / 1000, p90: percentile(sorted, 90) / 1000, samples: sorted.length });
}
const baseline = results[1]!;
console.log(`Glass-to-glass latency in Chromium, ${SECONDS} readings 1 s apart after ${SETTLE_S} s (seconds; hls.js 2 segments behind, catch-up ≤ 1.2×)\n`);
console.log(
  table(
    results.map((r) => ({
      run: r.name,
      samples: r.samples,
      'median s': r.median,
      'p90 s': r.p90,
      'median vs baseline': `${(r.median / baseline.median).toFixed(2)}×`,
    })),
  ),
);
