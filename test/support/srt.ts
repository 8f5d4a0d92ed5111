import { run, type Run } from './ingest';

/** ffmpeg as an SRT caller (as an encoder speaks it): MPEG-TS with H.264 and AAC, latency in microseconds. */
export function publishSrt(
  base: string,
  options: { streamId: string; passphrase?: string; seconds?: number; latencyMs?: number; gop?: number; logLevel?: string },
): Run {
  const query = new URLSearchParams({ streamid: options.streamId });
  if (options.passphrase) query.set('passphrase', options.passphrase);
  query.set('latency', String((options.latencyMs ?? 200) * 1000));
  return publishSrtUrl(`${base}?${query}`, options);
}

/** ffmpeg publishing to a complete SRT URL, as the console shows it. */
export function publishSrtUrl(url: string, options: { seconds?: number; gop?: number; logLevel?: string } = {}): Run {
  return run('ffmpeg', [
    '-hide_banner', '-loglevel', options.logLevel ?? 'error', '-re',
    '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=25',
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100',
    ...(options.seconds === undefined ? [] : ['-t', String(options.seconds)]),
    '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-g', String(options.gop ?? 25), '-pix_fmt', 'yuv420p',
    '-c:a', 'aac',
    '-f', 'mpegts', url,
  ]);
}
