import { s3Client } from '../adapters/aws-clients';
import { s3RecordingFinalizer } from '../adapters/recording-finalizer';
import type { RouteHandler } from '../http/api-types';
import { appSource, fromEnvironment, type ApiWiring, type App, type AppSource } from '../http/app';
import { areaHandler } from '../http/area-handler';
import { bearerToken, clientIp, header } from '../http/request-info';
import { playbackBaseUrl } from '../http/public-urls';
import { json } from '../http/responses';
import { heartbeat, longLivedPlaybackUrl, refreshPlayback, releasePlayback, validateCode } from '../domain/viewer-access';
import { settleExpiredLease, type RecordingFinalizer } from '../domain/stream-lease';
import { NotFound } from '../domain/errors';
import { eventStatusView } from '../domain/views';

/** How long shared caches may keep an event status: the player polls every 5 s near the start. */
export const STATUS_SHARED_CACHE_SECONDS = 5;

/** The viewers' area: also finalizes the recording of an ingest that died mid-show, where the media bucket is reachable. */
export interface PublicApp extends App {
  recordings: RecordingFinalizer | null;
}

/** Only the status route needs the finalizer, so only this area's bundle carries the S3 client. */
export function publicApp(wiring: ApiWiring, base: AppSource = appSource(wiring)): AppSource<PublicApp> {
  const { mediaBucket } = wiring.config;
  const recordings = mediaBucket ? s3RecordingFinalizer(s3Client(wiring.aws), mediaBucket) : null;
  return async () => ({ ...(await base()), recordings });
}

export const publicRoutes: Record<string, RouteHandler<PublicApp>> = {
  'POST /api/tokens/validate': async (request) => {
    const body = request.body as { code?: unknown } | undefined;
    return json(
      200,
      await validateCode(request.app, {
        code: body?.code,
        ip: clientIp(request.event, request.app.config.originVerifySecret),
        userAgent: header(request.event, 'user-agent'),
        playbackBaseUrl: playbackBaseUrl(request),
      }),
    );
  },
  'POST /api/playback/refresh': async (request) =>
    json(200, await refreshPlayback(request.app, bearerToken(request.event), playbackBaseUrl(request))),
  'POST /api/playback/url': async (request) =>
    json(200, await longLivedPlaybackUrl(request.app, bearerToken(request.event), playbackBaseUrl(request))),
  'POST /api/playback/heartbeat': async (request) => json(200, await heartbeat(request.app, bearerToken(request.event))),
  'POST /api/playback/release': async (request) => json(200, await releasePlayback(request.app, bearerToken(request.event))),
  'GET /api/events/{id}/status': async ({ app, params }) => {
    const found = await app.stores.events.getEvent(params.id ?? '');
    if (!found) throw new NotFound('event');
    const event = await settleExpiredLease(app, found);
    // Every waiting page polls this: CloudFront (the `/api/*` behavior caches this route only) answers
    // them for a few seconds per edge, so a million pages cost the origin a few requests a second.
    return json(200, eventStatusView(event, app.now()), { 'cache-control': `public, max-age=0, s-maxage=${STATUS_SHARED_CACHE_SECONDS}` });
  },
};

export const handler = areaHandler('public', publicRoutes, fromEnvironment(publicApp));
