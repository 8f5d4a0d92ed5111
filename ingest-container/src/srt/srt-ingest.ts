import type { AccessGrant, AccessRequest } from '../auth/access-request';
import { AuthServiceUnavailable, ErrUnauthorized, StreamBusy } from '../auth/errors';
import type { Logger } from '../log';
import type { FailureBrake } from '../rtmp/failure-brake';
import { broadcastPathOf } from '../rtmp/gated-session';
import type { ListenAddress } from '../rtmp/listeners';
import { startSrtGate, type SrtCaller, type SrtEnd } from './gate-process';
import { startRemux, type Remux } from './remux';
import { parseStreamId, REJECT } from './stream-id';
import { createTickets } from './tickets';

export interface SrtOptions {
  listen: ListenAddress;
  /** Passphrase of modes none/token/file (callback mode: the platform's answer names it). */
  passphrase?: string;
  /** SRT's receiver latency (default 200 ms). */
  latencyMs?: number;
}

/** A dead encoder is noticed within 5 s: libsrt's peer idle timeout (its default is 5 s, plus the caller's own keepalive gap). */
const PEER_IDLE_MS = 3_000;
/**
 * An accepted caller whose media never arrives gives back the lease it took. The gate says so at once when the
 * handshake failed on the passphrase (after our accept); this is the bound should it not.
 */
const MEDIA_WAIT_MS = 5_000;

export interface SrtIngestDeps {
  options: SrtOptions;
  /** The admission of RTMP publishes, made with the brake given (one that never waits: the gate holds libsrt's receive thread meanwhile). */
  admission(brake: FailureBrake): (request: AccessRequest) => Promise<AccessGrant>;
  /** The brake RTMP uses, so guesses over either protocol count together. */
  brake: FailureBrake;
  /** A publisher is connected to this broadcast path here now (`broadcastPathOf`: the backup's is its own). */
  onAir(streamPath: string): boolean;
  holdsShow(streamPath: string): boolean;
  releaseLease(streamName: string): void;
  rejected(connection: { id: string }, request: AccessRequest, error: unknown): void;
  alreadyPublishing(request: AccessRequest): void;
  /** `rtmp://127.0.0.1:<port>` of the loopback listener the remuxes publish to. */
  loopbackUrl: string;
  ffmpegPath: string;
  log: Logger;
}

/**
 * SRT ingest: each caller is checked in its handshake with the same admission as an RTMP publish
 * (a refusal is SRT's reject reason, so the encoder shows it at once), encrypted with the event's
 * passphrase, then remuxed into an RTMP publish on the loopback listener with a one-time ticket.
 */
