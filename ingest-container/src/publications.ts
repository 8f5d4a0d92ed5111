import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
import { describeError, type Logger } from './log';
import type { IngestMetrics } from './metrics';
import { startHlsJob, type HlsConfig, type HlsJob } from './hls/packager';
import type { LeaseClient } from './platform/live-notifier';
import { startLeaseRenewal } from './platform/lease-renewal';
import type { GatedRtmpSession } from './rtmp/gated-session';
import { chooseOnAir, healthy, type EncoderRole, type EncoderState } from './failover/on-air-choice';
import type { Verdict } from './video/keyframe-judge';

/** One encoder of a show: its broadcast, and the connection feeding it (a resume within its window replaces it). */
interface Feed {
  role: EncoderRole;
  session: GatedRtmpSession;
  broadcast: BroadcastServer;
  connected: boolean;
  /** When it connected, or dropped (ms). */
  since: number;
}

/**
 * An event's show on this process: one or two encoders (feeds), one of them on air. As the lease
 * holder (`holder`) this process packages the encoder on air; otherwise it stands by with its
 * encoder, asking for the lease every `STANDBY_POLL_MS`, until the holder hands the show over.
 */
interface Show {
  showPath: string;
  streamName: string;
  feeds: Map<EncoderRole, Feed>;
  onAir: EncoderRole | undefined;
  holder: boolean;
  hls: Promise<HlsJob | undefined> | undefined;
  /** Renews the event's lease while this process holds the show (also through a reconnect window). */
  renewal: { stop(): void } | undefined;
  /** Another process took the show over: this one must not write the final playlists or end the lease. */
  leaseLost: boolean;
  /** A handover, a standby's lease request or a check for a remote standby is under way. */
  busy: boolean;
  lastStandbyCheckAt: number;
  /** An operator asked for this encoder (applied once it is healthy, then forgotten). */
  requested: EncoderRole | undefined;
}

export interface PublicationDeps {
  hls: HlsConfig | undefined;
  notifier: LeaseClient;
  log: Logger;
  metrics: Pick<IngestMetrics, 'count'>;
  /** The folder under `streams/` a publication's HLS goes to (default: its stream name). */
  hlsNameOf?: (session: GatedRtmpSession) => string;
  /** The packaging of a publication began a run that re-encodes its video, or one that copies it (by broadcast path). */
  onPackaging?: (streamPath: string, reencoding: boolean) => void;
  /** Copy or re-encode, as measured on this broadcast's encoder so far (a standby going on air starts without waiting). */
  verdictOf?: (streamPath: string) => Verdict | undefined;
  /** An encoder silent this long is not healthy: a standby takes over. At most 5 s; default 1.5 s. */
  failoverSilenceMs?: number;
  /** Another encoder went on air (metrics, reports, alarms). */
  onSwitch?: (streamName: string, from: EncoderRole | undefined, to: EncoderRole, reason: string) => void;
  /** Something about an encoder changed (connected, dropped, on air). */
  onEncoders?: (streamName: string, encoders: EncoderSnapshot[]) => void;
}

export interface EncoderSnapshot {
  role: EncoderRole;
  connected: boolean;
  onAir: boolean;
  since: number;
  session: GatedRtmpSession;
}

/** Well inside the API's 15 s lease (functions/domain/streams/stream-lease.ts): two renewals may fail before it runs out. */
export const LEASE_RENEW_MS = 5_000;
/** How often the encoders are looked at (silence) and a standby asks for the lease: well inside the 3 s a switch may take. */
export const FAILOVER_TICK_MS = 250;
/** A holder whose encoder is down asks the platform for a standby elsewhere at most this often. */
const STANDBY_CHECK_MS = 1_000;
export const DEFAULT_FAILOVER_SILENCE_MS = 1_500;

