import { createSocket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AwsConnection } from '../functions/adapters/aws-clients';
import { readApiConfig, type ApiConfig } from '../functions/config/api-config';
import { readMailerConfig, type MailerConfig } from '../functions/config/mailer-config';
import { readJobWorkerConfig } from '../functions/config/job-worker-config';
import { JOB_WORKER } from '../functions/domain/jobs';
import type { JobWorkerWiring } from '../functions/compose/job-worker';
import { hashAdminPassword } from '../functions/domain/staff';
import type { ApiWiring } from '../functions/compose/api-app';
import { parseDuration } from '../ingest-container/src/config/values';
import { parseLadder, type Rendition } from '../ingest-container/src/hls/ffmpeg-args';
import { freePort } from './free-port';

const root = fileURLToPath(new URL('..', import.meta.url));

interface LocalSecrets {
  adminPassword: string;
  internalApiKey: string;
  adminSessionSecret: string;
  totpEncryptionKey: string;
  playbackSigningKeys: string;
  orderWebhookSecret: string;
  /** `WATERMARK_SECRET`: the events' mark keys derive from it, so it is kept with the data like the signing keys. */
  watermarkSecret: string;
}

/** Where the stand-ins listen, once started. */
export interface StandIns {
  dynamoEndpoint: string;
  /** The embedded S3, which speaks SQS too. */
  s3Endpoint: string;
  /** The background jobs' queue on it (local/job-queues.ts). */
  jobsQueueUrl: string;
}

/**
 * The local system's configuration, read from the environment once (`npm start`'s settings,
 * README "Configuration"). Every part is then given what it needs explicitly: nothing is
 * written back into the environment.
 */
export interface LocalConfig {
  /** Listen ports; one set to 0 is chosen here, before anything starts, so that each part can be told the others'. */
  apiPort: number;
  mediaPort: number;
  rtmpPort: number;
  /** SRT callers (UDP; `SRT_PORT`, default 9000). */
  srtPort: number;
  /** HLS segment length the ingest cuts (`INGEST_HLS_SEGMENT`, default 1 s: docs/performance.md, "Latency"). */
  segmentSeconds: number;
  /** `DATA_DIR`; undefined keeps nothing. */
  dataDir: string | undefined;
  /** LevelDB folder of the embedded DynamoDB; undefined keeps data in memory. */
  dynamoDir: string | undefined;
  /** Folder of the embedded S3 (HLS); undefined keeps objects in memory. */
  s3Dir: string | undefined;
  tableName: string;
  /** The staff accounts' table (only the admin function reaches it in AWS). */
  staffTableName: string;
  mediaBucket: string;
  /** The embedded S3's bucket for export jobs' files (downloaded from the stand-in's own address). */
  exportBucket: string;
  /** Built web pages served by the API port. */
  webRoot: string;
  logLevel: string;
  /** The ingest's reconnect window after a dropped connection (`INGEST_PUBLISH_GRACE`). */
  reconnectWindowMs: number;
  /** Seekable time behind the live edge (`INGEST_HLS_DVR_WINDOW`). */
  dvrWindowMs: number;
  /** `INGEST_HLS_REENCODE`: `auto` re-encodes video whose keyframes are too far apart for the segments; `off` copies always. */
  reencode: 'auto' | 'off';
  internalApiKey: string;
  adminPassword: string;
  /** The key TOTP secrets are sealed with (`ADMIN_TOTP_KEY` of the API). */
  totpEncryptionKey: string;
  /** JSON of `PLAYBACK_SIGNING_KEYS` (docs/contracts.md). */
  playbackSigningKeys: string;
  /** The ffmpeg the ingest runs (`FFMPEG_PATH`). */
  ffmpegPath: string;
  /** An adaptive ladder instead of copied codecs (`INGEST_HLS_LADDER`, as the ingest container's `-hls-ladder`). */
  ladder: Rendition[];
  /** The order webhook's signing secret (`ORDER_WEBHOOK_SECRET`). */
  orderWebhookSecret: string;
  /** The inbox port of the local mail catcher (`MAIL_PORT`), used when `SMTP_URL` is not set. */
  mailPort: number;
  /** The address the inbox listens on (`MAIL_HOST`, default 127.0.0.1: only this machine reads the ticket emails). */
  mailHost: string;
  /** The mailer's configuration for a site at `siteUrl` sending through `smtpUrl` (`SMTP_URL` wins when set). */
  mailer(siteUrl: string, catcherSmtpUrl: string | null): MailerConfig;
  /** `SMTP_URL`: mail goes to that server instead of the local catcher. */
  smtpUrl: string | null;
  /**
   * Without `STRIPE_SECRET_KEY`, the local stand-in of Stripe's API (local/stripe-fake.ts) on this port, with the key
   * the API's SDK sends it and the secret it signs its webhook deliveries with; null: the real Stripe (or `STRIPE_API_URL`).
   */
  stripeFake: { port: number; secretKey: string; webhookSecret: string } | null;
  /** How the SDK clients reach the stand-ins. */
  aws(standIns: Pick<StandIns, 'dynamoEndpoint' | 's3Endpoint'>): AwsConnection;
  /** The API's wiring on the stand-ins: its configuration (the same variables as in AWS, checked by the same module) and connection. */
  apiWiring(standIns: StandIns): ApiWiring;
  /** The job worker's wiring on the stand-ins (it runs in a process of its own: local/job-worker-process.ts). */
  jobWorkerWiring(standIns: StandIns): JobWorkerWiring;
  /** `JOB_WORKER_TIMEOUT`: the local worker's timeout, the Lambda's by default; shorter plays a small or slow worker. */
  jobWorkerTimeoutSeconds: number;
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) throw new Error(`${name} must be a port number (0 = any free port), got "${value}"`);
  return parsed;
}

