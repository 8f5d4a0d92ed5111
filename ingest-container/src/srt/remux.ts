import { spawn, type ChildProcess } from 'node:child_process';
import type net from 'node:net';
import type { Logger } from '../log';
import type { SrtEnd } from './gate-process';

/** How long the media connection's end may precede the gate's word on how the caller ended. */
const END_WORD_WAIT_MS = 1_000;

export interface Remux {
  /** The gate said how the caller ended. */
  ended(how: SrtEnd): void;
  kill(): void;
}

/**
 * An admitted SRT caller's MPEG-TS, copied into an RTMP publish on the loopback listener, so the
 * lease, keyframe judge, packaging, recording, reconnect window and clean stop apply as to any
 * publisher. A clean SRT close ends ffmpeg's input (it sends deleteStream: the show ends); a dead
 * caller kills ffmpeg (an RTMP drop: the reconnect window). ffmpeg ending for any reason (the gate
 * refused or cut the publish) closes the media connection, which closes the SRT socket.
 */
export function startRemux(options: { media: net.Socket; rtmpUrl: string; ffmpegPath: string; connId: string; log: Logger; onExit(): void }): Remux {
  const { media, log } = options;
  const ffmpeg: ChildProcess = spawn(
    options.ffmpegPath,
    // A short probe: the publish (and the viewers' first segment) waits for it. -c copy: no re-encode here.
    ['-hide_banner', '-loglevel', 'error', '-analyzeduration', '1000000', '-f', 'mpegts', '-i', 'pipe:0', '-c', 'copy', '-f', 'flv', options.rtmpUrl],
    { stdio: ['pipe', 'ignore', 'pipe'] },
  );
  let how: SrtEnd | undefined;
  let mediaEnded = false;
  let endTimer: NodeJS.Timeout | undefined;
  ffmpeg.stdin!.on('error', () => undefined);
  ffmpeg.on('error', (error) => {
    log.error('srt remux failed to start', { conn_id: options.connId, error: error.message });
    media.destroy();
  });
  ffmpeg.stderr!.on('data', (data: Buffer) => log.debug('srt remux', { conn_id: options.connId, output: data.toString().trim() }));
  // Not ended by the pipe: whether the input ends cleanly depends on how the caller ended, which the gate says apart.
  media.pipe(ffmpeg.stdin!, { end: false });
  media.on('error', () => undefined);

  const finish = () => {
    if (!mediaEnded || how === undefined) return;
    clearTimeout(endTimer);
    if (how === 'clean') ffmpeg.stdin!.end();
    else ffmpeg.kill('SIGKILL');
  };
  media.once('end', () => {
    mediaEnded = true;
    endTimer = setTimeout(() => ((how ??= 'dead'), finish()), END_WORD_WAIT_MS);
    finish();
  });
  ffmpeg.once('exit', (code, signal) => {
    clearTimeout(endTimer);
    log.info('srt remux ended', { conn_id: options.connId, code, signal, srt_end: how ?? 'open' });
    media.destroy();
    options.onExit();
  });
  return {
    ended(end) {
      how ??= end;
      finish();
    },
    kill: () => ffmpeg.kill('SIGKILL'),
  };
}