/**
 * A show runs from an accepted publish until every encoder of it is gone:
 * stopped cleanly (FCUnpublish/deleteStream), its reconnect window over, or
 * cut. A resume within the window continues the same feed. With two encoders
 * (primary and backup, docs/ingest.md "Backup encoder") the one on air is
 * chosen by `chooseOnAir`: a drop, a reset or silence puts the other on air at
 * once, as a new part of the same recording; the returned encoder waits as
 * standby. Across processes the lease decides: the holder packages, a process
 * with the other encoder stands by, and the holder hands the lease over when
 * its encoder fails. Starting: the lease was taken (or the standby registered)
 * by the publish check (admission.ts); ending: final playlists stored, then the
 * lease released, unless a standby elsewhere takes the show.
 */
export function createPublications(deps: PublicationDeps) {
  const book = new ShowBook(deps);
  const feeds = () => [...book.shows.values()].flatMap((show) => [...show.feeds.values()]);
  return {
    publishStarted: (session: GatedRtmpSession) => book.publishStarted(session),
    publishDone: (session: GatedRtmpSession) => book.publishDone(session),
    publisherClosed: (session: GatedRtmpSession) => book.publisherClosed(session),
    cutOff: (streamPath: string) => book.cutOff(streamPath),
    publisherStopped: (session: GatedRtmpSession) => book.publisherStopped(session),
    request: (streamName: string, role: EncoderRole) => book.request(streamName, role),
    /** Publishers on air or standing by now (not those inside a reconnect window): the recheck asks for each. */
    onAir: (): GatedRtmpSession[] => feeds().filter((feed) => feed.broadcast.getPublishStatus() === 'publishing').map((feed) => feed.session),
    /** Every encoder's broadcast path (shutdown cuts them all). */
    streamPaths: () => feeds().map((feed) => feed.broadcast.streamPath),
    /** Shows this process holds the lease of (packaging, or inside a reconnect window). */
    showCount: () => [...book.shows.values()].filter((show) => show.holder).length,
    /** This broadcast's encoder is the one on air (a standby's, or one of a show on air elsewhere, is not). */
    isOnAir: (streamPath: string) =>
      [...book.shows.values()].some((show) => show.holder && show.feeds.get(show.onAir!)?.broadcast.streamPath === streamPath),
    /** An encoder of this show (`/<app>/<name>`) here is watermarked: RTMP play would relay its unmarked picture. */
    watermarked: (showPath: string) => [...(book.shows.get(showPath)?.feeds.values() ?? [])].some((feed) => feed.session.watermark !== undefined),
    /** This process holds the lease of this show (`/<app>/<name>`): a publish of it needs no new lease. */
    has: (showPath: string) => book.shows.get(showPath)?.holder === true,
    /** Waits for every ending show to finish its uploads and notices. */
    drain: () => book.drain(),
    stop: () => clearInterval(book.ticker),
  };
}

const showPathOf = (session: GatedRtmpSession) => session.showPath || session.streamPath;
const roleOf = (session: GatedRtmpSession): EncoderRole => session.role ?? 'primary';
const statesOf = (show: Show) =>
  Object.fromEntries([...show.feeds].map(([role, feed]) => [role, { connected: feed.connected, lastInputAt: feed.session.lastInputAt ?? Date.now() }])) as Partial<
    Record<EncoderRole, EncoderState>
  >;

/** The shows of this process, and what happens to them; `createPublications` is its face. */
class ShowBook {
  readonly shows = new Map<string, Show>();
  readonly ending = new Set<Promise<void>>();
  readonly ticker: NodeJS.Timeout;
  readonly silenceMs: number;

  constructor(private readonly deps: PublicationDeps) {
    this.silenceMs = deps.failoverSilenceMs ?? DEFAULT_FAILOVER_SILENCE_MS;
    this.ticker = setInterval(() => this.shows.forEach((show) => this.tick(show)), FAILOVER_TICK_MS);
    this.ticker.unref();
  }

  private report(show: Show): void {
    const encoders = [...show.feeds.values()].map((feed) => ({
      role: feed.role,
      connected: feed.connected,
      onAir: show.holder && show.onAir === feed.role,
      since: feed.since,
      session: feed.session,
    }));
    this.deps.onEncoders?.(show.streamName, encoders);
  }

