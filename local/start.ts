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

async function main(): Promise<void> {
  // Local mode runs on the Node it finds; the SDK's notice about future Node 22 releases is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const config = await loadLocalConfig(process.env);
  const closers: (() => Promise<void>)[] = [];

  const dynamo = await startEmbeddedDynamo({ dataDir: config.dynamoDir, tableName: config.tableName });
  closers.push(dynamo.close);
  const s3 = await startEmbeddedS3({ buckets: [config.mediaBucket] });
  closers.push(s3.close);
  await config.applyToEnv({ dynamoEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint });

  await (await import('../web/build')).buildWeb(config.webRoot); // web pages (issue 6), served by the API
  const api = await startApiServer({ port: config.apiPort, webRoot: config.webRoot });
  closers.push(api.close);

  process.env.MEDIA_PORT = String(config.mediaPort);
  const media = await startMediaServer({
    port: config.mediaPort,
    bucket: config.mediaBucket,
    apiUrl: api.url,
    internalApiKey: config.internalApiKey,
    playbackSigningKeys: config.playbackSigningKeys,
    // With MEDIA_PORT=0 the API must hand out the port actually bound; it reads env on its first request.
    onListening: (url) => (process.env.MEDIA_PORT = new URL(url).port),
  });
  closers.push(media.close);
  process.env.MEDIA_ADMIN_URL = media.url;
  // [rtmp ingest: issue 4]

  const ready = { api: api.url, media: media.url };
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
