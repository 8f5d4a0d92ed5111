import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import Context from 'node-media-server/src/core/context.js';
import nmsLogger from 'node-media-server/src/core/logger.js';
import type BaseSession from 'node-media-server/src/session/base_session.js';
import { streamKeyOf, type AccessGrant, type AccessRequest } from './auth/access-request';
import { createAuthenticator, type AuthConfig } from './auth/authenticator';
import { AuthServiceUnavailable, ErrUnauthorized, StreamBusy } from './auth/errors';
import { reopenForLive, type HlsConfig } from './hls/packager';
import { createHookSender, type Webhooks } from './hooks/webhooks';
import { createLogger, describeError, type Logger, type LogLevel } from './log';
import { createLeaseClient, type PlatformConfig } from './platform/live-notifier';
import { createStreamReporter } from './platform/stream-reports';
import { startIngestMetrics } from './metrics';
import { createPublications } from './publications';
import { createFailureBrake, type FailureBrakeOptions } from './rtmp/failure-brake';
import { GatedRtmpSession, type SessionGate } from './rtmp/gated-session';
import { createVideoWatch } from './video/video-watch';

export interface ListenAddress {
  /** Omit to listen on every interface. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
}

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
  /** Where to say a stream went live or ended; without it nobody is told. */
  platform?: PlatformConfig;
  /** How long a dropped publisher may reconnect and continue the same stream (node-media-server's window). Default 30 s. */
  publishGraceMs?: number;
  logLevel?: LogLevel;
  log?: Logger;
}

export interface IngestServer {
  /** `rtmp://host:port` (no app), when the plain listener is on. */
  url: string | undefined;
  /** `rtmps://host:port`, when RTMPS is on. */
  tlsUrl: string | undefined;
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

  const authenticator = await createAuthenticator(options.auth);
  const hooks = createHookSender(options.webhooks ?? {}, options.webhookTimeoutMs ?? 5_000, log);
  const notifier = createLeaseClient(options.platform, log);
  const reporter = createStreamReporter(options.platform, log);
  const video = createVideoWatch({ segmentSeconds: options.hls?.segmentSeconds, reporter, log });
  // The publishers gauge reads the publications made just below.
  const metrics = startIngestMetrics({ log, publishers: () => publications.streamPaths().length });
  const publications = createPublications({
    hls: options.hls,
    notifier,
    log,
    metrics,
    // Tokens of modes token and file are per stream key `<app>/<name>`: the app must be in the output path too,
    // or the holder of a/foo could overwrite b/foo's HLS. Callback mode has one app (the platform checks it).
    hlsNameOf: authenticator.mode === 'token' || authenticator.mode === 'file' ? (session) => `${session.streamApp}/${session.streamName}` : undefined,
    onPackaging: (streamPath, reencoding) => video.packaging(streamPath, reencoding),
  });
  const sessions = new Set<GatedRtmpSession>();
  const brake = createFailureBrake(options.failureBrake);
  /** Viewer session (from the callback's grant) → the one connection playing it, per stream. */
  const playing = new Map<string, GatedRtmpSession>();

  const authFailed = (session: GatedRtmpSession, request: AccessRequest, error: unknown, recheck: boolean) => {
    const fields = { conn_id: session.id, action: request.action, stream_key: streamKeyOf(request), remote_addr: request.remoteAddr };
    if (error instanceof ErrUnauthorized) log.info('auth failed', { ...fields, error: error.message, recheck });
    else log.warn('auth check could not be made, denied', { ...fields, error: describeError(error), recheck });
    hooks.send({
      event: 'auth_failed',
      time: new Date().toISOString(),
      conn_id: session.id,
      action: request.action,
      app: request.app,
      stream_name: request.streamName,
      stream_key: streamKeyOf(request),
      error: error instanceof Error ? error.message : String(error),
      recheck,
      remote_addr: request.remoteAddr,
    });
  };

  let closing: Promise<void> | undefined;
  const gate: SessionGate = {
    log,
    publishGraceMs: options.publishGraceMs ?? 30_000,
    allowPlay: options.allowPlay ?? true,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 15_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 60_000,
    check: async (request) => {
      let grant: AccessGrant;
      try {
        grant = await authenticator.check(request);
      } catch (error) {
        if (error instanceof ErrUnauthorized) {
          const delayMs = brake.failed(request.remoteAddr);
          if (delayMs > 0) {
            log.info('auth failure answered late', { remote_addr: request.remoteAddr, delay_ms: delayMs });
            await new Promise((resolve) => setTimeout(resolve, delayMs));
          }
        }
        throw error;
      }
      // A check that ends during shutdown must not start a stream nobody will end.
      if (closing) throw new AuthServiceUnavailable('ingest server shutting down');
      // One process on air per event: a publish needs the event's lease, unless this process holds the show
      // already (a resume within the reconnect window).
      if (request.action !== 'publish' || publications.has(`/${request.app}/${request.streamName}`)) return grant;
      const lease = await notifier.acquire(request.streamName);
      if (lease === 'held') throw new StreamBusy();
      if (lease === 'unavailable') throw new AuthServiceUnavailable('the platform did not answer the stream lease');
      if (options.hls) await reopenForLive(options.hls, request.streamName, log);
      return grant;
    },
    rejected: (session, request, error) => authFailed(session, request, error, false),
    claimPlay: (session, grant) => {
      if (!grant.session) return true;
      const key = `${session.streamPath}#${grant.session}`;
      const holder = playing.get(key);
      if (holder && holder !== session && !holder.socket.destroyed) return false;
      playing.set(key, session);
      session.socket.once('close', () => playing.get(key) === session && playing.delete(key));
      return true;
    },
    alreadyPublishing: (request) => void reporter.alreadyPublishing(request.streamName, request.remoteAddr),
    publishStopped: (session) => publications.publisherStopped(session),
  };

