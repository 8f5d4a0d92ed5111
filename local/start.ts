/**
 * `npm start`: the whole system on one machine. Embedded DynamoDB and S3 (+ SQS)
 * stand-ins, the access API (the Lambda handlers behind a thin HTTP adapter),
 * the background-job worker (a child process), edge-sync, the audience recorder,
 * the mailer and the two sweeps (the same compositions, functions/compose/*.ts, on
 * the table's stream and on timers, as AWS runs them), a mail catcher with a web
 * inbox, the media server (HLS through `edge/`) and the RTMP ingest. The
 * configuration is read once (local-config.ts); each part is then given its dependencies.
 */
import { awsClients, dynamoDocumentClient, type AwsClients } from '../functions/adapters/aws-clients';
import { dynamoStores } from '../functions/adapters/dynamo-stores';
import { SqsJobQueue } from '../functions/adapters/sqs-job-queue';
import { copyStaffItems, retireStaffItems } from '../functions/adapters/staff-table-move';
import { compose as composeAudienceRecorder } from '../functions/compose/audience-recorder';
import { compose as composeCheckoutSweep } from '../functions/compose/checkout-sweep';
import { compose as composeEdgeSync } from '../functions/compose/edge-sync';
import { compose as composeMailer } from '../functions/compose/mailer';
import { compose as composeRecordingSweep } from '../functions/compose/recording-sweep';
import { describeError } from '../recording/log';
import { startEdgeSync, type LocalEdge } from './edge-sync-triggers';
import { inboxOpenToNetwork, startMailCatcher } from './mail-catcher';
import { startStripeFake } from './stripe-fake';
import { startMailer } from './mailer-triggers';
import { loadLocalConfig, type LocalConfig, type StandIns } from './local-config';
import { startEmbeddedDynamo } from './embedded-dynamodb';
import { announceRunningSystem, refuseSecondSystem } from './running-system';
import { startEmbeddedS3 } from './embedded-s3';
import { createJobQueues, requeueUnfinishedJobs, type JobQueues } from './job-queues';
import { startJobWorkerProcess } from './job-worker-process';
import { startApiServer, type ApiServer } from './api-server';
import { startMediaServer } from './media-server';
import { repeat } from './repeat';
import { startStreamTrigger } from './triggers/stream-trigger';
import type { TableStream } from './table-stream';
import { buildWeb } from '../web/build';
import { TRIGGERS, type ScheduleTrigger } from '../infra/lib/triggers';
import { isLogLevel, s3Store, startIngestServer } from '../ingest-container/src/index';

type Closers = (() => Promise<void>)[];

