import type { AdminSecrets, AppConfig } from '../domain/config';
import type { ExportFiles } from '../domain/jobs';
import type { JobQueue } from '../domain/jobs';
import type { MediaCache } from '../domain/streams';
import type { AdminStores, Stores } from '../compose/stores';
import type { DroppedReports } from '../domain/access';
import type { PaymentProvider } from '../domain/commerce';
import type { RecordingFiles } from '../domain/watermark';

/** What every handler works with. */
export interface App {
  config: AppConfig;
  stores: Stores;
  now(): Date;
  droppedReports?: DroppedReports;
}

/**
 * What the admin area's handlers work with: also the staff accounts and the admin secrets, which no
 * other area loads (nor may reach in AWS), the media cache and the jobs queue.
 */
export interface AdminApp extends App {
  stores: AdminStores;
  adminSecrets: AdminSecrets;
  /** Null where clearing is not configured. */
  mediaCache: MediaCache | null;
  /** Where background jobs' steps go; null where no jobs queue is configured. */
  jobQueue: JobQueue | null;
  /** Where export jobs' files are (and their download links signed); null where no export bucket is configured. */
  exportFiles: ExportFiles | null;
  /** The shows' recordings for the watermark tracer (index, signed URLs); null where no media bucket is configured. */
  recordingFiles: RecordingFiles | null;
  /** Stripe, for refunds from the console and a cancelled show's (the commerce secret's key); null where it has none. */
  payments(): Promise<PaymentProvider | null>;
}

/** An area's App, for each request (built by functions/compose/api-app.ts). */
export type AppSource<A extends App = App> = () => Promise<A>;