  // node-media-server announces publishes on one process-wide emitter; take only our own sessions.
  const ours = (session: BaseSession): session is GatedRtmpSession => session instanceof GatedRtmpSession && session.gate === gate;
  const onPostPublish = (session: BaseSession) => {
    if (!ours(session)) return;
    video.started(session.streamPath, session.streamName, session.broadcast);
    publications.publishStarted(session);
  };
  const onDonePublish = (session: BaseSession) => {
    if (!ours(session)) return;
    video.ended(session.streamPath);
    publications.publishDone(session.streamPath);
  };
  Context.eventEmitter.on('postPublish', onPostPublish);
  Context.eventEmitter.on('donePublish', onDonePublish);

  const accept = (socket: net.Socket) => {
    // RTMP commands are small messages answered one by one; Nagle would hold each answer for a delayed ACK.
    socket.setNoDelay(true);
    const session = new GatedRtmpSession(socket, gate);
    sessions.add(session);
    socket.once('close', () => sessions.delete(session));
    session.run();
  };

  const listeners: net.Server[] = [];
  let url: string | undefined;
  let tlsUrl: string | undefined;
  try {
    if (options.listen !== null) {
      const server = net.createServer(accept);
      listeners.push(server);
      url = `rtmp://${await listen(server, options.listen ?? { port: 1935 })}`;
    }
    if (options.tls) {
      const server = tls.createServer({ cert: readFileSync(options.tls.certFile), key: readFileSync(options.tls.keyFile) }, accept);
      server.on('tlsClientError', (error) => log.debug('tls handshake failed', { error: error.message }));
      listeners.push(server);
      tlsUrl = `rtmps://${await listen(server, options.tls)}`;
    }
  } catch (error) {
    await Promise.all(listeners.map((server) => new Promise((resolve) => server.close(resolve))));
    throw error;
  }

  const recheck = startRecheck(options, authenticator.mode, log, async () => {
    const players = [...sessions].filter((session) => session.admitted === 'play' && !session.socket.destroyed);
    for (const session of [...publications.onAir(), ...players]) {
      const request = session.accessRequest!;
      try {
        await authenticator.check({ ...request, recheck: true });
      } catch (error) {
        if (!(error instanceof ErrUnauthorized)) {
          // Like nginx-rtmp's on_update in its default mode: no answer is not a no, the stream stays.
          log.warn('recheck could not be made, session kept', { conn_id: session.id, stream_key: streamKeyOf(request), error: describeError(error) });
          continue;
        }
        if (request.action === 'play') {
          if (session.socket.destroyed) continue;
          authFailed(session, request, error, true);
          session.deny('play', error.message);
        } else if (publications.onAir().includes(session)) {
          authFailed(session, request, error, true);
          session.deny('publish', error.message);
          publications.cutOff(session.streamPath);
        }
      }
    }
  });

  log.info('rtmp ingest listening', { url, tls_url: tlsUrl, auth_mode: authenticator.mode, hls: options.hls?.store.location ?? 'off' });

  return {
    url,
    tlsUrl,
    async reloadAuth() {
      if (authenticator.mode !== 'file') return log.info('reload ignored: only mode file reloads', { auth_mode: authenticator.mode });
      try {
        await authenticator.reload();
        log.info('auth file reloaded');
      } catch (error) {
        log.error('auth file reload failed, previous tokens kept', { error: describeError(error) });
      }
    },
    close() {
      closing ??= (async () => {
        recheck.stop();
        video.stopAll();
        const stopped = Promise.all(listeners.map((server) => new Promise((resolve) => server.close(resolve))));
        for (const streamPath of publications.streamPaths()) publications.cutOff(streamPath);
        await publications.drain();
        await recheck.idle();
        for (const session of sessions) session.socket.destroy();
        await stopped;
        await hooks.settle();
        await notifier.settle();
        metrics.stop();
        Context.eventEmitter.off('postPublish', onPostPublish);
        Context.eventEmitter.off('donePublish', onDonePublish);
        log.info('rtmp ingest stopped');
      })();
      return closing;
    },
  };
}

async function listen(server: net.Server, address: ListenAddress): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as net.AddressInfo;
  const host = !address.host || address.host === '0.0.0.0' || address.host === '::' ? '127.0.0.1' : address.host;
  return `${host.includes(':') ? `[${host}]` : host}:${bound.port}`;
}

/** One recheck round at a time; a slow callback never stacks rounds. */
function startRecheck(options: IngestOptions, mode: string, log: Logger, round: () => Promise<void>) {
  const interval = options.recheckIntervalMs ?? 0;
  let current: Promise<void> | undefined;
  if (interval <= 0 || mode !== 'callback') {
    if (interval > 0) log.warn('recheck applies to mode callback only; off', { auth_mode: mode });
    return { stop: () => undefined, idle: async () => undefined };
  }
  const timer = setInterval(() => {
    current ??= round()
      .catch((error) => log.error('recheck round failed', { error: describeError(error) }))
      .finally(() => (current = undefined));
  }, interval);
  timer.unref();
  return { stop: () => clearInterval(timer), idle: async () => void (await current) };
}
