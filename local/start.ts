/**
 * `npm start`: the whole system on one machine. Embedded DynamoDB and S3
 * stand-ins, the access API (the Lambda handlers behind a thin HTTP adapter),
 * the media server (HLS through `edge/`) and the RTMP ingest.
 */
import { loadLocalConfig } from './local-config';
import { startEmbeddedDynamo } from './embedded-dynamodb';
import { startEmbeddedS3 } from './embedded-s3';
import { startApiServer } from './api-server';
import { startMediaServer } from './media-server';
import { buildWeb } from '../web/build';
import { isLogLevel, s3Store, startIngestServer } from '../ingest-container/src/index';
import { parseLadder } from '../ingest-container/src/hls/ffmpeg-args';

async function main(): Promise<void> {
  // Local mode runs on the Node it finds; the SDK's notice about future Node 22 releases is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const config = await loadLocalConfig(process.env);
  const closers: (() => Promise<void>)[] = [];

  const dynamo = await startEmbeddedDynamo({ dataDir: config.dynamoDir, tableName: config.tableName });
  closers.push(dynamo.close);
  const s3 = await startEmbeddedS3({ buckets: [config.mediaBucket], dataDir: config.s3Dir });
  closers.push(s3.close);
  await config.applyToEnv({ dynamoEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint });

  // The viewer and the console, served by the API port.
  await buildWeb(config.webRoot);
  const api = await startApiServer({ port: config.apiPort, webRoot: config.webRoot });
  closers.push(api.close);

  const media = await startMediaServer({
    port: config.mediaPort,
    bucket: config.mediaBucket,
    apiUrl: api.url,
    internalApiKey: config.internalApiKey,
    playbackSigningKeys: config.playbackSigningKeys,
  });
  closers.push(media.close);
  // With MEDIA_PORT=0 the API must hand out the port actually bound.
  process.env.MEDIA_PORT = new URL(media.url).port;
  process.env.MEDIA_ADMIN_URL = media.url;
  // RTMP ingest: the same server as the container, in callback mode against this API, HLS to the local S3.
  const ingest = await startIngestServer({
    listen: { port: config.rtmpPort },
    auth: { mode: 'callback', url: `${api.url}/api/internal/rtmp-auth`, timeoutMs: 5_000, apiKey: config.internalApiKey },
    recheckIntervalMs: 30_000,
    hls: {
      store: s3Store({ bucket: config.mediaBucket, forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true' }),
      ffmpegPath: process.env.FFMPEG_PATH || 'ffmpeg',
      segmentSeconds: config.segmentSeconds,
      dvrWindowSeconds: config.dvrWindowMs / 1000,
      // Same variable as the ingest container's -hls-ladder: an adaptive ladder instead of copied codecs.
      ladder: parseLadder(process.env.INGEST_HLS_LADDER ?? ''),
      reencode: config.reencode,
    },
    publishGraceMs: config.reconnectWindowMs,
    platform: { apiUrl: api.url, apiKey: config.internalApiKey },
    logLevel: isLogLevel(config.logLevel) ? config.logLevel : 'info',
  });
  closers.push(ingest.close);
  const rtmpUrl = `${ingest.url}/live`;
  // The OBS "Server" the console shows is the host the console was opened with (a streamer on another machine
  // of the LAN needs that, not 127.0.0.1) on this port, unless INGEST_RTMP_URL names one; with RTMP_PORT=0
  // only now is the port known.
  process.env.INGEST_RTMP_PORT = new URL(ingest.url!).port;
  process.env.INGEST_HLS_SEGMENT = `${config.segmentSeconds}s`;

  api.open();
  // The media server answers 503 until it has read the revocation feed once: only then is it ready.
  await media.synced;
  // `s3`: the local bucket's endpoint, for a second ingest process (`npm run ingest -- -s3-bucket stagedoor-media`).
  const ready = { api: api.url, media: media.url, rtmp: rtmpUrl, s3: s3.endpoint };
  process.stdout.write(`ready ${JSON.stringify(ready)}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: shutting down\n`);
    for (const close of closers.reverse()) await close().catch((error) => process.stderr.write(`${error}\n`));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  process.stderr.write(`stagedoor failed to start: ${error instanceof Error ? error.stack : error}\n`);
  process.exit(1);
});
