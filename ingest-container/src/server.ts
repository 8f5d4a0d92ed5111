import nmsLogger from 'node-media-server/src/core/logger.js';
import { createAdmission } from './admission';
import { createAuthenticator, type AuthConfig, type Authenticator } from './auth/authenticator';
import { createAuthFailureReport } from './hooks/auth-failure-report';
import { reopenForLive, type HlsConfig } from './hls/packager';
import { createHookSender, type Webhooks } from './hooks/webhooks';
import { createLogger, describeError, type Logger, type LogLevel } from './log';
import { createLeaseClient, type LeaseClient, type PlatformConfig } from './platform/live-notifier';
import { createStreamReporter } from './platform/stream-reports';
import { createEncoderReports } from './platform/encoder-reports';
import { startIngestMetrics, type IngestMetrics } from './metrics';
import { createPublications } from './publications';
import { createRecheckRound, startRecheck } from './recheck';
import { createFailureBrake, type FailureBrakeOptions } from './rtmp/failure-brake';
import { createConnections } from './rtmp/connections';
import type { GatedRtmpSession, SessionGate } from './rtmp/gated-session';
import { openListeners, type ListenAddress } from './rtmp/listeners';
import { createPlayClaims } from './rtmp/play-claims';
import { followPublishes } from './rtmp/publish-events';
import { createVideoWatch } from './video/video-watch';
import { startSrtListener, type SrtOptions } from './srt/srt-listener';

export type { ListenAddress } from './rtmp/listeners';

export interface IngestOptions {
  /** Plain RTMP; `null` turns it off (RTMPS only). Default: every interface, port 1935. */
  listen?: ListenAddress | null;
  /** RTMPS: PEM files of the certificate (chain) and its key. */
  tls?: ListenAddress & { certFile: string; keyFile: string };
  auth: AuthConfig;
  /** Mode `callback` only: re-ask for every live publisher and player this often and cut those now denied. 0 = off. */
  recheckIntervalMs?: number;
  /** RTMP play at all (default true); off, every play is refused and viewers use HLS. */
  allowPlay?: boolean;
  /** A connection must be admitted to publish or play within this (default 15 s). */
  handshakeTimeoutMs?: number;
  /** A connection with no traffic for this long is closed (default 60 s). */
  idleTimeoutMs?: number;
  /** The pause before answering repeated auth failures from one address (tests shorten it). */
  failureBrake?: FailureBrakeOptions;
  webhooks?: Webhooks;
  webhookTimeoutMs?: number;
  /** Without it, streams are relayed over RTMP only. */
  hls?: HlsConfig;
  /** SRT callers (`-srt-listen`); off unless given. */
  srt?: SrtOptions;
  /** Where to say a stream went live or ended; without it nobody is told. */
  platform?: PlatformConfig;
  /** How long a dropped publisher may reconnect and continue the same stream (node-media-server's window). Default 30 s. */
  publishGraceMs?: number;
  /** An encoder on air silent this long hands over to a healthy standby (at most 5 s). Default 2 s. */
  failoverSilenceMs?: number;
  logLevel?: LogLevel;
  log?: Logger;
}

export interface IngestServer {
  /** `rtmp://host:port` (no app), when the plain listener is on. */
  url: string | undefined;
  /** `rtmps://host:port`, when RTMPS is on. */
  tlsUrl: string | undefined;
  /** `srt://host:port`, when SRT is on. */
  srtUrl: string | undefined;
  /** Mode `file`: re-read the token file (what SIGHUP does). Never re-checks streams already authenticated. */
  reloadAuth(): Promise<void>;
  /** Stops accepting, ends every stream (final playlists), finishes uploads and notices, then closes. */
  close(): Promise<void>;
}

