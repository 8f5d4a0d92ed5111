import querystring from 'node:querystring';
import type { Socket } from 'node:net';
import RtmpSession from 'node-media-server/src/session/rtmp_session.js';
import { decodeAmf0Cmd } from 'node-media-server/src/protocol/amf.js';
import type { AccessGrant, AccessRequest, Action } from '../auth/access-request';
import { ErrUnauthorized, SERVICE_UNAVAILABLE_DESCRIPTION, StreamBusy } from '../auth/errors';
import type { Logger } from '../log';
import type { EncoderRole } from '../failover/on-air-choice';
import type { MarkPattern } from '../../../recording/watermark-pattern';

/** What a session asks of its server: the check, and what to do after a rejection. */
export interface SessionGate {
  readonly log: Logger;
  /** Applied to the stream's broadcast on every accepted publish. */
  readonly publishGraceMs: number;
  /** Off: every play command is refused before any check (viewers use HLS). */
  readonly allowPlay: boolean;
  /** A connection not admitted to publish or play within this is closed. */
  readonly handshakeTimeoutMs: number;
  /** A connection with no traffic either way for this long is closed. */
  readonly idleTimeoutMs: number;
  /** Resolves to allow; throws to deny (ErrUnauthorized or a transport failure). The session tells which listener it came in on. */
  check(request: AccessRequest, session: GatedRtmpSession): Promise<AccessGrant>;
  rejected(session: GatedRtmpSession, request: AccessRequest, error: unknown): void;
  /** Takes the grant's viewer session for this play connection; false when another connection plays it. */
  claimPlay(session: GatedRtmpSession, grant: AccessGrant): boolean;
  /** Why an admitted play of `/<app>/<streamName>` may not start after all (a watermarked show), or undefined. */
  playRefusal?(request: AccessRequest): string | undefined;
  /** A publish that passed its check was refused because the stream already has a publisher, here or on another ingest. */
  alreadyPublishing?(request: AccessRequest): void;
  /** An admitted publisher sent `FCUnpublish` or `deleteStream`: a clean stop, no reconnect window. */
  publishStopped(session: GatedRtmpSession): void;
  /** An admitted publisher's connection closed (its reconnect window starts now): a standby may take over at once. */
  publisherClosed?(session: GatedRtmpSession): void;
}

/**
 * Each encoder of an event publishes into a broadcast of its own, so both can be connected at once and a
 * second publisher of the same role is still refused as "already publishing". node-media-server allows
 * only `[A-Za-z0-9_-]` in names, so the backup's broadcast is `/<app>-backup/<name>`; the platform admits
 * only app `live`, so no client reaches that path by itself (in modes token/file, do not configure an
 * app ending in `-backup`).
 */
export function broadcastPathOf(app: string, streamName: string, role: EncoderRole): { app: string; name: string } {
  return role === 'primary' ? { app, name: streamName } : { app: `${app}-backup`, name: streamName };
}

/** Commands by which a publisher says it is done (OBS's "Stop Streaming", ffmpeg's normal exit). */
const CLEAN_STOP_COMMANDS = new Set(['FCUnpublish', 'deleteStream']);
const RTMP_TYPE_FLEX_MESSAGE = 17;

/** node-media-server's own rule for app and stream names (it ends the socket silently otherwise). */
const SAFE_NAME = /^[A-Za-z0-9_-]+$/;

/** Time a closed-by-us connection gets to flush its last status before it is destroyed. */
const CLOSE_GRACE_MS = 2_000;

/**
 * node-media-server's RTMP session with the publish and play commands gated.
 *
 * Its own hooks fire after it has already answered `NetStream.*.Start`, so
 * the check has to sit in the protocol layer instead: `rtmp.onPublish` and
 * `rtmp.onPlay` are replaced, the socket is paused while the check runs, and
 * only an accepted command reaches node-media-server (Start status, broadcast
 * registration, publish). A rejected one gets the Unauthorized status at level
 * `error` (the level clients show) and the connection closes: it never
 * touches a broadcast, so it leaves no publisher, no grace window and no HLS
 * job behind.
 */
export class GatedRtmpSession extends RtmpSession {
  /** Set once the publish or play command passed its check. */
  admitted: Action | undefined;
  /** The request that admitted this session; the callback recheck asks it again. */
  accessRequest: AccessRequest | undefined;
  /** Which of the event's encoders this publisher is (the check's answer; primary unless it says otherwise). */
  role: EncoderRole = 'primary';
  /** `/<app>/<streamName>` as the client named it: the show both encoders of an event feed (`streamPath` is this role's broadcast). */
  showPath = '';
  /** Admitted while another ingest has the show on air with the other encoder: this one stands by. */
  standby = false;
  /** The publish check's answer says the event is watermarked: its packaging marks every segment (A and B). */
  watermark: MarkPattern | undefined;
  /** When the client last sent audio or video (ms): an encoder silent too long is not a healthy standby or on-air source. */
  lastInputAt = Date.now();
  /** Nothing the client sends after a rejection or a cut may reach a broadcast. */
  private discardInput = false;
  private streamCommandSeen = false;
  private readonly admitTimer: NodeJS.Timeout;

