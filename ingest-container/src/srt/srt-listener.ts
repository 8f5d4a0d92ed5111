import type net from 'node:net';
import type { AccessGrant, AccessRequest } from '../auth/access-request';
import type { Logger } from '../log';
import type { FailureBrake } from '../rtmp/failure-brake';
import type { GatedRtmpSession, SessionGate } from '../rtmp/gated-session';
import type { AuthFailureReport } from '../hooks/auth-failure-report';
import type { LeaseClient } from '../platform/live-notifier';
import { openListeners } from '../rtmp/listeners';
import { startSrtIngest, type SrtIngestDeps, type SrtOptions } from './srt-ingest';

export type { SrtOptions } from './srt-ingest';

/**
 * The SRT side of an ingest server, when `-srt-listen` is given: srt-gate on the UDP port and the
 * loopback RTMP listener its admitted callers' remuxes publish to (always its own, so SRT works
 * whatever the public RTMP listeners are, and tickets are taken on it alone).
 */
export async function startSrtListener(
  options: { srt?: SrtOptions; hls?: { ffmpegPath: string } },
  deps: Pick<SrtIngestDeps, 'admission' | 'brake' | 'log'> & {
    publications: { onAir(): GatedRtmpSession[]; has(streamPath: string): boolean };
    gate: Pick<SessionGate, 'alreadyPublishing'>;
    accept(socket: net.Socket): void;
    authFailed: AuthFailureReport;
    notifier: Pick<LeaseClient, 'release'>;
    log: Logger;
  },
  /** The server's public listeners, closed when SRT cannot start (the server then does not start). */
  listeners: { close(): Promise<void> },
) {
  if (!options.srt) return undefined;
  return startSrt(options.srt, options.hls?.ffmpegPath, deps).catch(async (error) => {
    await listeners.close();
    throw error;
  });
}

async function startSrt(srtOptions: SrtOptions, ffmpegPath: string | undefined, deps: Parameters<typeof startSrtListener>[1]) {
  const loopback = await openListeners({ listen: { host: '127.0.0.1', port: 0 } }, deps.accept, deps.log);
  const loopbackPort = Number(new URL(loopback.url!).port);
  const ingest = await startSrtIngest({
    admission: deps.admission,
    brake: deps.brake,
    log: deps.log,
    rejected: (connection, request, error) => deps.authFailed(connection, request, error, false),
    alreadyPublishing: (request) => deps.gate.alreadyPublishing?.(request),
    releaseLease: (streamName) => void deps.notifier.release(streamName),
    options: srtOptions,
    onAir: (streamPath) => deps.publications.onAir().some((session) => session.streamPath === streamPath),
    holdsShow: deps.publications.has,
    loopbackUrl: loopback.url!,
    ffmpegPath: ffmpegPath ?? process.env.FFMPEG_PATH ?? 'ffmpeg',
  }).catch(async (error) => {
    await loopback.close();
    throw error;
  });
  const host = srtOptions.listen.host && !['0.0.0.0', '::'].includes(srtOptions.listen.host) ? srtOptions.listen.host : '127.0.0.1';
  return {
    url: `srt://${host.includes(':') ? `[${host}]` : host}:${ingest.port}`,
    /** A ticket's grant for a connection on the loopback listener; undefined for every other connection. */
    redeemOn(request: AccessRequest, session: GatedRtmpSession): Promise<AccessGrant> | undefined {
      return session.socket.localPort === loopbackPort && session.socket.localAddress === '127.0.0.1' ? ingest.redeem(request) : undefined;
    },
    async close(): Promise<void> {
      await ingest.close();
      await loopback.close();
    },
  };
}