/**
 * node-media-server's RTMP server cannot be used as is: it takes no port 0,
 * exits the process when a port is taken, and would start ungated sessions.
 * So the listeners are ours and hand each connection to a GatedRtmpSession;
 * the protocol and the broadcast fan-out stay node-media-server's. Its state
 * (broadcasts by stream path) is per process, so run one server per process
 * or keep stream names distinct.
 */
export async function startIngestServer(options: IngestOptions): Promise<IngestServer> {
  const log = options.log ?? createLogger(options.logLevel ?? 'info');
  // Its logger prints to stdout; keep it to errors unless we debug.
  nmsLogger.level = options.logLevel === 'debug' ? 'debug' : 'error';

  const authenticator = await createAuthenticator(options.auth, log);
  const hooks = createHookSender(options.webhooks ?? {}, options.webhookTimeoutMs ?? 5_000, log);
  const notifier = createLeaseClient(options.platform, log);
  const reporter = createStreamReporter(options.platform, log);
  // Reads the publications made below: only the encoder on air is reported to the event page.
  const video = createVideoWatch({ segmentSeconds: options.hls?.segmentSeconds, reporter, log, onAir: (streamPath) => publications.isOnAir(streamPath) });
  // The publishers gauge reads the publications made just below.
  const metrics = startIngestMetrics({ log, publishers: () => publications.showCount() });
  const { publications, encoderReports } = createShows(options, { notifier, log, metrics, video, mode: authenticator.mode });
  const authFailed = createAuthFailureReport({ log, send: hooks.send });
  let closing: Promise<void> | undefined;
  const hls = options.hls;
  const brake = createFailureBrake(options.failureBrake);
  // One admission, made twice: SRT's brake must never wait (srt/srt-ingest.ts says why).
  const admission = (withBrake: typeof brake) =>
    createAdmission({
      authenticator,
      brake: withBrake,
      notifier,
      holdsShow: publications.has,
      reopenShow: hls && ((streamName) => reopenForLive(hls, streamName, log)),
      closing: () => closing !== undefined,
      log,
    });
  const admit = admission(brake);
  let srt: Awaited<ReturnType<typeof startSrtListener>> | undefined;
  const gate: SessionGate = {
    ...sessionLimits(options, log),
    // A connection on SRT's loopback listener is an admitted SRT caller's remux: its ticket or nothing.
    check: (request, session) => srt?.redeemOn(request, session) ?? admit(request),
    rejected: (session, request, error) => authFailed(session, request, error, false),
    claimPlay: createPlayClaims(),
    playRefusal: (request) => (publications.watermarked(`/${request.app}/${request.streamName}`) ? WATERMARKED_PLAY_REFUSAL : undefined),
    alreadyPublishing: (request) => void reporter.alreadyPublishing(request.streamName, request.remoteAddr),
    publishStopped: (session) => publications.publisherStopped(session),
    publisherClosed: (session) => publications.publisherClosed(session),
  };

  const stopFollowing = followPublishes(gate, {
    started(session) {
      video.started(session.streamPath, session.streamName, session.broadcast);
      publications.publishStarted(session);
      // Players admitted before the watermarked publish began would get its unmarked picture.
      if (session.watermark) for (const player of connections.players()) if (player.streamPath === session.showPath) player.endPlay(WATERMARKED_PLAY_REFUSAL);
    },
    done(session) {
      video.ended(session.streamPath);
      publications.publishDone(session);
    },
  });
  const connections = createConnections(gate);
  const listeners = await openListeners(options, connections.accept, log);
  srt = await startSrtListener(options, { admission, brake, publications, gate, accept: connections.accept, authFailed, notifier, log }, listeners);

  const recheckRound = createRecheckRound({
    authenticator,
    onAir: publications.onAir,
    players: connections.players,
    cutOff: publications.cutOff,
    authFailed,
    log,
  });
  const recheck = startRecheck(options.recheckIntervalMs ?? 0, authenticator.mode, log, recheckRound);

  const { url, tlsUrl } = listeners;
  log.info('rtmp ingest listening', { url, tls_url: tlsUrl, srt_url: srt?.url, auth_mode: authenticator.mode, hls: options.hls?.store.location ?? 'off' });

  /** Stops accepting and rechecking, ends every show (final playlists), then waits for what is still under way. */
  async function shutDown(): Promise<void> {
    recheck.stop();
    video.stopAll();
    const stopped = listeners.close();
    await srt?.close();
    for (const streamPath of publications.streamPaths()) publications.cutOff(streamPath);
    await publications.drain();
    await recheck.idle();
    connections.destroyAll();
    await stopped;
    await hooks.settle();
    await notifier.settle();
    metrics.stop();
    publications.stop();
    encoderReports.stop();
    stopFollowing();
    log.info('rtmp ingest stopped');
  }

  return {
    url,
    tlsUrl,
    srtUrl: srt?.url,
    reloadAuth: () => reloadAuthFile(authenticator, log),
    close: () => (closing ??= shutDown()),
  };
}