export async function startSrtIngest(deps: SrtIngestDeps) {
  const { log } = deps;
  const tickets = createTickets();
  const admitted = new Map<number, { request: AccessRequest; grant: AccessGrant; leased: boolean; timer: NodeJS.Timeout }>();
  const remuxes = new Map<number, Remux>();
  const lockout = createLockout(deps.brake);
  const admit = deps.admission(lockout.brake);
  const gate = await startSrtGate(
    { listen: deps.options.listen, latencyMs: deps.options.latencyMs ?? 200, peerIdleMs: PEER_IDLE_MS },
    {
      caller: (caller) => void onCaller(caller),
      media(id, socket) {
        const entry = admitted.get(id);
        admitted.delete(id);
        if (!entry) return socket.destroy();
        clearTimeout(entry.timer);
        const { request } = entry;
        const ticket = tickets.issue(request, entry.grant);
        const remux = startRemux({
          media: socket,
          rtmpUrl: `${deps.loopbackUrl}/${request.app}/${request.streamName}?token=${ticket}`,
          ffmpegPath: deps.ffmpegPath,
          connId: `srt-${id}`,
          log,
          onExit: () => remuxes.delete(id),
        });
        remuxes.set(id, remux);
      },
      ended: (id: number, how: SrtEnd) => remuxes.get(id)?.ended(how),
      failed: (id) => mediaNeverCame(id),
    },
    log,
  );

  async function onCaller(caller: SrtCaller): Promise<void> {
    const connection = { id: `srt-${caller.id}` };
    const parsed = parseStreamId(caller.streamId);
    const refuse = (reject: number, why: string) => {
      log.info('srt caller refused', { conn_id: connection.id, remote_addr: caller.peer, reject, why });
      gate.reject(caller.id, reject);
    };
    if (!parsed.ok) return refuse(parsed.reject, parsed.why);
    const request: AccessRequest = { action: 'publish', app: parsed.app, streamName: parsed.streamName, token: parsed.token, remoteAddr: caller.peer, protocol: 'srt' };
    const streamPath = `/${request.app}/${request.streamName}`;
    if (lockout.braked(caller.peer)) return refuse(REJECT.unauthorized, 'too many auth failures from this address');
    const leased = !deps.holdsShow(streamPath);
    let grant: AccessGrant;
    try {
      grant = await admit(request);
    } catch (error) {
      refuse(rejectReasonOf(error), error instanceof Error ? error.message : String(error));
      if (error instanceof StreamBusy) return deps.alreadyPublishing(request);
      return deps.rejected(connection, request, error);
    }
    // Which encoder it is (primary or backup) is the check's answer: only then is a connected one of that role a conflict.
    const { app, name } = broadcastPathOf(request.app, request.streamName, grant.role ?? 'primary');
    if (deps.onAir(`/${app}/${name}`)) {
      deps.alreadyPublishing(request);
      return refuse(REJECT.conflict, 'stream already has a publisher');
    }
    const timer = setTimeout(() => mediaNeverCame(caller.id), MEDIA_WAIT_MS);
    admitted.set(caller.id, { request, grant, leased, timer });
    gate.accept(caller.id, grant.srtPassphrase ?? deps.options.passphrase);
    log.info('srt caller admitted', { conn_id: connection.id, stream_key: `${request.app}/${request.streamName}`, remote_addr: caller.peer });
  }

  function mediaNeverCame(id: number): void {
    const entry = admitted.get(id);
    admitted.delete(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    const streamPath = `/${entry.request.app}/${entry.request.streamName}`;
    log.info('srt caller admitted but never connected (wrong passphrase?)', { conn_id: `srt-${id}`, remote_addr: entry.request.remoteAddr });
    if (entry.leased && !deps.holdsShow(streamPath)) deps.releaseLease(entry.request.streamName);
  }

  return {
    port: gate.port,
    /** The session gate's check for connections on the loopback listener: a ticket or nothing. */
    redeem: (request: AccessRequest) => tickets.redeem(request),
    async close(): Promise<void> {
      for (const remux of remuxes.values()) remux.kill();
      for (const entry of admitted.values()) clearTimeout(entry.timer);
      await gate.close();
    },
  };
}

function rejectReasonOf(error: unknown): number {
  if (error instanceof ErrUnauthorized) return REJECT.unauthorized;
  if (error instanceof StreamBusy) return REJECT.conflict;
  if (error instanceof AuthServiceUnavailable) return REJECT.unavailable;
  return REJECT.unavailable;
}

/**
 * The brute-force brake without the wait: RTMP answers a braked "no" late, but an SRT answer is
 * awaited on libsrt's receive thread, which also carries every other caller's packets on the port.
 * So an address the brake would delay is refused outright for that long instead.
 */
function createLockout(brake: FailureBrake, now: () => number = Date.now) {
  const until = new Map<string, number>();
  const ipOf = (peer: string) => peer.slice(0, peer.lastIndexOf(':'));
  return {
    brake: {
      failed(remoteAddr: string): number {
        const delayMs = brake.failed(remoteAddr);
        if (delayMs > 0) until.set(ipOf(remoteAddr), now() + delayMs);
        if (until.size > 10_000) until.delete(until.keys().next().value!);
        return 0;
      },
    } satisfies FailureBrake,
    braked(peer: string): boolean {
      const at = until.get(ipOf(peer));
      if (at !== undefined && at <= now()) until.delete(ipOf(peer));
      return at !== undefined && at > now();
    },
  };
}
