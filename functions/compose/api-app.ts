import type { AwsClients, AwsConnection } from '../adapters/aws-clients';
import { dynamoAccountStore, dynamoStores } from '../adapters/dynamo-stores';
import { mediaCacheOf } from '../adapters/media-cache-of';
import { s3ExportFiles } from '../adapters/s3-export-files';
import { s3RecordingFiles } from '../adapters/s3-recording-files';
import { loadAdminSecrets, loadCommerceSecrets, loadSharedSecrets } from '../adapters/secrets';
import { SqsJobQueue } from '../adapters/sqs-job-queue';
import { droppedReportsTelemetry } from '../adapters/telemetry';
import type { ApiConfig } from '../config/api-config';
import type { AdminApp, AppSource } from '../http/app';
import type { PublicApp } from '../routes/order-webhook';
import { paymentProvider } from './payments';

/** The SDK clients the API's functions use (the admin area alone reaches S3 and SQS). */
export type ApiClients = Pick<AwsClients, 'dynamo' | 's3' | 'sqs'>;

/**
 * The API's dependencies as `npm start` and the tests hold them: its configuration and where its SDK
 * clients connect (`awsClients(aws)` makes the clients).
 */
export interface ApiWiring {
  config: ApiConfig;
  aws: AwsConnection;
}

/**
 * The App of every area: the stores are built once; each request takes the shared secrets from the
 * one cache every entry point shares (secrets.ts, with its maximum age), so a rotated secret reaches
 * warm instances. A failed read (say, Secrets Manager unreachable) fails that request only: the next
 * one tries again.
 */
export function appSource(config: ApiConfig, clients: Pick<ApiClients, 'dynamo'>): AppSource {
  const stores = dynamoStores(clients.dynamo, config.tableName);
  const droppedReports = droppedReportsTelemetry();
  return async () => ({
    config: {
      playbackBaseUrl: config.playbackBaseUrl,
      mediaPort: config.mediaPort,
      ingestRtmpUrl: config.ingestRtmpUrl,
      ingestRtmpPort: config.ingestRtmpPort,
      ingestSrtUrl: config.ingestSrtUrl,
      ingestSrtPort: config.ingestSrtPort,
      segmentSeconds: config.segmentSeconds,
      siteOrigin: config.siteOrigin,
      sessionTimeoutSeconds: config.sessionTimeoutSeconds,
      ...(await loadSharedSecrets(config.secrets)),
    },
    stores,
    now: () => new Date(),
    droppedReports,
  });
}

/**
 * The public area's App: also the commerce secret (the order webhooks' and Stripe's key), read through the
 * same cache as the shared secret, and only by the webhooks and the checkout: a viewer's request never waits
 * for it or fails with it.
 */
export function publicApp(config: ApiConfig, clients: Pick<ApiClients, 'dynamo'>, base: AppSource = appSource(config, clients)): AppSource<PublicApp> {
  const source = config.commerceSecrets;
  const commerceSecrets = async () => (source ? loadCommerceSecrets(source) : null);
  const checkoutSessions = paymentProvider(config);
  return async () => ({ ...(await base()), commerceSecrets, checkoutSessions });
}


/**
 * The admin area's App: the staff accounts on the staff table and the admin secrets through the
 * same cache as the shared secret (Secrets Manager in AWS; only this function's role may reach
 * either), the media cache and the jobs queue the configuration names, and Stripe (the commerce
 * secret's key) for the console's refunds.
 */
export function adminApp(config: ApiConfig, clients: ApiClients, base: AppSource = appSource(config, clients)): AppSource<AdminApp> {
  const source = config.adminSecrets;
  if (!source) throw new Error('configuration: the admin area needs ADMIN_SECRETS_ARN (locally ADMIN_PASSWORD_HASH, ADMIN_SESSION_SECRET and ADMIN_TOTP_KEY)');
  const { staffTableName } = config;
  if (!staffTableName) throw new Error('configuration: the admin area needs STAFF_TABLE_NAME');
  const accounts = dynamoAccountStore(clients.dynamo, staffTableName);
  const mediaCache = mediaCacheOf(config.mediaCache);
  const jobQueue = config.jobsQueueUrl ? new SqsJobQueue(clients.sqs, config.jobsQueueUrl) : null;
  const exportFiles = config.exportBucket ? s3ExportFiles(clients.s3, config.exportBucket) : null;
  const recordingFiles = config.mediaBucket ? s3RecordingFiles(clients.s3, config.mediaBucket) : null;
  const payments = paymentProvider(config);
  return async () => {
    const [app, adminSecrets] = await Promise.all([base(), loadAdminSecrets(source)]);
    return { ...app, stores: { ...app.stores, accounts }, adminSecrets, mediaCache, jobQueue, exportFiles, recordingFiles, payments };
  };
}
