import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
import { describeError, type Logger } from './log';
import type { IngestMetrics } from './metrics';
import { startHlsJob, type HlsConfig, type HlsJob } from './hls/packager';
import type { LeaseClient } from './platform/live-notifier';
import type { GatedRtmpSession } from './rtmp/gated-session';

interface Publication {
  streamName: string;
  broadcast: BroadcastServer;
  /** The connected publisher; it changes when the same client resumes within the grace window. */
  publisher: GatedRtmpSession;
  hls: Promise<HlsJob | undefined>;
  /** Renews the event's lease while the show is on (also through a reconnect window). */
  renewal: NodeJS.Timeout;
  /** Another process took the show over: this one must not write the final playlists or end the lease. */
  leaseLost: boolean;
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
 * taken by the publish check (server.ts), HLS packaging starts and the lease
 * is renewed; ending: final playlists stored, then the lease released.
 */
export function createPublications(deps: {
  hls: HlsConfig | undefined;
  notifier: LeaseClient;
  log: Logger;
  metrics: Pick<IngestMetrics, 'count'>;
  /** The folder under `streams/` a publication's HLS goes to (default: its stream name). */
  hlsNameOf?: (session: GatedRtmpSession) => string;
  /** The packaging of a publication began a run that re-encodes its video, or one that copies it. */
  onPackaging?: (streamPath: string, reencoding: boolean) => void;
}) {
  const { hls, notifier, log, metrics } = deps;
  const hlsNameOf = deps.hlsNameOf ?? ((session: GatedRtmpSession) => session.streamName);
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
    const streamName = session.streamName;
    const job = hls
      ? startHlsJob({
          broadcast: session.broadcast,
          streamName: hlsNameOf(session),
          publishId: session.id,
          config: hls,
          log,
          metrics,
          onPackaging: (reencoding) => deps.onPackaging?.(session.streamPath, reencoding),
        }).catch((error) => {
          log.error('hls packaging failed to start', { stream_name: streamName, error: describeError(error) });
          return undefined;
        })
      : Promise.resolve(undefined);
    const publication: Publication = { streamName, broadcast: session.broadcast, publisher: session, hls: job, leaseLost: false, renewal: setInterval(() => void renew(session.streamPath, publication), LEASE_RENEW_MS) };
    publication.renewal.unref();
    live.set(session.streamPath, publication);
  }

  async function renew(streamPath: string, publication: Publication): Promise<void> {
    const answer = await notifier.acquire(publication.streamName);
    if (answer !== 'held' || live.get(streamPath) !== publication) return;
    // Our lease ran out (we could not renew in time) and another process has the show now: stop writing it.
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
    clearInterval(publication.renewal);
    const done = (async () => {
      // Final playlists only if nobody else writes this show now: not another process (lease lost), not a new
      // publish of the same stream on this one.
      const ownsShow = () => !publication.leaseLost && !live.has(streamPath);
      await (await publication.hls)?.stop({ final: ownsShow });
      // A new publish of the stream on this process (another client took over the name) keeps the lease.
      if (!publication.leaseLost && !live.has(streamPath)) await notifier.release(publication.streamName);
      log.info('publication ended', { stream_name: publication.streamName });
    })().finally(() => ending.delete(done));
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
