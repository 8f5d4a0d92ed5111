import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
import { describeError, type Logger } from './log';
import type { IngestMetrics } from './metrics';
import { startHlsJob, type HlsConfig, type HlsJob } from './hls/packager';
import type { LeaseClient } from './platform/live-notifier';
import { startLeaseRenewal } from './platform/lease-renewal';
import type { GatedRtmpSession } from './rtmp/gated-session';

interface Publication {
  streamName: string;
  broadcast: BroadcastServer;
  /** The connected publisher; it changes when the same client resumes within the grace window. */
  publisher: GatedRtmpSession;
  hls: Promise<HlsJob | undefined>;
  /** Renews the event's lease while the show is on (also through a reconnect window). */
  renewal: { stop(): void };
  /** Another process took the show over: this one must not write the final playlists or end the lease. */
  leaseLost: boolean;
}

interface PublicationDeps {
  hls: HlsConfig | undefined;
  notifier: LeaseClient;
  log: Logger;
  metrics: Pick<IngestMetrics, 'count'>;
  /** The folder under `streams/` a publication's HLS goes to (default: its stream name). */
  hlsNameOf?: (session: GatedRtmpSession) => string;
  /** The packaging of a publication began a run that re-encodes its video, or one that copies it. */
  onPackaging?: (streamPath: string, reencoding: boolean) => void;
}

/** Well inside the API's 15 s lease (functions/domain/streams/stream-lease.ts): two renewals may fail before it runs out. */
export const LEASE_RENEW_MS = 5_000;

/**
 * A publication runs from an accepted publish until the publisher stops
 * cleanly (FCUnpublish/deleteStream), or node-media-server ends the publish
 * (connection dropped and its grace window over), or we end it. A
 * resume within the grace window continues the same publication: same HLS
 * job, same playlist, no status change (the job starts a new part of the
 * recording if the encoder came back with other codec settings). Starting: the event's lease was
 * taken by the publish check (admission.ts), HLS packaging starts and the lease
 * is renewed; ending: final playlists stored, then the lease released.
 */
export function createPublications(deps: PublicationDeps) {
  const { notifier, log } = deps;
  const live = new Map<string, Publication>();
  const ending = new Set<Promise<void>>();

  /** node-media-server accepted a publish (postPublish): a new publication, or the same one resumed. */
  function publishStarted(session: GatedRtmpSession): void {
    const current = live.get(session.streamPath);
    if (current) {
      current.publisher = session;
      log.info('publish resumed', { stream_name: current.streamName, conn_id: session.id });
      return;
    }
    const publication: Publication = {
      streamName: session.streamName,
      broadcast: session.broadcast,
      publisher: session,
      hls: startPackaging(deps, session),
      leaseLost: false,
      renewal: startLeaseRenewal({ notifier, eventId: session.streamName, everyMs: LEASE_RENEW_MS, lost: () => leaseLost(session.streamPath, publication) }),
    };
    live.set(session.streamPath, publication);
  }

  /** Our lease ran out (we could not renew in time) and another process has the show now: stop writing it. */
  function leaseLost(streamPath: string, publication: Publication): void {
    log.error('stream lease lost to another ingest, publish ended', { stream_name: publication.streamName });
    publication.leaseLost = true;
    cutOff(streamPath);
  }

  /**
   * node-media-server finished the publish (donePublish: a clean stop, the grace window over, or a
   * cut-off): the publication ends with its final playlists and the lease released.
   */
  function publishDone(streamPath: string): void {
    const publication = live.get(streamPath);
    if (!publication) return;
    live.delete(streamPath);
    publication.renewal.stop();
    const done = endShow(publication, { notifier, log, takenOver: () => live.has(streamPath) }).finally(() => ending.delete(done));
    ending.add(done);
  }

  /**
   * Ends a publication now, without a grace window: the publisher is cut
   * (recheck) or the server stops. Its input is dropped from here on, and
   * node-media-server's donePublish follows (`publishDone`).
   */
  function cutOff(streamPath: string): void {
    const publication = live.get(streamPath);
    if (!publication) return;
    publication.publisher.stopInput();
    publication.broadcast._finishPublish();
  }

  /** The publisher said it is done (FCUnpublish/deleteStream): the show ends now, no reconnect window. */
  function publisherStopped(session: GatedRtmpSession): void {
    const publication = live.get(session.streamPath);
    if (publication?.publisher !== session) return;
    log.info('publish stopped by the publisher', { stream_name: publication.streamName, conn_id: session.id });
    cutOff(session.streamPath);
  }

  return {
    publishStarted,
    publishDone,
    cutOff,
    publisherStopped,
    /** Publishers on air now (not those inside a grace window). */
    onAir(): GatedRtmpSession[] {
      return [...live.values()].filter((p) => p.broadcast.getPublishStatus() === 'publishing').map((p) => p.publisher);
    },
    streamPaths: () => [...live.keys()],
    /** This process holds the show of this stream path (on air or inside its reconnect window). */
    has: (streamPath: string) => live.has(streamPath),
    /** Waits for every ending publication to finish its uploads and notices. */
    async drain(): Promise<void> {
      while (ending.size > 0) await Promise.all([...ending]);
    },
  };
}

/** The HLS job of a new publication; a job that fails to start leaves the stream relayed over RTMP only. */
function startPackaging(deps: PublicationDeps, session: GatedRtmpSession): Promise<HlsJob | undefined> {
  const { hls, log, metrics } = deps;
  if (!hls) return Promise.resolve(undefined);
  const hlsNameOf = deps.hlsNameOf ?? ((publisher: GatedRtmpSession) => publisher.streamName);
  return startHlsJob({
    broadcast: session.broadcast,
    streamName: hlsNameOf(session),
    publishId: session.id,
    config: hls,
    log,
    metrics,
    onPackaging: (reencoding) => deps.onPackaging?.(session.streamPath, reencoding),
  }).catch((error) => {
    log.error('hls packaging failed to start', { stream_name: session.streamName, error: describeError(error) });
    return undefined;
  });
}

/**
 * The end of a show: final playlists and the lease released, but only if
 * nobody else writes this show now: not another process (lease lost), not a
 * new publish of the same stream on this one (`takenOver`), which keeps the lease.
 */
async function endShow(publication: Publication, deps: { notifier: LeaseClient; log: Logger; takenOver: () => boolean }): Promise<void> {
  const ownsShow = () => !publication.leaseLost && !deps.takenOver();
  await (await publication.hls)?.stop({ final: ownsShow });
  if (ownsShow()) await deps.notifier.release(publication.streamName);
  deps.log.info('publication ended', { stream_name: publication.streamName });
}