  /** node-media-server accepted a publish (postPublish): a new show, a new encoder of one, or a feed resumed. */
  publishStarted(session: GatedRtmpSession): void {
    const role = roleOf(session);
    let show = this.shows.get(showPathOf(session));
    if (!show) {
      show = newShow(session);
      this.shows.set(show.showPath, show);
    }
    const feed = show.feeds.get(role);
    if (feed) {
      Object.assign(feed, { session, connected: true, since: Date.now() });
      this.deps.log.info('publish resumed', { stream_name: show.streamName, conn_id: session.id, role });
    } else {
      show.feeds.set(role, { role, session, broadcast: session.broadcast, connected: true, since: Date.now() });
      if (show.feeds.size > 1) this.deps.log.info('encoder standing by', { stream_name: show.streamName, conn_id: session.id, role });
    }
    // Admitted with the lease (not as a standby): this process has the show on air now.
    if (!session.standby && !show.holder) this.becomeHolder(show, role);
    else this.tick(show);
    // A second encoder here: the lease's standby place is this holder's at once, not at the next renewal.
    if (show.holder && role !== show.onAir) void this.deps.notifier.acquire(show.streamName, show.onAir, localStandby(show));
    this.report(show);
  }

  /** This process holds the lease now: package `role`'s encoder and renew the lease. */
  private becomeHolder(show: Show, role: EncoderRole): void {
    const feed = show.feeds.get(role)!;
    show.holder = true;
    show.onAir = role;
    show.leaseLost = false;
    const onAirPath = () => show.feeds.get(show.onAir!)?.broadcast.streamPath;
    show.hls = startPackaging(this.deps, feed.session, onAirPath, this.deps.verdictOf?.(feed.broadcast.streamPath));
    show.renewal = startLeaseRenewal({
      notifier: this.deps.notifier,
      eventId: show.streamName,
      role: () => show.onAir ?? role,
      standby: () => localStandby(show),
      everyMs: LEASE_RENEW_MS,
      lost: () => this.leaseLost(show),
    });
  }

  /** Our lease ran out (we could not renew in time) and another process has the show now: stop writing it. */
  private leaseLost(show: Show): void {
    this.deps.log.error('stream lease lost to another ingest, publish ended', { stream_name: show.streamName });
    show.leaseLost = true;
    for (const feed of show.feeds.values()) cutFeed(feed);
  }

  /** Looks at the encoders: a switch, a handover to a standby elsewhere, or (standing by) a request for the lease. */
  private tick(show: Show): void {
    if (show.busy || this.shows.get(show.showPath) !== show) return;
    if (!show.holder) return this.standbyAsk(show);
    const now = Date.now();
    const encoders = statesOf(show);
    const next = chooseOnAir({ onAir: show.onAir, encoders, now, silenceMs: this.silenceMs, requested: show.requested });
    if (show.requested && next === show.requested) show.requested = undefined;
    if (next && next !== show.onAir) return this.switchTo(show, next, encoders[show.onAir!]?.connected ? 'silent' : 'dropped');
    const down = show.onAir !== undefined && !healthy(encoders[show.onAir], now, this.silenceMs);
    const remoteWanted = show.requested !== undefined && !show.feeds.has(show.requested);
    if ((down || remoteWanted) && now - show.lastStandbyCheckAt >= STANDBY_CHECK_MS) {
      show.lastStandbyCheckAt = now;
      void this.withBusy(show, async () => void (await this.handOverIfStandby(show)));
    }
  }

  private async withBusy(show: Show, work: () => Promise<void>): Promise<void> {
    show.busy = true;
    try {
      await work();
    } catch (error) {
      this.deps.log.error('failover step failed', { stream_name: show.streamName, error: describeError(error) });
    } finally {
      show.busy = false;
    }
  }