/** 0 is a port the kernel picks now, on every interface (where the servers listen). */
const resolvePort = async (value: number) => (value === 0 ? freePort() : value);

/** SRT is UDP: a port 0 is chosen among free UDP ports. */
async function resolveUdpPort(value: number): Promise<number> {
  if (value !== 0) return value;
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => socket.once('error', reject).bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(resolve));
  return port;
}

/** `parse(value)`, its error prefixed with the variable's name. */
function named<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`);
  }
}

const duration = (value: string | undefined, fallback: string, name: string) => named(name, () => parseDuration(value || fallback));

/** Whole seconds, as Lambda's timeout and SQS's visibility timeout take them: 3 s up to Lambda's 15 minutes. */
function jobWorkerTimeout(value: string | undefined): number {
  const seconds = duration(value, `${JOB_WORKER.timeoutSeconds}s`, 'JOB_WORKER_TIMEOUT') / 1000;
  if (!Number.isInteger(seconds) || seconds < 3 || seconds > 900) throw new Error(`JOB_WORKER_TIMEOUT: whole seconds from 3s to 15m, got "${value}"`);
  return seconds;
}

function generateSecrets(): LocalSecrets {
  return {
    adminPassword: randomBytes(12).toString('base64url'),
    internalApiKey: randomBytes(24).toString('base64url'),
    adminSessionSecret: randomBytes(32).toString('base64url'),
    totpEncryptionKey: randomBytes(32).toString('base64url'),
    playbackSigningKeys: JSON.stringify({ activeKid: 'local-1', keys: { 'local-1': randomBytes(32).toString('base64url') } }),
    orderWebhookSecret: randomBytes(24).toString('base64url'),
    watermarkSecret: randomBytes(32).toString('base64url'),
  };
}

/**
 * Secrets the user did not set are generated; with a data folder they are
 * kept in `secrets.json` (mode 600) so tokens and the password survive a
 * restart, and printed only when first made.
 */
function loadSecrets(dataDir: string | undefined, env: NodeJS.ProcessEnv): { secrets: LocalSecrets; printed: string[] } {
  const file = dataDir ? join(dataDir, 'secrets.json') : undefined;
  const stored: Partial<LocalSecrets> = file && existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const fresh = generateSecrets();
  const printed: string[] = [];
  const pick = (name: keyof LocalSecrets, fromEnv: string | undefined, label?: string) => {
    if (fromEnv) return fromEnv;
    if (stored[name]) return stored[name]!;
    if (label) printed.push(`${label}: ${fresh[name]}`);
    return fresh[name];
  };
  const secrets: LocalSecrets = {
    adminPassword: pick('adminPassword', env.ADMIN_PASSWORD, 'admin password'),
    internalApiKey: pick('internalApiKey', env.INTERNAL_API_KEY, 'internal API key (X-Internal-Api-Key)'),
    adminSessionSecret: pick('adminSessionSecret', undefined),
    totpEncryptionKey: pick('totpEncryptionKey', undefined),
    playbackSigningKeys: pick('playbackSigningKeys', env.PLAYBACK_SIGNING_KEYS),
    orderWebhookSecret: pick('orderWebhookSecret', env.ORDER_WEBHOOK_SECRET, 'order webhook secret (ORDER_WEBHOOK_SECRET)'),
    watermarkSecret: pick('watermarkSecret', env.WATERMARK_SECRET),
  };
  if (file) {
    const { adminPassword, internalApiKey, orderWebhookSecret, watermarkSecret, ...always } = secrets;
    // Only generated values are stored: a password given in env stays out of the file.
    const keep = {
      ...always,
      ...(env.ADMIN_PASSWORD ? {} : { adminPassword }),
      ...(env.INTERNAL_API_KEY ? {} : { internalApiKey }),
      ...(env.ORDER_WEBHOOK_SECRET ? {} : { orderWebhookSecret }),
      ...(env.WATERMARK_SECRET ? {} : { watermarkSecret }),
    };
    writeFileSync(file, JSON.stringify(keep, null, 2), { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return { secrets, printed };
}

function segmentSeconds(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const ms = duration(value, value, 'INGEST_HLS_SEGMENT');
  if (ms < 500 || ms > 10_000) throw new Error(`INGEST_HLS_SEGMENT must be between 500ms and 10s, got "${value}"`);
  return ms / 1000;
}

function reencode(value: string | undefined): 'auto' | 'off' {
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'off') return 'off';
  throw new Error(`INGEST_HLS_REENCODE must be auto or off, got "${value}"`);
}

/** The tables of the embedded DynamoDB: the main one and the staff accounts'. */
export const LOCAL_TABLES = { tableName: 'stagedoor', staffTableName: 'stagedoor-staff' } as const;

/** `DATA_DIR` as a folder, or undefined for `memory` (nothing kept). */
export function localDataDir(env: NodeJS.ProcessEnv): string | undefined {
  const dataSetting = env.DATA_DIR || '.data';
  return dataSetting === 'memory' ? undefined : resolve(dataSetting);
}

/** The embedded DynamoDB's LevelDB folder in the data folder. */
export const localDynamoDir = (dataDir: string) => join(dataDir, 'dynamodb');

export async function loadLocalConfig(env: NodeJS.ProcessEnv): Promise<LocalConfig> {
  const dataDir = localDataDir(env);
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const { secrets, printed } = loadSecrets(dataDir, env);
  for (const line of printed) process.stdout.write(`${line}\n`);
  const { tableName, staffTableName } = LOCAL_TABLES;
  const mediaBucket = 'stagedoor-media';
  const exportBucket = 'stagedoor-exports';
  const logLevel = env.LOG_LEVEL || 'info';
  const ports = {
    api: port(env.API_PORT, 3000, 'API_PORT'),
    media: port(env.MEDIA_PORT, 4000, 'MEDIA_PORT'),
    rtmp: port(env.RTMP_PORT, 1935, 'RTMP_PORT'),
    srt: port(env.SRT_PORT, 9000, 'SRT_PORT'),
    mail: port(env.MAIL_PORT, 1080, 'MAIL_PORT'),
  };
  const seconds = segmentSeconds(env.INGEST_HLS_SEGMENT);
  const ladder = named('INGEST_HLS_LADDER', () => parseLadder(env.INGEST_HLS_LADDER ?? ''));
  const [apiPort, mediaPort, rtmpPort, mailPort] = await Promise.all([resolvePort(ports.api), resolvePort(ports.media), resolvePort(ports.rtmp), resolvePort(ports.mail)]);
  const srtPort = await resolveUdpPort(ports.srt);
  // Without a Stripe key the sale runs on the local stand-in, with a key and signing secret of this run's own.
  const stripeFake = env.STRIPE_SECRET_KEY
    ? null
    : {
        port: await freePort('127.0.0.1'),
        secretKey: `sk_test_local_${randomBytes(18).toString('base64url')}`,
        webhookSecret: env.STRIPE_WEBHOOK_SECRET || `whsec_${randomBytes(24).toString('base64url')}`,
      };
  const mailer = (siteUrl: string, catcherSmtpUrl: string | null) =>
    readMailerConfig({
      TABLE_NAME: tableName,
      SITE_ORIGIN: siteUrl,
      MAIL_FROM: env.MAIL_FROM || 'Stagedoor <tickets@stagedoor.localhost>',
      MAIL_TIME_ZONE: env.MAIL_TIME_ZONE,
      SMTP_URL: env.SMTP_URL || catcherSmtpUrl || undefined,
    });
  // Checked now, so that a malformed MAIL_* or SMTP_URL stops the start before anything runs.
  mailer('http://localhost', null);
  const apiConfig = await localApiConfig(env, { secrets, mediaPort, rtmpPort, srtPort, segmentSeconds: seconds, logLevel, stripeFake });
  const aws = ({ dynamoEndpoint, s3Endpoint }: Pick<StandIns, 'dynamoEndpoint' | 's3Endpoint'>): AwsConnection => ({
    region: env.AWS_REGION || 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    endpoints: { dynamodb: dynamoEndpoint, s3: s3Endpoint, sqs: s3Endpoint },
    s3ForcePathStyle: true,
  });
  return {
    apiPort,
    mediaPort,
    rtmpPort,
    srtPort,
    segmentSeconds: seconds,
    dataDir,
    dynamoDir: dataDir ? localDynamoDir(dataDir) : undefined,
    s3Dir: dataDir ? join(dataDir, 's3') : undefined,
    tableName,
    staffTableName,
    mediaBucket,
    exportBucket,
    webRoot: join(root, 'web', 'dist'),
    logLevel,
    reconnectWindowMs: duration(env.INGEST_PUBLISH_GRACE, '30s', 'INGEST_PUBLISH_GRACE'),
    jobWorkerTimeoutSeconds: jobWorkerTimeout(env.JOB_WORKER_TIMEOUT),
    dvrWindowMs: duration(env.INGEST_HLS_DVR_WINDOW, '2m', 'INGEST_HLS_DVR_WINDOW'),
    reencode: reencode(env.INGEST_HLS_REENCODE),
    internalApiKey: secrets.internalApiKey,
    adminPassword: secrets.adminPassword,
    totpEncryptionKey: secrets.totpEncryptionKey,
    playbackSigningKeys: secrets.playbackSigningKeys,
    orderWebhookSecret: secrets.orderWebhookSecret,
    mailPort,
    mailHost: env.MAIL_HOST || '127.0.0.1',
    mailer,
    smtpUrl: env.SMTP_URL || null,
    stripeFake,
    ffmpegPath: env.FFMPEG_PATH || 'ffmpeg',
    ladder,
    aws,
    // The queue exists once the stand-ins do: its URL is the one setting the API gets from them.
    apiWiring: (standIns) => ({ config: { ...apiConfig, jobsQueueUrl: standIns.jobsQueueUrl, exportBucket, mediaBucket }, aws: aws(standIns) }),
    jobWorkerWiring: (standIns) => ({
      config: {
        ...readJobWorkerConfig({ TABLE_NAME: tableName, JOBS_QUEUE_URL: standIns.jobsQueueUrl, EXPORT_BUCKET: exportBucket, LOG_LEVEL: logLevel }),
        // A cancelled show's refunds: the API's Stripe (the stand-in's key, or the user's).
        commerceSecrets: apiConfig.commerceSecrets,
        stripeApiUrl: apiConfig.stripeApiUrl,
      },
      aws: aws(standIns),
    }),
  };
}

/** The API's configuration in local mode: the settings a user may give, the rest this system's own (its ports, secrets and tables). */
async function localApiConfig(
  env: NodeJS.ProcessEnv,
  parts: { secrets: LocalSecrets; mediaPort: number; rtmpPort: number; srtPort: number; segmentSeconds: number; logLevel: string; stripeFake: LocalConfig['stripeFake'] },
): Promise<ApiConfig> {
  return readApiConfig({
    // What a user may set for the API locally (README "Configuration"); the rest is this system's own.
    SESSION_TIMEOUT_SECONDS: env.SESSION_TIMEOUT_SECONDS,
    INGEST_RTMP_URL: env.INGEST_RTMP_URL,
    TABLE_NAME: LOCAL_TABLES.tableName,
    STAFF_TABLE_NAME: LOCAL_TABLES.staffTableName,
    MEDIA_PORT: String(parts.mediaPort),
    // The OBS "Server" the console shows, without INGEST_RTMP_URL: the host the console was opened with on this port.
    INGEST_RTMP_PORT: String(parts.rtmpPort),
    // The same for SRT: INGEST_SRT_URL, else the console's host on this port.
    INGEST_SRT_URL: env.INGEST_SRT_URL,
    INGEST_SRT_PORT: String(parts.srtPort),
    INGEST_HLS_SEGMENT: `${parts.segmentSeconds}s`,
    MEDIA_ADMIN_URL: `http://127.0.0.1:${parts.mediaPort}`,
    LOG_LEVEL: parts.logLevel,
    PLAYBACK_SIGNING_KEYS: parts.secrets.playbackSigningKeys,
    INTERNAL_API_KEY: parts.secrets.internalApiKey,
    WATERMARK_SECRET: parts.secrets.watermarkSecret,
    ADMIN_PASSWORD_HASH: await hashAdminPassword(parts.secrets.adminPassword),
    ADMIN_SESSION_SECRET: parts.secrets.adminSessionSecret,
    ADMIN_TOTP_KEY: parts.secrets.totpEncryptionKey,
    ORDER_WEBHOOK_SECRET: parts.secrets.orderWebhookSecret,
    // With a real Stripe account: its key and the endpoint's signing secret (the Stripe CLI's `stripe listen` prints one).
    STRIPE_SECRET_KEY: parts.stripeFake?.secretKey ?? env.STRIPE_SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: parts.stripeFake?.webhookSecret ?? env.STRIPE_WEBHOOK_SECRET,
    STRIPE_API_URL: parts.stripeFake ? `http://127.0.0.1:${parts.stripeFake.port}` : env.STRIPE_API_URL,
  });
}