async function main(): Promise<void> {
  // Local mode runs on the Node it finds; the SDK's notice about future Node 22 releases is noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const config = await loadLocalConfig(process.env);
  const closers: Closers = [];
  if (config.dataDir) refuseSecondSystem(config.dataDir);
  const { standIns, stream, jobQueues } = await startStandIns(config, closers);
  const clients = awsClients(config.aws(standIns));

  // Background jobs: the steps a run before this one left unfinished, and the worker that runs them.
  await requeueUnfinishedJobs(dynamoStores(clients.dynamo, config.tableName), {
    steps: new SqsJobQueue(clients.sqs, jobQueues.queueUrl),
    deadLetters: new SqsJobQueue(clients.sqs, jobQueues.deadLetterQueueUrl),
  });
  const worker = startJobWorkerProcess(config.jobWorkerWiring(standIns), config.jobWorkerTimeoutSeconds);
  closers.push(worker.close);

  // The viewer and the console, served by the API port.
  await buildWeb(config.webRoot);
  const api = await startApiServer({ port: config.apiPort, webRoot: config.webRoot, wiring: config.apiWiring(standIns) });
  closers.push(api.close);

  const { edge, catcher } = await startTriggers(config, standIns, { stream, clients, api }, closers);
  // Ticket sales without a Stripe account: the stand-in of Stripe's API, its checkout page and its webhooks.
  const stripe = config.stripeFake ? await startStripeFake({ ...config.stripeFake, webhookUrl: `${api.url}/api/webhooks/stripe` }) : null;
  if (stripe) closers.push(stripe.close);
  const media = await startMediaServer({ port: config.mediaPort, bucket: config.mediaBucket, s3Client: clients.s3, edge });
  closers.push(media.close);
  const { rtmpUrl, srtUrl } = await startIngest(config, clients, api.url, closers);

  // The media server answers 503 until edge-sync has filled its store once: only then is it ready.
  if (!(await edge.firstSync)) process.stderr.write('media: no revocation state yet: media requests get 503 until edge-sync reconciles\n');
  // `s3`: the local bucket's endpoint, for a second ingest process (`npm run ingest -- -s3-bucket stagedoor-media`);
  // it speaks SQS too, for the jobs queue and its dead-letter queue (say, to redrive it); `dynamodb`: the
  // embedded table's endpoint (to look into it with any DynamoDB client); `mail`: the
  // inbox of the emails sent (absent when SMTP_URL sends them elsewhere); `stripe`: the stand-in of Stripe's API
  // (absent with STRIPE_SECRET_KEY).
  const ready = {
    api: api.url,
    media: media.url,
    rtmp: rtmpUrl,
    srt: srtUrl,
    s3: standIns.s3Endpoint,
    dynamodb: standIns.dynamoEndpoint,
    jobQueue: jobQueues.queueUrl,
    jobDeadLetterQueue: jobQueues.deadLetterQueueUrl,
    ...(catcher ? { mail: catcher.inboxUrl } : {}),
    ...(stripe ? { stripe: stripe.url } : {}),
  };
  process.stdout.write(`ready ${JSON.stringify(ready)}\n`);
  stopOnSignals(closers);
}

/** The embedded DynamoDB (with its stream), S3 and SQS, and the jobs queues on it. */
async function startStandIns(config: LocalConfig, closers: Closers): Promise<{ standIns: StandIns; stream: TableStream; jobQueues: JobQueues }> {
  const dynamo = await startEmbeddedDynamo({ dataDir: config.dynamoDir, tableName: config.tableName, staffTableName: config.staffTableName });
  closers.push(dynamo.close);
  if (config.dataDir) {
    const forget = announceRunningSystem(config.dataDir, dynamo.endpoint);
    closers.push(async () => forget());
  }
  await moveStaffItems(config, dynamo.endpoint);
  const s3 = await startEmbeddedS3({ buckets: [config.mediaBucket, config.exportBucket], dataDir: config.s3Dir });
  closers.push(s3.close);
  const jobQueues = await createJobQueues(s3.endpoint, config.jobWorkerTimeoutSeconds);
  return { standIns: { dynamoEndpoint: dynamo.endpoint, s3Endpoint: s3.endpoint, jobsQueueUrl: jobQueues.queueUrl }, stream: dynamo.stream, jobQueues };
}

/**
 * What AWS runs on the table's stream and on schedules, composed as each Lambda composes it: edge-sync
 * (into the local edge's KeyValueStore), the audience recorder, the mailer (to SMTP_URL or the local
 * catcher and its inbox), and the recording and checkout sweeps.
 */
