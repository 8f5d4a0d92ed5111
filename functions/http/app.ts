import { DynamoJobStore } from '../adapters/dynamo-job-store';
import { DynamoStore } from '../adapters/dynamo-store';
import { dynamoDocumentClient, sqs } from '../adapters/aws-clients';
import { loadAdminSecrets, loadConfig } from '../adapters/load-config';
import { SqsJobQueue } from '../adapters/sqs-job-queue';
import type { AdminSecrets, AppConfig } from '../domain/config';
import type { JobQueue } from '../domain/job-queue';
import type { JobStore } from '../domain/job-store';
import type { Store } from '../domain/store';

/** What every handler works with. */
export interface App {
  config: AppConfig;
  store: Store;
  now(): Date;
}

/** What the admin area's handlers work with: the App, the admin secrets (no other area loads them) and background jobs. */
export interface AdminApp extends App {
  adminSecrets: AdminSecrets;
  jobs: JobStore;
  /** Null where no jobs queue is configured (`JOBS_QUEUE_URL`). */
  jobQueue: JobQueue | null;
}

let store: Store | undefined;
let jobs: JobStore | undefined;
let jobQueue: SqsJobQueue | undefined;

/**
 * The configuration comes from the one cache every entry point shares
 * (load-config.ts, with its maximum age), so a rotated secret reaches warm
 * instances; the store is built once per process. A failed read (say,
 * Secrets Manager unreachable) fails this request only: the next one tries again.
 */
export async function getApp(): Promise<App> {
  const config = await loadConfig(process.env);
  store ??= new DynamoStore(dynamoDocumentClient(), config.tableName);
  return { config, store, now: () => new Date() };
}

/** The admin area's App: the admin secrets come through the same cache (ADMIN_SECRETS_ARN, or env locally). */
export async function getAdminApp(): Promise<AdminApp> {
  const [app, adminSecrets] = await Promise.all([getApp(), loadAdminSecrets(process.env)]);
  jobs ??= new DynamoJobStore(dynamoDocumentClient(), app.config.tableName);
  if (app.config.jobsQueueUrl) jobQueue ??= new SqsJobQueue(sqs(), app.config.jobsQueueUrl);
  return { ...app, adminSecrets, jobs, jobQueue: jobQueue ?? null };
}