  constructor(
    socket: Socket,
    /** The server this session belongs to (node-media-server's events are process-wide). */
    readonly gate: SessionGate,
  ) {
    super(socket);
    this.rtmp.onPublish = (command) => this.gateStreamCommand('publish', command.streamName);
    this.rtmp.onPlay = (command) => this.gateStreamCommand('play', command.streamName);
    // Without these a client that connects and never publishes or plays (or goes silent) holds a socket forever.
    this.admitTimer = setTimeout(() => this.drop('handshake timeout'), gate.handshakeTimeoutMs).unref();
    socket.setTimeout(gate.idleTimeoutMs, () => this.drop('idle timeout'));
    // Silence is no media, not no bytes: a client that still answers the protocol (an SRT caller's remux
    // whose caller died) sends nothing to show. `run` hands this to the protocol layer.
    const onPacket = this.onPacket;
    this.onPacket = (packet) => {
      this.lastInputAt = Date.now();
      onPacket(packet);
    };
    const invoke = this.rtmp.invokeHandler.bind(this.rtmp);
    this.rtmp.invokeHandler = () => {
      if (this.admitted === 'publish' && CLEAN_STOP_COMMANDS.has(this.invokeCommand())) this.gate.publishStopped(this);
      invoke();
    };
  }

  private drop(reason: string): void {
    this.gate.log.info(`connection closed: ${reason}`, { conn_id: this.id, remote_addr: remoteAddrOf(this.socket) });
    this.socket.destroy();
  }

  /** The name of the command message being parsed (node-media-server drops `FCUnpublish` unseen). */
  private invokeCommand(): string {
    const { header, payload } = this.rtmp.parserPacket;
    const body = payload.subarray(header.type === RTMP_TYPE_FLEX_MESSAGE ? 1 : 0, header.length);
    return String(decodeAmf0Cmd(body).cmd ?? '');
  }

  override onData = (data: Buffer) => {
    if (this.discardInput) return;
    this.inBytes += data.length;
    const error = this.rtmp.parserData(data);
    if (error != null) {
      this.gate.log.warn('rtmp parse error', { conn_id: this.id, error });
      this.socket.end();
    }
  };

  override onClose = () => {
    clearTimeout(this.admitTimer);
    if (this.admitted === 'publish') {
      this.broadcast.donePublish(this);
      this.gate.publisherClosed?.(this);
    } else if (this.admitted === 'play') this.broadcast.donePlay(this);
    this.gate.log.debug('connection closed', { conn_id: this.id });
  };

  /** Closes the connection after an `error`-level status with this description (used by the recheck too). */
  deny(action: Action, description: string): void {
    const code = action === 'publish' ? 'NetStream.Publish.Unauthorized' : 'NetStream.Play.Unauthorized';
    this.refuse(code, description);
  }

  /** Ends an admitted play with an `error`-level `NetStream.Play.Failed` (its show became watermarked). */
  endPlay(description: string): void {
    this.refuse('NetStream.Play.Failed', description);
  }