async function startTriggers(config: LocalConfig, standIns: StandIns, on: { stream: TableStream; clients: AwsClients; api: ApiServer }, closers: Closers) {
  const { stream, clients, api } = on;
  const apiConfig = config.apiWiring(standIns).config;
  const edge: LocalEdge = startEdgeSync({
    stream,
    compose: (keyValueStore) => composeEdgeSync({ tableName: config.tableName, kvsArn: 'local', secrets: apiConfig.secrets }, { dynamo: clients.dynamo, keyValueStore }),
  });
  closers.push(edge.stop);
  // The audience recorder on the same stream, batched as its event source mapping batches it in AWS.
  const audience = startStreamTrigger({
    stream,
    settings: TRIGGERS['audience-recorder'].stream,
    handler: composeAudienceRecorder({ tableName: config.tableName, sessionTimeoutSeconds: apiConfig.sessionTimeoutSeconds }, clients),
    log: (line) => process.stderr.write(`audience: ${line}\n`),
  });
  closers.push(audience.stop);
  const catcher = config.smtpUrl ? null : await startMailCatcher({ inboxPort: config.mailPort, host: config.mailHost });
  if (catcher) closers.push(catcher.close);
  if (catcher && inboxOpenToNetwork(config.mailHost)) {
    process.stderr.write(`mail: WARNING the inbox listens on ${config.mailHost} (MAIL_HOST) with no sign-in: anyone who reaches this machine reads every ticket email and its codes\n`);
  }
  const mailer = startMailer({ stream, mailer: composeMailer(config.mailer(api.url, catcher?.smtpUrl ?? null), clients) });
  closers.push(mailer.stop);
  // As their schedules in AWS: every minute, the shows whose ingest died get their final playlists; every
  // five, the checkouts Stripe's webhook left held are settled.
  const recordingSweep = composeRecordingSweep({ tableName: config.tableName, mediaBucket: config.mediaBucket }, clients, { reportShows: false });
  closers.push(onSchedule('recording sweep', TRIGGERS['recording-sweep'].schedule, recordingSweep));
  closers.push(onSchedule('checkout sweep', TRIGGERS['checkout-sweep'].schedule, composeCheckoutSweep(apiConfig, clients)));
  return { edge, catcher };
}

/** RTMP and SRT ingest: the same server as the container, in callback mode against this API, HLS to the local S3; its URLs. */
async function startIngest(config: LocalConfig, clients: AwsClients, apiUrl: string, closers: Closers): Promise<{ rtmpUrl: string; srtUrl: string }> {
  const ingest = await startIngestServer({
    listen: { port: config.rtmpPort },
    srt: { listen: { port: config.srtPort } },
    auth: { mode: 'callback', url: `${apiUrl}/api/internal/rtmp-auth`, timeoutMs: 5_000, apiKey: config.internalApiKey },
    recheckIntervalMs: 30_000,
    hls: {
      store: s3Store({ bucket: config.mediaBucket, client: clients.s3 }),
      ffmpegPath: config.ffmpegPath,
      segmentSeconds: config.segmentSeconds,
      dvrWindowSeconds: config.dvrWindowMs / 1000,
      ladder: config.ladder,
      reencode: config.reencode,
    },
    publishGraceMs: config.reconnectWindowMs,
    platform: { apiUrl, apiKey: config.internalApiKey },
    logLevel: isLogLevel(config.logLevel) ? config.logLevel : 'info',
  });
  closers.push(ingest.close);
  return { rtmpUrl: `${ingest.url}/live`, srtUrl: ingest.srtUrl! };
}

/** SIGINT and SIGTERM close every part, the last started first, once. */
function stopOnSignals(closers: Closers): void {
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

/** Runs `task` now and on its schedule's period after each run, as EventBridge would; its failures are printed (the next run is the retry). */
function onSchedule(name: string, schedule: ScheduleTrigger, task: () => Promise<unknown>): () => Promise<void> {
  const logFailure = (error: unknown) => void process.stderr.write(`${name}: ${describeError(error)}\n`);
  return repeat(() => task().then(() => undefined, logFailure), () => schedule.everySeconds * 1000).stop;
}

/**
 * A data folder from before the staff table keeps staff accounts in the main table: both steps of
 * the deploy's move (infra/runtime/move-staff-items.ts), one after the other, before the API starts.
 */
async function moveStaffItems(config: LocalConfig, dynamoEndpoint: string): Promise<void> {
  const client = dynamoDocumentClient(config.aws({ dynamoEndpoint, s3Endpoint: '' }));
  const move = { from: config.tableName, to: config.staffTableName, totpEncryptionKey: config.totpEncryptionKey };
  try {
    const { copied } = await copyStaffItems(client, move);
    await retireStaffItems(client, move);
    if (copied.length > 0) process.stdout.write(`staff accounts moved to their own table: ${copied.length} items; staff sign in once more\n`);
  } finally {
    client.destroy();
  }
}

main().catch((error) => {
  process.stderr.write(`stagedoor failed to start: ${error instanceof Error ? error.stack : error}\n`);
  process.exit(1);
});