  /** The encoder on air here changes: the packaging continues from the other broadcast as a new part. */
  private switchTo(show: Show, role: EncoderRole, reason: string): void {
    const from = show.onAir;
    const feed = show.feeds.get(role)!;
    show.onAir = role;
    const verdict = this.deps.verdictOf?.(feed.broadcast.streamPath);
    void show.hls?.then((job) => job?.switchTo(feed.broadcast, { verdict }));
    this.deps.log.warn('encoder on air switched', { stream_name: show.streamName, from, to: role, reason });
    // The lease says which encoder is on air (the audit log's stream.failover).
    void this.deps.notifier.acquire(show.streamName, role, localStandby(show));
    this.deps.onSwitch?.(show.streamName, from, role, reason);
    this.report(show);
  }

  /** Standing by: ask for the lease with the healthiest encoder here; granted (handed over or run out), go on air. */
  private standbyAsk(show: Show): void {
    const now = Date.now();
    const encoders = statesOf(show);
    const role = chooseOnAir({ onAir: undefined, encoders, now, silenceMs: this.silenceMs });
    if (!role || !healthy(encoders[role], now, this.silenceMs)) return;
    void this.withBusy(show, async () => {
      const answer = await this.deps.notifier.acquire(show.streamName, role);
      if (answer !== 'ok' || this.shows.get(show.showPath) !== show || !show.feeds.has(role)) return;
      this.deps.log.warn('standby encoder on air: the show was handed over to this ingest', { stream_name: show.streamName, role });
      this.becomeHolder(show, role);
      this.deps.onSwitch?.(show.streamName, undefined, role, 'handover');
      this.report(show);
    });
  }

  /**
   * The encoder on air here failed (or an operator wants the other one, which is elsewhere) and none here
   * can take over: if another process stands by with the other encoder, this one stores its last segment
   * and hands it the lease (the event stays `live`); the show here stands by from then on.
   */
  private async handOverIfStandby(show: Show): Promise<boolean> {
    const { notifier, log } = this.deps;
    await notifier.acquire(show.streamName, show.onAir);
    if (!notifier.standbyOf(show.streamName) || !show.holder) return false;
    show.requested = undefined;
    const job = await show.hls;
    show.hls = undefined;
    show.renewal?.stop();
    await job?.stop({ final: () => false });
    if (!(await notifier.handover(show.streamName))) {
      log.warn('standby ingest gone before the handover: this ingest keeps the show', { stream_name: show.streamName });
      show.holder = false;
      if (show.feeds.has(show.onAir!)) this.becomeHolder(show, show.onAir!);
      return false;
    }
    log.warn('show handed over to the standby ingest', { stream_name: show.streamName, from: show.onAir });
    show.holder = false;
    show.onAir = undefined;
    this.report(show);
    return true;
  }

  /** An encoder's connection closed (its reconnect window runs): the other one may go on air now. */
  publisherClosed(session: GatedRtmpSession): void {
    const show = this.shows.get(showPathOf(session));
    const feed = show?.feeds.get(roleOf(session));
    if (!show || feed?.session !== session) return;
    Object.assign(feed, { connected: false, since: Date.now() });
    this.tick(show);
    this.report(show);
  }

  /**
   * node-media-server finished an encoder's publish (donePublish: a clean stop, its reconnect window
   * over, or a cut): its feed goes; the show ends with the last one.
   */
  publishDone(session: GatedRtmpSession): void {
    const show = this.shows.get(showPathOf(session));
    const role = roleOf(session);
    if (!show || show.feeds.get(role)?.session !== session) return;
    show.feeds.delete(role);
    if (show.feeds.size > 0) {
      this.tick(show);
      return this.report(show);
    }
    this.shows.delete(show.showPath);
    show.renewal?.stop();
    this.report(show);
    const done = this.endShow(show).finally(() => this.ending.delete(done));
    this.ending.add(done);
  }