  private refuse(code: string, description: string): void {
    this.discardInput = true;
    if (!this.socket.destroyed) this.rtmp.sendStatusMessage(this.rtmp.streamId, 'error', code, description);
    // Resume so the client's FIN is read and the socket can close; the data itself is dropped.
    this.socket.resume();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  private gateStreamCommand(action: Action, fullName: string): void {
    const rtmp = this.rtmp;
    // Read now: the parser moves on to the next message as soon as this returns.
    rtmp.streamId = rtmp.parserPacket.header.stream_id;
    if (this.streamCommandSeen) {
      // One stream per connection, as OBS and ffmpeg use it; a second command would bypass the check's bookkeeping.
      return this.refuse(action === 'publish' ? 'NetStream.Publish.BadName' : 'NetStream.Play.Failed', 'one stream per connection');
    }
    this.streamCommandSeen = true;
    const queryAt = fullName.indexOf('?');
    const streamName = queryAt === -1 ? fullName : fullName.slice(0, queryAt);
    const query = querystring.parse(queryAt === -1 ? '' : fullName.slice(queryAt + 1));
    rtmp.streamName = streamName;
    rtmp.streamQuery = query;
    const app = rtmp.streamApp ?? '';
    if (!SAFE_NAME.test(app) || !SAFE_NAME.test(streamName)) {
      this.gate.log.info('stream name refused', { conn_id: this.id, action, remote_addr: remoteAddrOf(this.socket) });
      return this.refuse(action === 'publish' ? 'NetStream.Publish.BadName' : 'NetStream.Play.StreamNotFound', 'invalid stream name');
    }
    const request: AccessRequest = { action, app, streamName, token: tokenOf(query.token), remoteAddr: remoteAddrOf(this.socket) };
    if (action === 'play' && !this.gate.allowPlay) {
      this.gate.log.info('play refused: RTMP play is off', { conn_id: this.id, remote_addr: request.remoteAddr });
      return this.deny('play', 'playback over RTMP is disabled on this server');
    }

    this.socket.pause();
    this.gate.check(request, this).then(
      // An SRT caller's remux is admitted as the caller (its address, its protocol), not as the loopback connection.
      (grant) => this.admit(grant.admittedAs ?? request, grant),
      (error: unknown) => {
        if (error instanceof StreamBusy) {
          this.gate.log.info('publish refused: on air on another ingest', { conn_id: this.id, stream_key: `${app}/${streamName}` });
          this.gate.alreadyPublishing?.(request);
          return this.refuse('NetStream.Publish.BadName', error.message);
        }
        const description = error instanceof ErrUnauthorized ? error.message : SERVICE_UNAVAILABLE_DESCRIPTION;
        this.deny(action, description);
        this.gate.rejected(this, request, error);
      },
    );
  }

  private admit(request: AccessRequest, grant: AccessGrant): void {
    // The client may have left while the check ran, or we closed the connection meanwhile: nothing to start.
    if (this.socket.destroyed || this.discardInput) return;
    const refusal = request.action === 'play' ? this.gate.playRefusal?.(request) : undefined;
    if (refusal) {
      this.gate.log.info('play refused', { conn_id: this.id, remote_addr: request.remoteAddr, reason: refusal });
      return this.refuse('NetStream.Play.Failed', refusal);
    }
    if (request.action === 'play' && !this.gate.claimPlay(this, grant)) {
      this.gate.log.info('play refused: session already plays on another connection', { conn_id: this.id, remote_addr: request.remoteAddr });
      return this.deny('play', 'this access is already playing on another connection');
    }
    clearTimeout(this.admitTimer);
    const rtmp = this.rtmp;
    this.role = grant.role ?? 'primary';
    this.standby = grant.standby === true;
    this.watermark = request.action === 'publish' ? grant.watermark : undefined;
    this.showPath = `/${request.app}/${request.streamName}`;
    const path = request.action === 'publish' ? broadcastPathOf(request.app, request.streamName, this.role) : { app: request.app, name: request.streamName };
    this.onConnect({ ...path, host: rtmp.streamHost, query: rtmp.streamQuery });
    // The event's names, whichever broadcast this role feeds (HLS folder, reports and lease go by them).
    this.streamApp = request.app;
    this.streamName = request.streamName;
    if (request.action === 'publish') {
      if (this.broadcast.getPublishStatus() === 'publishing') {
        this.gate.log.info('publish refused: stream already has a publisher', { conn_id: this.id, app: request.app, stream_name: request.streamName });
        this.gate.alreadyPublishing?.(request);
        return this.refuse('NetStream.Publish.BadName', 'stream already publishing');
      }
      this.broadcast.publishGraceMs = this.gate.publishGraceMs;
      this.admitted = 'publish';
      this.accessRequest = request;
      rtmp.respondPublish();
      this.onPush();
    } else {
      this.admitted = 'play';
      this.accessRequest = request;
      rtmp.respondPlay();
      this.onPlay();
    }
    this.gate.log.info(`${request.action} accepted`, {
      conn_id: this.id,
      stream_key: `${request.app}/${request.streamName}`,
      remote_addr: request.remoteAddr,
    });
    this.socket.resume();
  }

  /** From now on nothing this client sends reaches the broadcast; used when its stream is ended from our side. */
  stopInput(): void {
    this.discardInput = true;
  }
}

/** `<ip>:<port>`; IPv4 clients of a dual-stack listener without their `::ffff:` prefix, IPv6 in brackets. */
function remoteAddrOf(socket: Socket): string {
  const ip = (socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return `${ip.includes(':') ? `[${ip}]` : ip}:${socket.remotePort ?? 0}`;
}

/** An empty `?token=` counts as missing; a repeated `token` uses its first non-empty value. */
function tokenOf(value: string | string[] | undefined): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (Array.isArray(value)) return value.find((token) => token !== '');
  return undefined;
}