/** What an RTMP player of a watermarked show is told: RTMP play relays the publisher's picture, which carries no mark. */
const WATERMARKED_PLAY_REFUSAL = 'this show is watermarked: watch it over HLS';

/** The shows of the server (both encoders of each, the failover between them) and the reports of their encoders. */
function createShows(
  options: IngestOptions,
  deps: { notifier: LeaseClient; log: Logger; metrics: IngestMetrics; video: ReturnType<typeof createVideoWatch>; mode: Authenticator['mode'] },
) {
  const { notifier, log, metrics, video } = deps;
  // An operator's switch comes back with an encoder report and reaches the show through the publications.
  const encoderReports = createEncoderReports(options.platform, log, (eventId, role) => publications.request(eventId, role));
  const publications = createPublications({
    hls: options.hls,
    notifier,
    log,
    metrics,
    hlsNameOf: hlsNameFor(deps.mode),
    onPackaging: (streamPath, reencoding) => video.packaging(streamPath, reencoding),
    verdictOf: video.verdictOf,
    failoverSilenceMs: options.failoverSilenceMs,
    onSwitch: (streamName, from, to, reason) => {
      // The alarm "backup encoder on air" watches BackupOnAir (docs/deploy.md).
      metrics.count(to === 'backup' ? 'BackupOnAir' : 'PrimaryOnAir');
      log.info('encoder switch', { stream_name: streamName, from, to, reason });
    },
    onEncoders: (streamName, encoders) => encoderReports.changed(streamName, encoders),
  });
  return { publications, encoderReports };
}

/** What a session applies by itself: the reconnect window, the play switch, its timeouts. */
function sessionLimits(options: IngestOptions, log: Logger): Pick<SessionGate, 'log' | 'publishGraceMs' | 'allowPlay' | 'handshakeTimeoutMs' | 'idleTimeoutMs'> {
  return {
    log,
    publishGraceMs: options.publishGraceMs ?? 30_000,
    allowPlay: options.allowPlay ?? true,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 15_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
  };
}

/**
 * Tokens of modes token and file are per stream key `<app>/<name>`: the app must be in the output path too,
 * or the holder of a/foo could overwrite b/foo's HLS. Callback mode has one app (the platform checks it).
 */
function hlsNameFor(mode: Authenticator['mode']): ((session: GatedRtmpSession) => string) | undefined {
  return mode === 'token' || mode === 'file' ? (session) => `${session.streamApp}/${session.streamName}` : undefined;
}

/** Mode `file` re-reads its token file; a broken file keeps the tokens it had. */
async function reloadAuthFile(authenticator: Authenticator, log: Logger): Promise<void> {
  if (authenticator.mode !== 'file') return log.info('reload ignored: only mode file reloads', { auth_mode: authenticator.mode });
  try {
    await authenticator.reload();
    log.info('auth file reloaded');
  } catch (error) {
    log.error('auth file reload failed, previous tokens kept', { error: describeError(error) });
  }
}