  /** The last encoder is gone: a standby elsewhere takes the show, or it ends (final playlists, lease released). */
  private async endShow(show: Show): Promise<void> {
    const ownsShow = () => show.holder && !show.leaseLost && !this.shows.has(show.showPath);
    if (ownsShow() && (await this.handOverIfStandby(show))) return;
    await (await show.hls)?.stop({ final: ownsShow });
    if (ownsShow()) await this.deps.notifier.release(show.streamName);
    this.deps.log.info('publication ended', { stream_name: show.streamName });
  }

  /**
   * Ends an encoder's publish now, without a reconnect window (`streamPath`: its broadcast): the
   * publisher is cut (recheck) or the server stops. node-media-server's donePublish follows.
   */
  cutOff(streamPath: string): void {
    for (const show of this.shows.values()) {
      for (const feed of show.feeds.values()) if (feed.broadcast.streamPath === streamPath || feed.session.streamPath === streamPath) cutFeed(feed);
    }
  }

  /**
   * The publisher said it is done (FCUnpublish/deleteStream): its feed ends now, no reconnect window.
   * The other encoder, connected, carries on; one that dropped earlier is not waited for: the show ends.
   */
  publisherStopped(session: GatedRtmpSession): void {
    const show = this.shows.get(showPathOf(session));
    const feed = show?.feeds.get(roleOf(session));
    if (!show || feed?.session !== session) return;
    this.deps.log.info('publish stopped by the publisher', { stream_name: show.streamName, conn_id: session.id, role: feed.role });
    const carriesOn = [...show.feeds.values()].some((other) => other !== feed && other.connected);
    for (const other of show.feeds.values()) if (other !== feed && !carriesOn) cutFeed(other);
    cutFeed(feed);
  }

  /** An operator asked for `role` on air (applied on the next look, once that encoder is healthy, here or elsewhere). */
  request(streamName: string, role: EncoderRole): void {
    for (const show of this.shows.values()) if (show.streamName === streamName && show.holder && show.onAir !== role) show.requested = role;
  }

  async drain(): Promise<void> {
    while (this.ending.size > 0) await Promise.all([...this.ending]);
  }
}

function newShow(session: GatedRtmpSession): Show {
  return {
    showPath: showPathOf(session),
    streamName: session.streamName,
    feeds: new Map(),
    onAir: undefined,
    holder: false,
    hls: undefined,
    renewal: undefined,
    leaseLost: false,
    busy: false,
    lastStandbyCheckAt: 0,
    requested: undefined,
  };
}

/** The encoder connected here beside the one on air, if any. */
function localStandby(show: Show): EncoderRole | undefined {
  return [...show.feeds.values()].find((feed) => feed.role !== show.onAir && feed.connected)?.role;
}

function cutFeed(feed: Feed): void {
  feed.session.stopInput();
  feed.broadcast._finishPublish();
}

const jobsBySession = new WeakMap<GatedRtmpSession, number>();

/** The HLS job of a show; a job that fails to start leaves the stream relayed over RTMP only. */
function startPackaging(
  deps: PublicationDeps,
  session: GatedRtmpSession,
  onAirPath: () => string | undefined,
  verdict: Verdict | undefined,
): Promise<HlsJob | undefined> {
  const { hls, log, metrics } = deps;
  if (!hls) return Promise.resolve(undefined);
  const hlsNameOf = deps.hlsNameOf ?? ((publisher: GatedRtmpSession) => publisher.streamName);
  // A connection that goes on air again (handed back and forth) starts a new recording part under a new id.
  const jobs = (jobsBySession.get(session) ?? 0) + 1;
  jobsBySession.set(session, jobs);
  return startHlsJob({
    broadcast: session.broadcast,
    streamName: hlsNameOf(session),
    publishId: jobs === 1 ? session.id : `${session.id}-on${jobs}`,
    config: hls,
    log,
    metrics,
    verdict,
    watermark: session.watermark,
    onPackaging: (reencoding) => deps.onPackaging?.(onAirPath() ?? session.streamPath, reencoding),
  }).catch((error) => {
    log.error('hls packaging failed to start', { stream_name: session.streamName, error: describeError(error) });
    return undefined;
  });
}
